package urlhash

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// ErrInvalid is wrapped by the errors of Normalize, Sum and Compare for
// a URL that cannot be understood. The error names the URL and the
// reason.
var ErrInvalid = errors.New("urlhash: invalid URL")

// Options adjusts normalisation. The zero Options, and a nil *Options,
// are the defaults: tracking parameters, a leading "www." and a
// trailing index page are all removed.
type Options struct {
	// DropParams lists more query parameters to remove, by name
	// (case-insensitive); an entry ending in '*' is a prefix. They are
	// removed whatever KeepTracking says.
	DropParams []string
	// KeepTracking keeps the parameters TrackingParams lists, which are
	// otherwise removed from the query and, as ";name=value", from path
	// segments.
	KeepTracking bool
	// KeepWWW keeps leading "www." labels of the host, which are
	// otherwise removed as long as at least two labels remain
	// (www.example.com becomes example.com; www.com stays).
	KeepWWW bool
	// KeepIndex keeps a last path segment naming a directory index
	// (index.html, index.htm, index.php, default.aspx, ... as listed in
	// IndexPages, case-insensitive), which is otherwise removed, leaving
	// the directory: /a/index.html becomes /a/.
	KeepIndex bool
}

// DefaultOptions returns the default options, the same as a nil
// *Options.
func DefaultOptions() *Options { return &Options{} }

// TrackingParams returns the query parameters removed unless
// Options.KeepTracking is set: campaign and click identifiers and
// session ids. An entry ending in '*' is a prefix. Beware that some
// sites use "sid" or "from" for content; set KeepTracking and list the
// ones to drop in DropParams for those.
func TrackingParams() []string {
	return []string{
		"utm_*", "spm", "from", "fbclid", "gclid", "dclid", "msclkid", "yclid", "igshid",
		"mc_cid", "mc_eid", "jsessionid", "phpsessid", "sid", "sessionid",
	}
}

// IndexPages returns the last path segments removed unless
// Options.KeepIndex is set.
func IndexPages() []string {
	return []string{
		"index.html", "index.htm", "index.shtml", "index.php", "index.jsp", "index.asp",
		"default.htm", "default.html", "default.asp", "default.aspx",
	}
}

// Parts is a normalised URL.
type Parts struct {
	// Scheme is lower case, "http" when the URL had none.
	Scheme string
	// Host is lower case, internationalised names in punycode
	// (xn--...), IPv6 literals in brackets and in their RFC 5952 form.
	// It is empty only for file URLs.
	Host string
	// Port is in decimal, empty when absent or the scheme's default
	// (80 for http and ws, 443 for https and wss, 21 for ftp).
	Port string
	// Path holds the segments after the leading "/", percent-encoded
	// as described on Normalize; "/" is no segments, and a trailing
	// slash is a last empty segment ("/a/" is ["a", ""]).
	Path []string
	// Query holds the "name=value" parameters (or "name" without '='),
	// percent-encoded, sorted in byte order; empty ones are left out.
	Query []string
	// Fragment is percent-encoded, without the '#'.
	Fragment string
}

// String returns the normalised URL. Normalize gives back the same
// Parts for it.
func (p Parts) String() string {
	var b strings.Builder
	b.WriteString(p.Scheme)
	b.WriteString("://")
	b.WriteString(p.Host)
	if p.Port != "" {
		b.WriteByte(':')
		b.WriteString(p.Port)
	}
	b.WriteByte('/')
	b.WriteString(strings.Join(p.Path, "/"))
	if len(p.Query) > 0 {
		b.WriteByte('?')
		b.WriteString(strings.Join(p.Query, "&"))
	}
	if p.Fragment != "" {
		b.WriteByte('#')
		b.WriteString(p.Fragment)
	}
	return b.String()
}

// Equal reports whether p and q are the same normalised URL.
func (p Parts) Equal(q Parts) bool {
	return p.Scheme == q.Scheme && p.Host == q.Host && p.Port == q.Port &&
		slices.Equal(p.Path, q.Path) && slices.Equal(p.Query, q.Query) && p.Fragment == q.Fragment
}

// defaultPort returns the default port of a special scheme. Special
// schemes follow the WHATWG URL rules for slashes: any number of '/' or
// '\' may follow "scheme:", and '\' separates path segments.
func defaultPort(scheme string) (port string, special bool) {
	switch scheme {
	case "http", "ws":
		return "80", true
	case "https", "wss":
		return "443", true
	case "ftp":
		return "21", true
	case "file":
		return "", true
	}
	return "", false
}

// Normalize parses raw and normalises it:
//
//   - Leading and trailing spaces and ASCII control characters are
//     trimmed and tabs and line breaks removed anywhere (as browsers
//     do); any other control character (below 0x20, or 0x7f) is an
//     error.
//   - Without a scheme ("example.com/a", "//example.com/a",
//     "localhost:8080/a") the URL is taken as http. A scheme without
//     "//" is an error (mailto:, javascript:, urn:), except that http,
//     https, ws, wss and ftp accept any number of '/' or '\' after the
//     colon and '\' as a path separator, like browsers.
//   - User information (user:password@) is dropped.
//   - The host is percent-decoded, mapped with IDNA (UTS #46 lookup,
//     non-transitional, without the STD3 ASCII rules so '_' is allowed)
//     to lower-case punycode, and must then consist of letters, digits,
//     '-', '_' and non-empty labels separated by '.'; one trailing '.'
//     is dropped. IPv6 literals must parse (zones are refused) and are
//     written in RFC 5952 form. Only file URLs may have an empty host.
//   - The port must be decimal and at most 65535; the scheme's default
//     port is dropped.
//   - Percent-escapes of unreserved characters (letters, digits, "-",
//     ".", "_", "~") are decoded, all other escapes are kept with
//     upper-case hex, and non-ASCII bytes and characters that may not
//     appear raw (space, '"', '<', '>', '\', '^', '`', '{', '|', '}')
//     are encoded, so a raw UTF-8 path and its percent-encoded spelling
//     normalise alike. A '%' not followed by two hex digits becomes
//     "%25".
//   - "." and ".." path segments are resolved (RFC 3986); an empty path
//     is "/".
//   - Query parameters are sorted; tracking parameters and a trailing
//     index page are removed as Options says.
func Normalize(raw string, opts *Options) (Parts, error) {
	if opts == nil {
		opts = &Options{}
	}
	s, err := clean(raw)
	if err != nil {
		return Parts{}, invalid(raw, err.Error())
	}
	var p Parts
	var rest string
	hasAuthority := true
	p.Scheme, rest, err = splitScheme(s)
	if err != nil {
		return Parts{}, invalid(raw, err.Error())
	}
	_, special := defaultPort(p.Scheme)
	switch {
	case p.Scheme == "file":
		if r, ok := strings.CutPrefix(rest, "//"); ok {
			rest = r
		} else {
			hasAuthority = false
		}
	case special:
		rest = strings.TrimLeft(rest, `/\`)
	default:
		rest = rest[2:] // splitScheme checked the "//"
	}
	rest, p.Fragment, _ = strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	if special {
		rest = strings.ReplaceAll(rest, `\`, "/")
	}
	authority, path := rest, ""
	if !hasAuthority {
		authority, path = "", rest
	} else if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}

	if err := p.setAuthority(authority, opts); err != nil {
		return Parts{}, invalid(raw, err.Error())
	}
	drop := dropper(opts)
	p.Path = normalizePath(path, drop, !opts.KeepIndex)
	p.Query = normalizeQuery(query, drop)
	p.Fragment = escape(p.Fragment, fragmentChars)
	return p, nil
}

func invalid(raw, reason string) error {
	return fmt.Errorf("%w %q: %s", ErrInvalid, raw, reason)
}

// clean trims raw and removes tabs and line breaks, as the WHATWG URL
// parser does, and refuses other control characters.
func clean(raw string) (string, error) {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	if s == "" {
		return "", errors.New("empty")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			return "", fmt.Errorf("control character %#02x at byte %d", c, i)
		}
	}
	return s, nil
}

// splitScheme returns the lower-cased scheme of s, "http" if it has
// none, and the rest after "scheme:".
func splitScheme(s string) (scheme, rest string, err error) {
	if strings.HasPrefix(s, "//") {
		return "http", s, nil
	}
	if strings.HasPrefix(s, "/") {
		return "", "", errors.New("relative reference without a host")
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || !isScheme(s[:i]) {
		return "http", "//" + s, nil
	}
	scheme, rest = strings.ToLower(s[:i]), s[i+1:]
	if _, special := defaultPort(scheme); special || strings.HasPrefix(rest, "//") {
		return scheme, rest, nil
	}
	if isPortThenPath(rest) {
		// host:port without a scheme, such as localhost:8080/a.
		return "http", "//" + s, nil
	}
	return "", "", fmt.Errorf("scheme %q without \"//\" is not a hierarchical URL", scheme)
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// isPortThenPath reports whether s is digits followed by nothing or by
// a path, query or fragment.
func isPortThenPath(s string) bool {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i > 0 && (i == len(s) || strings.IndexByte("/?#", s[i]) >= 0)
}

func (p *Parts) setAuthority(authority string, opts *Options) error {
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	hostport := authority
	var port string
	var hasPort bool
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return errors.New("IPv6 literal without ']'")
		}
		host, after := hostport[:end+1], hostport[end+1:]
		if after != "" {
			var ok bool
			port, ok = strings.CutPrefix(after, ":")
			if !ok {
				return fmt.Errorf("unexpected %q after IPv6 literal", after)
			}
			hasPort = true
		}
		h, err := ipv6Host(host)
		if err != nil {
			return err
		}
		p.Host = h
	} else {
		host := hostport
		host, port, hasPort = strings.Cut(host, ":")
		h, err := regHost(host, opts)
		if err != nil {
			return err
		}
		p.Host = h
	}
	if p.Host == "" && p.Scheme != "file" {
		return errors.New("missing host")
	}
	if hasPort && port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || strings.TrimLeft(port, "0123456789") != "" {
			return fmt.Errorf("bad port %q", port)
		}
		p.Port = strconv.FormatUint(n, 10)
		if def, _ := defaultPort(p.Scheme); p.Port == def {
			p.Port = ""
		}
	}
	return nil
}

func ipv6Host(literal string) (string, error) {
	inner := literal[1 : len(literal)-1]
	if strings.ContainsRune(inner, '%') {
		return "", fmt.Errorf("IPv6 zone in %q not supported", literal)
	}
	a, err := netip.ParseAddr(inner)
	if err != nil || !a.Is6() {
		return "", fmt.Errorf("bad IPv6 literal %q", literal)
	}
	return "[" + a.String() + "]", nil
}

// hostProfile maps host names as browsers do (UTS #46 non-transitional,
// no STD3 rules, no hyphen checks). It is never modified.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

func regHost(host string, opts *Options) (string, error) {
	if strings.ContainsRune(host, '%') {
		d, ok := unescapeAll(host)
		if !ok || !utf8.ValidString(d) {
			return "", fmt.Errorf("bad percent-encoding in host %q", host)
		}
		host = d
	}
	if host == "" {
		return "", nil
	}
	if !utf8.ValidString(host) {
		return "", fmt.Errorf("host %q is not valid UTF-8", host)
	}
	h := host
	if !isLowerASCIIHost(h) {
		var err error
		if h, err = hostProfile.ToASCII(host); err != nil {
			return "", fmt.Errorf("bad host %q: %v", host, err)
		}
		// The result must map to itself, or the normalised URL would not
		// normalise to the same host.
		if h2, err := hostProfile.ToASCII(h); err != nil || h2 != h {
			return "", fmt.Errorf("bad host %q: maps to %q, which does not map to itself", host, h)
		}
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", fmt.Errorf("bad host %q", host)
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return "", fmt.Errorf("empty label in host %q", host)
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("invalid character %q in host %q", c, host)
			}
		}
	}
	if !opts.KeepWWW {
		for {
			rest, ok := strings.CutPrefix(h, "www.")
			if !ok || !strings.Contains(rest, ".") {
				break
			}
			h = rest
		}
	}
	return h, nil
}

// isLowerASCIIHost reports whether h needs no IDNA mapping: lower-case
// letters, digits, '-', '_' and '.', and no punycode label to check.
func isLowerASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return !strings.HasPrefix(h, "xn--") && !strings.Contains(h, ".xn--")
}

// dropper returns the test for parameter names to remove, nil if none.
func dropper(opts *Options) func(name string) bool {
	var list []string
	if !opts.KeepTracking {
		list = TrackingParams()
	}
	list = append(list, opts.DropParams...)
	if len(list) == 0 {
		return nil
	}
	var exact []string
	var prefixes []string
	for _, d := range list {
		d = strings.ToLower(d)
		if p, ok := strings.CutSuffix(d, "*"); ok {
			prefixes = append(prefixes, p)
		} else {
			exact = append(exact, d)
		}
	}
	return func(name string) bool {
		if n, ok := unescapeAll(name); ok {
			name = n
		}
		name = strings.ToLower(name)
		if slices.Contains(exact, name) {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
}

func normalizePath(path string, drop func(string) bool, stripIndex bool) []string {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return nil
	}
	raw := strings.Split(path, "/")
	segs := make([]string, 0, len(raw))
	for i, seg := range raw {
		seg = escape(seg, pathChars)
		if drop != nil && strings.IndexByte(seg, ';') >= 0 {
			seg = dropMatrixParams(seg, drop)
		}
		last := i == len(raw)-1
		switch seg {
		case ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, seg)
			continue
		}
		if last {
			segs = append(segs, "") // "/a/b/.." is "/a/"
		}
	}
	if stripIndex && len(segs) > 0 {
		last := strings.ToLower(segs[len(segs)-1])
		if slices.Contains(IndexPages(), last) {
			segs[len(segs)-1] = ""
		}
	}
	if len(segs) == 1 && segs[0] == "" {
		return nil
	}
	return segs
}

// dropMatrixParams removes ";name=value" parameters, such as
// ";jsessionid=...", whose name drop matches.
func dropMatrixParams(seg string, drop func(string) bool) string {
	parts := strings.Split(seg, ";")
	kept := parts[:1]
	for _, mp := range parts[1:] {
		name, _, _ := strings.Cut(mp, "=")
		if !drop(name) {
			kept = append(kept, mp)
		}
	}
	return strings.Join(kept, ";")
}

func normalizeQuery(query string, drop func(string) bool) []string {
	if query == "" {
		return nil
	}
	var params []string
	for param := range strings.SplitSeq(query, "&") {
		if param == "" {
			continue
		}
		name, value, hasValue := strings.Cut(param, "=")
		name = escape(name, queryChars)
		if drop != nil && drop(name) {
			continue
		}
		if hasValue {
			name += "=" + escape(value, queryChars)
		}
		params = append(params, name)
	}
	slices.Sort(params)
	return params
}

// Character classes of RFC 3986 that may appear unencoded.
const (
	unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	subDelimChars   = "!$&'()*+,;="
	pathChars       = unreservedChars + subDelimChars + ":@"
	// '&' and '=' in a parameter come from %26 and %3D, which stay
	// encoded; raw ones split parameters before escape sees them.
	queryChars    = pathChars + "/?"
	fragmentChars = queryChars
)

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// escape normalises the percent-encoding of s: escapes of unreserved
// characters are decoded, other escapes get upper-case hex, a '%' not
// starting an escape becomes %25, and bytes not in allowed are encoded.
func escape(s, allowed string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if strings.IndexByte(unreservedChars, v) >= 0 {
				b.WriteByte(v)
				continue
			}
			b.WriteByte('%')
			b.WriteByte(hexDigits[v>>4])
			b.WriteByte(hexDigits[v&15])
		case c < utf8.RuneSelf && c != '%' && strings.IndexByte(allowed, c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// unescapeAll decodes every %XX in s; ok is false for a malformed one.
func unescapeAll(s string) (string, bool) {
	if !strings.ContainsRune(s, '%') {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), true
}
