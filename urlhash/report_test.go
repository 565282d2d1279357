package urlhash_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup/urlhash"
)

func ExampleComparison_Report() {
	a, b := "http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123", "http://baidu.com:8080/1/2/3/4.php?a=1&b=2"
	c, err := urlhash.Compare(a, b, nil)
	if err != nil {
		panic(err)
	}
	r := c.Report(a, b, nil)
	r.WriteText(os.Stdout)
	// Output:
	// A             http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123
	// B             http://baidu.com:8080/1/2/3/4.php?a=1&b=2
	// fingerprints  fb277e2616ef1564 fb277e2616ef1464
	// distance      1 of 64 bits
	// similarity    98.4%
	// differ        fragment
	// verdict       very close (≥ 95%): a cosmetic variant of one page, or a close sibling
}

// TestReport: the JSON of url --json (the first case is a line of
// cmd/neardup's golden testdata/url/compare_json.txt) and the text of
// verdicts with and without a bound.
func TestReport(t *testing.T) {
	same, err := urlhash.Sum("http://baidu.com/a?x=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b       string
		opts       *urlhash.Options
		json, text string
	}{
		{"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123", "http://baidu.com:8080/1/2/3/4.php?a=1&b=2", nil,
			`{"a":"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123","b":"http://baidu.com:8080/1/2/3/4.php?a=1&b=2","input_a":"http://baidu.com:8080/1/2/3/4.php?a=1&b=2#123","input_b":"http://baidu.com:8080/1/2/3/4.php?a=1&b=2","fingerprint_a":"fb277e2616ef1564","fingerprint_b":"fb277e2616ef1464","distance":1,"similarity":0.984375,"differ":["fragment"],"same":false,"verdict":"very close","normalizer":"urlhash/1-420d1628b36be843"}`,
			"differ        fragment\nverdict       very close (≥ 95%): a cosmetic variant of one page, or a close sibling\n"},
		{"http://baidu.com/a?x=1", "HTTP://www.baidu.com/a?x=1&utm_source=weibo", nil,
			`{"a":"http://baidu.com/a?x=1","b":"http://baidu.com/a?x=1","input_a":"http://baidu.com/a?x=1","input_b":"HTTP://www.baidu.com/a?x=1&utm_source=weibo","fingerprint_a":"` + same.String() + `","fingerprint_b":"` + same.String() + `","distance":0,"similarity":1,"differ":[],"same":true,"verdict":"same URL","normalizer":"urlhash/1-420d1628b36be843"}`,
			"differ        nothing\nverdict       same URL: the normalised URLs are equal\n"},
		{"http://baidu.com/a", "http://example.org/b", &urlhash.Options{KeepWWW: true}, "",
			"differ        host, path\nverdict       different (< 80%)\n"},
	} {
		c, err := urlhash.Compare(tc.a, tc.b, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Report(tc.a, tc.b, tc.opts)
		var j strings.Builder
		enc := json.NewEncoder(&j)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if tc.json != "" && j.String() != tc.json+"\n" {
			t.Errorf("%s %s: JSON\n%s\nwant\n%s", tc.a, tc.b, j.String(), tc.json)
		}
		if want := `"normalizer":"urlhash/1-992ce946f231b1fa"}`; tc.opts != nil && !strings.HasSuffix(j.String(), want+"\n") {
			t.Errorf("%s %s: JSON %s, want it to end with %s", tc.a, tc.b, j.String(), want)
		}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if lines := strings.SplitAfter(b.String(), "\n"); len(lines) != 8 || strings.Join(lines[5:], "") != tc.text {
			t.Errorf("%s %s: text\n%s\nwant 7 lines ending with\n%s", tc.a, tc.b, b.String(), tc.text)
		}
	}
}

func TestPercent(t *testing.T) {
	for s, want := range map[float64]string{0: "0.0%", 1: "100.0%", 0.984375: "98.4%", 0.96875: "96.9%", 0.8125: "81.2%"} {
		if got := urlhash.Percent(s); got != want {
			t.Errorf("Percent(%v) = %q, want %q", s, got, want)
		}
	}
}
