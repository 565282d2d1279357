package eval

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// distanceBuckets are the columns of the distance histograms: the
// distances 0 … 10 one by one, then ranges.
var distanceBuckets = [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}, {10, 10},
	{11, 15}, {16, 20}, {21, 25}, {26, 31}, {32, 64}}

// write writes the histograms as two rows of counts, the distinct
// pairs' with their median.
func (h *Distances) write(b *strings.Builder) {
	b.WriteString("fingerprint distances   ")
	for _, bk := range distanceBuckets {
		label := strconv.Itoa(bk[0])
		if bk[1] != bk[0] {
			label += "-" + strconv.Itoa(bk[1])
		}
		fmt.Fprintf(b, " %6s", label)
	}
	b.WriteString("\n")
	row := func(name string, counts []int) {
		fmt.Fprintf(b, "%-24s", name)
		for _, bk := range distanceBuckets {
			n := 0
			for d := bk[0]; d <= bk[1]; d++ {
				n += counts[d]
			}
			fmt.Fprintf(b, " %6d", n)
		}
		b.WriteString("\n")
	}
	sum := func(counts []int) (n int) {
		for _, c := range counts {
			n += c
		}
		return n
	}
	row(fmt.Sprintf("  duplicate pairs %d", sum(h.Duplicate)), h.Duplicate)
	nd := sum(h.Distinct)
	row(fmt.Sprintf("  distinct sample %d", nd), h.Distinct)
	if nd > 0 {
		med, seen := 0, 0
		for d, c := range h.Distinct {
			if seen += c; 2*seen >= nd {
				med = d
				break
			}
		}
		fmt.Fprintf(b, "  (distinct pairs: median distance %d)\n", med)
	}
}

// WriteList writes the duplicates the current settings missed and the
// distinct pairs they found, a line each (neardup eval --list).
func (r *Report) WriteList(w io.Writer) error {
	var b strings.Builder
	for _, l := range []struct {
		title string
		pairs []PairDetail
	}{{"missed by the current settings", r.Current.Missed}, {"found by the current settings but distinct", r.Current.False}} {
		fmt.Fprintf(&b, "%s (%d):\n", l.title, len(l.pairs))
		for _, d := range l.pairs {
			fmt.Fprintf(&b, "  %v\n", d)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the report for people: the inputs, the labels and
// the analyzer, then the table (WriteTable) and, with list, the list
// (WriteList).
func (r *Report) WriteText(w io.Writer, list bool) error {
	if _, err := fmt.Fprintf(w, "corpus    %s\npairs     %s\nanalyzer  %s\n\n", strings.Join(r.Inputs, " "), r.Pairs, r.Analyzer); err != nil {
		return err
	}
	if err := r.WriteTable(w); err != nil || !list {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return r.WriteList(w)
}

// WriteTable writes the report as a text table: the corpus and labels,
// the SimHash screen at each distance without and with content
// verification, the distance histograms, the detector at the current
// settings and the sweep.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "records   %d fingerprinted, %d too short, %d rejected\n", r.Docs, r.TooShort, r.Rejected)
	fmt.Fprintf(&b, "labels    %d duplicate pairs (%d with a too-short article), %d ignored, %d distinct",
		r.Positives, r.PositivesTooShort, r.IgnoredPairs, r.Negatives)
	if r.Reference {
		fmt.Fprintf(&b, " (unlisted pairs count as distinct; duplicate J >= %.1f, ignored %.1f <= J < %.1f)",
			DuplicateJaccard, DistinctJaccard, DuplicateJaccard)
	}
	b.WriteString("\n")
	if r.MissingPairs > 0 {
		fmt.Fprintf(&b, "missing   %d labelled pairs name ids not in the corpus, e.g. %q\n", r.MissingPairs, r.MissingIDs[0])
	}
	fmt.Fprintf(&b, "\n%-3s  %-44s  %s\n", "", "simhash", fmt.Sprintf("simhash+verify (content >= %.2f)", r.MinContent))
	head := fmt.Sprintf("%6s %6s %6s %5s %7s %5s", "P", "R", "F1", "TP", "FP", "FN")
	fmt.Fprintf(&b, "%3s  %-44s  %s\n", "k", head, head)
	row := func(c Confusion) string {
		return fmt.Sprintf("%6.4f %6.4f %6.4f %5d %7d %5d", c.Precision, c.Recall, c.F1, c.TP, c.FP, c.FN)
	}
	for _, t := range r.Thresholds {
		fmt.Fprintf(&b, "%3d  %-44s  %s\n", t.Distance, row(t.SimHash), row(t.Verified))
	}
	det := func(d *DetectorResult) {
		c := d.Confusion
		fmt.Fprintf(&b, "P %.4f  R %.4f  F1 %.4f  TP %d  FP %d  FN %d  (%d pairs found, %d ignored)\n",
			c.Precision, c.Recall, c.F1, c.TP, c.FP, c.FN, d.Pairs, c.Ignored)
	}
	if r.Distances.Duplicate != nil {
		b.WriteString("\n")
		r.Distances.write(&b)
	}
	fmt.Fprintf(&b, "\ncurrent settings (%d blocks, k=%d, content >= %.2f): ", r.Current.Blocks, r.Current.MaxDistance, r.Current.MinContent)
	det(&r.Current)
	for i := range r.Sweep {
		fmt.Fprintf(&b, "  with content >= %.2f: ", r.Sweep[i].MinContent)
		det(&r.Sweep[i])
	}
	if len(r.Current.ByKind) > 0 {
		b.WriteString("\nrecall by kind, current settings\n")
		w := len("kind")
		for _, k := range r.Current.ByKind {
			w = max(w, utf8.RuneCountInString(k.Kind))
		}
		fmt.Fprintf(&b, "  %-*s  %6s  %6s  %6s\n", w, "kind", "pairs", "found", "R")
		for _, k := range r.Current.ByKind {
			fmt.Fprintf(&b, "  %-*s  %6d  %6d  %6.4f\n", w, k.Kind, k.Pairs, k.Found, k.Recall)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
