package urlhash

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/simhash"
)

func TestNormalize(t *testing.T) {
	keepAll := &Options{KeepTracking: true, KeepWWW: true, KeepIndex: true}
	tests := []struct {
		in   string
		opts *Options
		want string
	}{
		{"http://example.com/a", nil, "http://example.com/a"},
		{"HTTP://Example.COM:80/a", nil, "http://example.com/a"},
		{"example.com/a", nil, "http://example.com/a"},
		{"//example.com/a", nil, "http://example.com/a"},
		{"example.com", nil, "http://example.com/"},
		{"localhost:8080/a?b", nil, "http://localhost:8080/a?b"},
		{"https://example.com:443/", nil, "https://example.com/"},
		{"https://example.com:80/", nil, "https://example.com:80/"},
		{"http://example.com:0080/", nil, "http://example.com/"},
		{"http://example.com:/x", nil, "http://example.com/x"},
		{"ftp://example.com:21/pub", nil, "ftp://example.com/pub"},
		{"http://example.com?a=1", nil, "http://example.com/?a=1"},
		{"http://example.com#top", nil, "http://example.com/#top"},
		{"http://example.com/?#", nil, "http://example.com/"},
		{"  http://example.com/a\n ", nil, "http://example.com/a"},
		{"http://exam\tple.com/a\r\nb", nil, "http://example.com/ab"},
		{"http://user:secret@example.com/", nil, "http://example.com/"},
		// Slashes: browsers accept these for special schemes.
		{"http:example.com/a", nil, "http://example.com/a"},
		{"http:///example.com/a", nil, "http://example.com/a"},
		{`http:\\example.com\a\b?x=\`, nil, "http://example.com/a/b?x=%5C"},
		{"git://example.com/a\\b", nil, "git://example.com/a%5Cb"},
		{"file:///usr/share/doc/", nil, "file:///usr/share/doc/"},
		{"file:/etc/hosts", nil, "file:///etc/hosts"},
		// Hosts.
		{"http://www.example.com/", nil, "http://example.com/"},
		{"http://www.example.com/", keepAll, "http://www.example.com/"},
		{"http://www.www.example.com/", nil, "http://example.com/"},
		{"http://www.com/", nil, "http://www.com/"},
		{"http://example.com./", nil, "http://example.com/"},
		{"http://%65xample.com/", nil, "http://example.com/"},
		{"http://a_b.example.com/", nil, "http://a_b.example.com/"},
		{"http://例子.测试/路径", nil, "http://xn--fsqu00a.xn--0zwm56d/%E8%B7%AF%E5%BE%84"},
		{"http://例子。测试/", nil, "http://xn--fsqu00a.xn--0zwm56d/"},
		{"http://XN--FSQU00A.XN--0ZWM56D/", nil, "http://xn--fsqu00a.xn--0zwm56d/"},
		{"http://Bücher.example/", nil, "http://xn--bcher-kva.example/"},
		{"http://ｅｘａｍｐｌｅ．ｃｏｍ/", nil, "http://example.com/"},
		{"http://[::1]:8080/", nil, "http://[::1]:8080/"},
		{"http://[0:0:0:0:0:0:0:1]/", nil, "http://[::1]/"},
		{"http://[2001:DB8::A]:80/x", nil, "http://[2001:db8::a]/x"},
		{"http://[::ffff:1.2.3.4]/", nil, "http://[::ffff:1.2.3.4]/"},
		{"http://127.0.0.1:8000/", nil, "http://127.0.0.1:8000/"},
		// Paths and percent-encoding.
		{"http://example.com/%7Euser/%41%62%2d", nil, "http://example.com/~user/Ab-"},
		{"http://example.com/a%2fb%3a", nil, "http://example.com/a%2Fb%3A"},
		{"http://example.com/a b/\"<>`{}|^", nil, "http://example.com/a%20b/%22%3C%3E%60%7B%7D%7C%5E"},
		{"http://example.com/%zz/%/%4", nil, "http://example.com/%25zz/%25/%254"},
		{"http://example.com/a/./b/../c", nil, "http://example.com/a/c"},
		{"http://example.com/a/b/..", nil, "http://example.com/a/"},
		{"http://example.com/a/%2E%2e/b", nil, "http://example.com/b"},
		{"http://example.com/../../a", nil, "http://example.com/a"},
		{"http://example.com//a", nil, "http://example.com//a"},
		{"http://example.com/a/", nil, "http://example.com/a/"},
		{"http://example.com/a/index.html", nil, "http://example.com/a/"},
		{"http://example.com/Default.aspx", nil, "http://example.com/"},
		{"http://example.com/a/index.html", keepAll, "http://example.com/a/index.html"},
		{"http://example.com/index.html/x", nil, "http://example.com/index.html/x"},
		{"http://example.com/!$&'()*+,;=:@", nil, "http://example.com/!$&'()*+,;=:@"},
		{"http://example.com/路径/%e8%b7%af", nil, "http://example.com/%E8%B7%AF%E5%BE%84/%E8%B7%AF"},
		{"http://example.com/a\xffb", nil, "http://example.com/a%FFb"},
		// Query.
		{"http://example.com/?b=2&a=1&&c", nil, "http://example.com/?a=1&b=2&c"},
		{"http://example.com/?a=2&a=1", nil, "http://example.com/?a=1&a=2"},
		{"http://example.com/?q=a+b%20c%2b&x=%3D&y=a=b", nil, "http://example.com/?q=a+b%20c%2B&x=%3D&y=a=b"},
		{"http://example.com/?q=中文", nil, "http://example.com/?q=%E4%B8%AD%E6%96%87"},
		{"http://example.com/?utm_source=x&UTM_Medium=y&a=1&spm=1.2&from=tl&fbclid=z&gclid=z", nil, "http://example.com/?a=1"},
		{"http://example.com/?utm_source=x&a=1", keepAll, "http://example.com/?a=1&utm_source=x"},
		{"http://example.com/?utm%5Fsource=x&a=1", nil, "http://example.com/?a=1"},
		{"http://example.com/?PHPSESSID=1&sid=2&jsessionid=3&sessionid=4&id=5", nil, "http://example.com/?id=5"},
		{"http://example.com/a.jsp;jsessionid=ABC?x=1", nil, "http://example.com/a.jsp?x=1"},
		{"http://example.com/a;v=1;jsessionid=ABC", nil, "http://example.com/a;v=1"},
		{"http://example.com/?ref=x&ref_src=y&a=1", &Options{DropParams: []string{"ref*"}}, "http://example.com/?a=1"},
		{"http://example.com/?Ref=x&utm_source=y", &Options{DropParams: []string{"ref"}, KeepTracking: true}, "http://example.com/?utm_source=y"},
		// Fragment.
		{"http://example.com/#a b#c", nil, "http://example.com/#a%20b%23c"},
		{"http://example.com/#/route?x=1", nil, "http://example.com/#/route?x=1"},
	}
	for _, tt := range tests {
		p, err := Normalize(tt.in, tt.opts)
		if err != nil {
			t.Errorf("Normalize(%q) error: %v", tt.in, err)
			continue
		}
		if got := p.String(); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The normalised URL normalises to itself.
		q, err := Normalize(p.String(), tt.opts)
		if err != nil || !q.Equal(p) {
			t.Errorf("Normalize(%q) = %#v, %v; want %#v", p.String(), q, err, p)
		}
	}
}

func TestNormalizeParts(t *testing.T) {
	p, err := Normalize("http://baidu.com:8080/1/2/3/4.php?b=2&a=1#123", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Parts{
		Scheme: "http", Host: "baidu.com", Port: "8080",
		Path: []string{"1", "2", "3", "4.php"}, Query: []string{"a=1", "b=2"}, Fragment: "123",
	}
	if !p.Equal(want) {
		t.Errorf("Normalize = %#v, want %#v", p, want)
	}
	p, err = Normalize("http://example.com/", nil)
	if err != nil || len(p.Path) != 0 || len(p.Query) != 0 {
		t.Errorf("Normalize(root) = %#v, %v; want no path segments or query", p, err)
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "empty"},
		{"   ", "empty"},
		{"\t\n", "empty"},
		{"http://", "missing host"},
		{"http:///", "missing host"},
		{"http://:80/", "missing host"},
		{"http://user@/", "missing host"},
		{"?a=1", "missing host"},
		{"/a/b", "relative reference"},
		{"mailto:someone@example.com", "not a hierarchical URL"},
		{"javascript:void(0)", "not a hierarchical URL"},
		{"urn:isbn:0451450523", "not a hierarchical URL"},
		{"http://[::1", "without ']'"},
		{"http://[::1]x/", "after IPv6 literal"},
		{"http://[zz]/", "bad IPv6 literal"},
		{"http://[1.2.3.4]/", "bad IPv6 literal"},
		{"http://[::1::2]/", "bad IPv6 literal"},
		{"http://[fe80::1%25eth0]/", "zone"},
		{"http://example.com:99999/", "bad port"},
		{"http://example.com:8o/", "bad port"},
		{"http://example.com:-1/", "bad port"},
		{"http://example.com:80:80/", "bad port"},
		{"http://exa mple.com/", "invalid character"},
		{"http://exa<mple.com/", "invalid character"},
		{"http://exa*mple.com/", "invalid character"},
		{"http://a..b/", "empty label"},
		{"http://.a/", "empty label"},
		{"http://./", "bad host"},
		{"http://%zz.com/", "percent-encoding"},
		{"http://%ff.com/", "percent-encoding"},
		{"http://xn--zz.com/", "bad host"},
		{"http://a\x00b.com/", "control character"},
		{"http://a.com/\x1b[0m", "control character"},
		{"http://a.com/\x7f", "control character"},
	}
	for _, tt := range tests {
		p, err := Normalize(tt.in, nil)
		if err == nil {
			t.Errorf("Normalize(%q) = %q, nil; want an error", tt.in, p)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Normalize(%q) error %v does not wrap ErrInvalid", tt.in, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, strconv.Quote(tt.in)) || !strings.Contains(msg, tt.reason) {
			t.Errorf("Normalize(%q) error %q, want it to name the URL and say %q", tt.in, msg, tt.reason)
		}
		if fp, err := Sum(tt.in, nil); err == nil || fp != 0 {
			t.Errorf("Sum(%q) = %s, %v; want 0 and an error", tt.in, fp, err)
		}
	}
}

func TestSum(t *testing.T) {
	// Fingerprints checked against an independent Python implementation
	// of the features and SimHash described in the package comment.
	tests := []struct {
		in   string
		want simhash.Fingerprint
	}{
		{"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123", 0xfb277e2616ef1564},
		{"http://baidu.com:8080/1/2/3/4.php?a=1&b=2", 0xfb277e2616ef1464},
		{"http://example.com/a", 0xc18d74722158e210},
		{"http://例子.测试/路径", 0xc5a6b0b324c96657},
	}
	for _, tt := range tests {
		got, err := Sum(tt.in, nil)
		if err != nil || got != tt.want {
			t.Errorf("Sum(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	const base = "http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123"
	tests := []struct {
		a, b     string
		distance int
		differ   []string
	}{
		// Same normalised URL.
		{base, "http://baidu.com:8080/1/2/3/4.php?b=2&a=1#123", 0, nil},
		{base, "http://baidu.com:8080/1/2/3/4.php?a=1&b=2&utm_source=weibo#123", 0, nil},
		{base, "HTTP://WWW.BAIDU.COM:8080/1/2/3/4.php?a=1&b=2#123", 0, nil},
		{"HTTP://Example.COM:80/a", "http://example.com/a", 0, nil},
		{"example.com/a", "http://example.com/a", 0, nil},
		{"http://[::1]:8080/a", "http://[0::1]:8080/a", 0, nil},
		{"http://例子.测试/路径", "http://xn--fsqu00a.xn--0zwm56d/%E8%B7%AF%E5%BE%84", 0, nil},
		{"http://example.com/新闻/2018/报道.html", "http://example.com/%E6%96%B0%E9%97%BB/2018/%e6%8a%a5%e9%81%93.html", 0, nil},
		// One small part differs: few bits, sometimes none, as the host
		// (weight 4 of 10) decides most bits on its own. Distances
		// checked against an independent Python implementation.
		{base, "http://baidu.com:8080/1/2/3/4.php?a=1&b=2", 1, []string{"fragment"}},
		{base, "https://baidu.com:8080/1/2/3/4.php?a=1&b=2#123", 1, []string{"scheme"}},
		{base, "http://baidu.com:8080/1/2/3/4.php?a=1&b=3#123", 1, []string{"query"}},
		{base, "http://baidu.com:8080/1/2/3/5.php?a=1&b=2#123", 0, []string{"path"}},
		{"http://example.com/a", "http://example.com/a/", 8, []string{"path"}},
		{"http://example.com/a", "http://example.com/b", 14, []string{"path"}},
		// Another host (or port) is about as far as unrelated URLs.
		{base, "http://baidu.com:8081/1/2/3/4.php?a=1&b=2#123", 32, []string{"port"}},
		{base, "http://sina.com:8080/1/2/3/4.php?a=1&b=2#123", 32, []string{"host"}},
		{"http://[::1]:8080/", "http://[::2]:8080/", 13, []string{"host"}},
		{"http://example.com/a", "https://example.org/b?x#y", 28, []string{"scheme", "host", "path", "query", "fragment"}},
	}
	for _, tt := range tests {
		c, err := Compare(tt.a, tt.b, nil)
		if err != nil {
			t.Errorf("Compare(%q, %q) error: %v", tt.a, tt.b, err)
			continue
		}
		if c.Distance != tt.distance || !slices.Equal(c.Differ, tt.differ) {
			t.Errorf("Compare(%q, %q) = distance %d, differ %q; want %d, %q",
				tt.a, tt.b, c.Distance, c.Differ, tt.distance, tt.differ)
		}
		if want := 1 - float64(tt.distance)/64; c.Similarity != want {
			t.Errorf("Compare(%q, %q).Similarity = %v, want %v", tt.a, tt.b, c.Similarity, want)
		}
		if c.FingerprintA.Distance(c.FingerprintB) != c.Distance {
			t.Errorf("Compare(%q, %q): fingerprints %s %s do not give distance %d", tt.a, tt.b, c.FingerprintA, c.FingerprintB, c.Distance)
		}
	}

	if _, err := Compare("http://example.com/", "http://[::1/", nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "http://[::1/") {
		t.Errorf("Compare with a bad second URL: error %v, want ErrInvalid naming it", err)
	}
	if _, err := Compare("", "http://example.com/", nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Compare with an empty first URL: error %v, want ErrInvalid", err)
	}
}

func TestFeatures(t *testing.T) {
	for _, raw := range []string{
		"http://example.com/",
		"http://example.com/a",
		"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123",
		"http://example.com/a/b/c?x=1&y=2&z=3",
	} {
		p, err := Normalize(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		fs := p.Features()
		var total float64
		for _, f := range fs {
			total += f.Weight
		}
		if math.Abs(total-10) > 1e-9 {
			t.Errorf("%s: weights total %v, want 10", raw, total)
		}
		if got := simhash.Sum(fs); got != p.Fingerprint() {
			t.Errorf("%s: Sum(Features) = %s, Fingerprint = %s", raw, got, p.Fingerprint())
		}
	}
	p, _ := Normalize("http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123", nil)
	want := []simhash.Feature{
		{Hash: simhash.HashWord("s:http"), Weight: 0.5},
		{Hash: simhash.HashWord("h:baidu.com:8080"), Weight: 4},
		{Hash: simhash.HashWord("p:0/1"), Weight: 0.75},
		{Hash: simhash.HashWord("p:1/2"), Weight: 0.75},
		{Hash: simhash.HashWord("p:2/3"), Weight: 0.75},
		{Hash: simhash.HashWord("p:3/4.php"), Weight: 0.75},
		{Hash: simhash.HashWord("q:a=1"), Weight: 1},
		{Hash: simhash.HashWord("q:b=2"), Weight: 1},
		{Hash: simhash.HashWord("f:123"), Weight: 0.5},
	}
	if got := p.Features(); !slices.Equal(got, want) {
		t.Errorf("Features = %v, want %v", got, want)
	}
	p, _ = Normalize("http://example.com/", nil)
	want = []simhash.Feature{
		{Hash: simhash.HashWord("s:http"), Weight: 0.5},
		{Hash: simhash.HashWord("h:example.com:"), Weight: 4},
		{Hash: simhash.HashWord("p:/"), Weight: 3},
		{Hash: simhash.HashWord("q:"), Weight: 2},
		{Hash: simhash.HashWord("f:"), Weight: 0.5},
	}
	if got := p.Features(); !slices.Equal(got, want) {
		t.Errorf("Features(root) = %v, want %v", got, want)
	}
}

func TestOptionsNotModified(t *testing.T) {
	opts := &Options{DropParams: []string{"Ref*", "x"}}
	if _, err := Normalize("http://example.com/?ref=1&x=2&y=3", opts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opts.DropParams, []string{"Ref*", "x"}) || opts.KeepTracking || opts.KeepWWW || opts.KeepIndex {
		t.Errorf("Normalize changed its options: %+v", opts)
	}
	if d := DefaultOptions(); d.KeepTracking || d.KeepWWW || d.KeepIndex || d.DropParams != nil {
		t.Errorf("DefaultOptions() = %+v, want the zero Options", d)
	}
}

func FuzzSum(f *testing.F) {
	for _, s := range []string{
		"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123",
		"example.com/a",
		"http://例子.测试/路径",
		"http://[::1]:8080/",
		"http://www.example.com/a/./b/../index.html?utm_source=x&b=%7e#f",
		"",
		"http://[::1",
		"mailto:x@y.com",
		`http:\\a.com\b`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		fp, err := Sum(raw, nil)
		fp2, err2 := Sum(raw, nil)
		if fp != fp2 || (err == nil) != (err2 == nil) {
			t.Fatalf("Sum(%q) not deterministic: %s, %v then %s, %v", raw, fp, err, fp2, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Sum(%q) error %v does not wrap ErrInvalid", raw, err)
			}
			if fp != 0 {
				t.Fatalf("Sum(%q) = %s with an error", raw, fp)
			}
			return
		}
		p, err := Normalize(raw, nil)
		if err != nil {
			t.Fatalf("Sum(%q) succeeded but Normalize failed: %v", raw, err)
		}
		if p.Fingerprint() != fp {
			t.Fatalf("Normalize(%q).Fingerprint() = %s, Sum = %s", raw, p.Fingerprint(), fp)
		}
		// The normalised URL is a fixed point.
		s := p.String()
		q, err := Normalize(s, nil)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which fails to normalise: %v", raw, s, err)
		}
		if !q.Equal(p) {
			t.Fatalf("Normalize(%q) = %#v\nNormalize(%q) = %#v", raw, p, s, q)
		}
		if p.Host == "" && p.Scheme != "file" {
			t.Fatalf("Normalize(%q) = %q: empty host", raw, s)
		}
	})
}

func BenchmarkSum(b *testing.B) {
	for _, raw := range []string{
		"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123",
		"https://www.example.com/新闻/2018/报道.html?utm_source=weibo&id=42",
		"http://例子.测试/路径",
	} {
		b.Run(fmt.Sprintf("%dB", len(raw)), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Sum(raw, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
