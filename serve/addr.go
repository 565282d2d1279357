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
// ignoring white space around it; an empty file is an error.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s: empty file: want the token", path)
	}
	return token, nil
}
