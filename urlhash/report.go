package urlhash

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Report is a Comparison as neardup url prints it: its JSON is the
// object of --json, WriteText writes the text.
type Report struct {
	A            string   `json:"a"` // the normalised URLs
	B            string   `json:"b"`
	InputA       string   `json:"input_a"` // the URLs as given
	InputB       string   `json:"input_b"`
	FingerprintA string   `json:"fingerprint_a"`
	FingerprintB string   `json:"fingerprint_b"`
	Distance     int      `json:"distance"`
	Similarity   float64  `json:"similarity"`
	Differ       []string `json:"differ"` // never null
	Same         bool     `json:"same"`   // the normalised URLs are equal
	Verdict      string   `json:"verdict"`
	Normalizer   string   `json:"normalizer"` // Options.ID of the normalisation
	// Bound and Why are the rest of Comparison.Verdict, for the text.
	Bound string `json:"-"`
	Why   string `json:"-"`
}

// Report returns c as the report of comparing the URLs inputA and
// inputB, normalised with opts.
func (c *Comparison) Report(inputA, inputB string, opts *Options) Report {
	r := Report{
		A: c.A.String(), B: c.B.String(), InputA: inputA, InputB: inputB,
		FingerprintA: c.FingerprintA.String(), FingerprintB: c.FingerprintB.String(),
		Distance: c.Distance, Similarity: c.Similarity, Differ: c.Differ, Same: len(c.Differ) == 0,
		Normalizer: opts.ID(),
	}
	if r.Differ == nil {
		r.Differ = []string{}
	}
	r.Verdict, r.Bound, r.Why = c.Verdict()
	return r
}

// WriteText writes r for people, a line a field:
//
//	A             http://example.com/a
//	B             http://example.com/b
//	fingerprints  0123456789abcdef 0123456789abcdee
//	distance      1 of 64 bits
//	similarity    98.4%
//	differ        path
//	verdict       very close (≥ 95%): a cosmetic variant of one page, or a close sibling
func (r *Report) WriteText(w io.Writer) error {
	differ := strings.Join(r.Differ, ", ")
	if differ == "" {
		differ = "nothing"
	}
	verdict := r.Verdict
	if r.Bound != "" {
		verdict += " (" + r.Bound + ")"
	}
	if r.Why != "" {
		verdict += ": " + r.Why
	}
	var b strings.Builder
	for _, f := range [][2]string{
		{"A", r.A},
		{"B", r.B},
		{"fingerprints", r.FingerprintA + " " + r.FingerprintB},
		{"distance", strconv.Itoa(r.Distance) + " of 64 bits"},
		{"similarity", Percent(r.Similarity)},
		{"differ", differ},
		{"verdict", verdict},
	} {
		fmt.Fprintf(&b, "%-13s %s\n", f[0], f[1])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Percent formats a similarity from 0 to 1 as a percentage with one
// decimal: "98.4%".
func Percent(s float64) string {
	return strconv.FormatFloat(100*s, 'f', 1, 64) + "%"
}
