package serve

import (
	"fmt"
	"net"
	"os"
	"strings"
)

// IsLoopback reports whether addr (HOST:PORT) listens on loopback only:
// localhost or a loopback IP. An empty host listens on every interface.
// A server on any other address should require a Token: anyone who
// reaches it could change the archive.
func IsLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// ReadToken reads the bearer token (Options.Token) from the file path,
// ignoring white space around it. A token is one line of printable
// ASCII without spaces (what a client can send in an Authorization
// header): an empty file, a byte-order mark, a second line or any other
// byte is an error naming it, rather than a token that no request could
// ever match.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(string(b), "\uFEFF") {
		return "", fmt.Errorf("%s: starts with a byte-order mark: save it as plain ASCII", path)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s: empty file: want the token", path)
	}
	for i := 0; i < len(token); i++ {
		switch c := token[i]; {
		case c == '\n' || c == '\r':
			return "", fmt.Errorf("%s: more than one line: want the token alone", path)
		case c <= ' ' || c >= 0x7f:
			return "", fmt.Errorf("%s: byte %d (0x%02x) of the token is not printable ASCII: a token is one word of printable ASCII", path, i, c)
		}
	}
	return token, nil
}
