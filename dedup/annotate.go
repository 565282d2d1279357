package dedup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/input"
)

// Annotation is neardup's word on a record in the annotate file (the
// "neardup" object of a JSONL line; columns of a Parquet file).
type Annotation struct {
	// Verdict is "unique" (kept: no duplicate, or the original of its
	// cluster), "duplicate", "too-short" (kept, not fingerprinted) or
	// "rejected".
	Verdict string `json:"verdict" parquet:"verdict"`
	// Cluster is the ID of the original of the record's cluster: its
	// own for a unique record.
	Cluster string `json:"cluster,omitempty" parquet:"cluster,optional"`
	// Member, Similarity and Content are of the duplicate's match: the
	// member it matched (the original, or a copy of it), the SimHash
	// similarity (1 - distance/64) and the content similarity.
	Member     string  `json:"member,omitempty" parquet:"member,optional"`
	Similarity float64 `json:"similarity,omitempty" parquet:"similarity,optional"`
	Content    float64 `json:"content,omitempty" parquet:"content,optional"`
	// Reason says why a record was rejected or is too short.
	Reason string `json:"reason,omitempty" parquet:"reason,optional"`
}

// annotation returns the annotation of o as the run decided it (the
// first seen kept).
func annotation(o *Outcome) Annotation {
	a := Annotation{Verdict: o.Verdict.String()}
	switch o.Verdict {
	case Unique:
		a.Cluster = o.Record.ID
	case Duplicate:
		m := &o.Matches[0]
		a.Cluster, a.Member, a.Similarity, a.Content = ClusterOf(m), m.ID, m.Similarity, m.Content
	case TooShort, Rejected:
		if o.Err != nil {
			a.Reason = reasonOf(&o.Record, o.Err)
		}
	}
	return a
}

// articleRow is a row of a Parquet unique file.
type articleRow struct {
	ID    string  `parquet:"id"`
	Title *string `parquet:"title,optional"`
	Text  string  `parquet:"text"`
}

// annotatedRow is a row of a Parquet annotate file.
type annotatedRow struct {
	ID    string  `parquet:"id"`
	Title *string `parquet:"title,optional"`
	Text  string  `parquet:"text"`
	Annotation
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// annotatedLine returns the annotate file's line of rec: its JSONL line
// with a "neardup" object added as its last field; for a record without
// a line (a Parquet row, a WARC record, a whole file), or with a line
// that is not UTF-8, an object of its id, title and text and the
// "neardup" object. A rejected record without a line is its source.
func annotatedLine(rec *input.Record, raw []byte, a *Annotation) ([]byte, error) {
	ann, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	if end := bytes.LastIndexByte(raw, '}'); end > 0 && utf8.Valid(raw) && a.Verdict != "rejected" {
		head := bytes.TrimRight(raw[:end], " \t\r\n")
		line := append(bytes.Clone(head), `,"neardup":`...)
		if len(head) > 0 && head[len(head)-1] == '{' {
			line = append(bytes.Clone(head), `"neardup":`...)
		}
		line = append(line, ann...)
		return append(line, '}'), nil
	}
	type article struct {
		ID      string          `json:"id,omitempty"`
		Title   string          `json:"title,omitempty"`
		Text    string          `json:"text,omitempty"`
		Source  string          `json:"source,omitempty"`
		Line    int             `json:"line,omitempty"`
		Raw     string          `json:"raw,omitempty"`
		NearDup json.RawMessage `json:"neardup"`
	}
	v := article{ID: rec.ID, Title: rec.Title, Text: rec.Text, NearDup: ann}
	if a.Verdict == "rejected" {
		v = article{Source: rec.Source, Line: rec.Line, Raw: strings.ToValidUTF8(string(raw), "\uFFFD"), NearDup: ann}
	}
	return json.Marshal(v)
}

// writeAnnotation writes the annotation a of rec, read with err.
func (w *Outputs) writeAnnotation(rec *input.Record, err error, a Annotation) error {
	rec, raw := rawOf(rec, err)
	if w.annotateRows != nil {
		return w.annotateRows.write(rec, &a)
	}
	line, err := annotatedLine(rec, raw, &a)
	if err != nil {
		return err
	}
	return writeLine(w.annotate, line)
}

// writeUnique writes a kept record to the unique file: its line, as
// given; a record without one as a UniqueArticle, or a row when the
// file is Parquet.
func (w *Outputs) writeUnique(rec *input.Record) error {
	switch {
	case w.uniqueRows != nil:
		return w.uniqueRows.write(rec, nil)
	case rec.Raw == nil:
		return writeJSON(w.Unique, UniqueArticle{ID: rec.ID, Title: rec.Title, Text: rec.Text}, true)
	}
	return writeLine(w.Unique, rec.Raw)
}

// rawOf returns rec, with the source and line of its RecordError
// when it has one, and the line of the record or of that error.
func rawOf(rec *input.Record, err error) (*input.Record, []byte) {
	var re *input.RecordError
	if rec.Raw == nil && errors.As(err, &re) {
		r := *rec
		r.Source, r.Line = re.Source, re.Line
		return &r, re.Raw
	}
	return rec, rec.Raw
}

// reasonOf says why a record was rejected or is too short: a
// RecordError's field and reason, or the error.
func reasonOf(rec *input.Record, err error) string {
	var re *input.RecordError
	if errors.As(err, &re) {
		reason := input.NewReject(rec, err).Reason
		if re.Field != "" {
			reason = fmt.Sprintf("field %q: %s", re.Field, reason)
		}
		return reason
	}
	return err.Error()
}

// keepPlan holds what a run under a KeepPolicy other than first needs
// at its end: each record's verdict and rank, and the clusters.
type keepPlan struct {
	policy   KeepPolicy
	states   []keepState // by Seq
	clusters *Clusters
	// reasons of the records too short or rejected, by Seq
	reasons map[int64]string
	// Set by decide: the final word on the records of clusters, by Seq.
	final map[int64]Annotation
}

type keepState struct {
	verdict Verdict
	key     float64
	ok      bool
}

// note keeps what the plan needs of o.
func (p *keepPlan) note(o *Outcome) {
	for int64(len(p.states)) <= o.Seq {
		p.states = append(p.states, keepState{verdict: InputFailed})
	}
	st := keepState{verdict: o.Verdict}
	if o.Verdict == Unique || o.Verdict == Duplicate {
		st.key, st.ok = p.policy.key(&o.Record)
	}
	p.states[o.Seq] = st
	if (o.Verdict == TooShort || o.Verdict == Rejected) && o.Err != nil {
		if p.reasons == nil {
			p.reasons = make(map[int64]string)
		}
		p.reasons[o.Seq] = reasonOf(&o.Record, o.Err)
	}
	p.clusters.Add(o)
}

// state returns the state of the record at seq, or nil.
func (p *keepPlan) state(seq int64) *keepState {
	if seq < 0 || seq >= int64(len(p.states)) {
		return nil
	}
	return &p.states[seq]
}

// decide chooses each cluster's kept member: the best ranked of its
// original (when a record of this run) and its members, the first seen
// on ties. A member kept becomes the cluster's ID; the original joins
// its members, carrying the match that joined the kept member to the
// cluster, and the members that matched the original directly now say
// so (Via). Clusters of originals from earlier runs keep them. It
// fills p.final with the annotation of every record in a cluster.
func (p *keepPlan) decide() {
	p.final = make(map[int64]Annotation)
	cls := p.clusters.Sorted()
	for _, cl := range cls {
		keptSeq := int64(-1)
		if cl.ThisRun {
			keptSeq = cl.Seq
			best, bk, bok := -1, 0.0, false // -1: the original
			if st := p.state(cl.Seq); st != nil {
				bk, bok = st.key, st.ok
			}
			for i := range cl.Members {
				if st := p.state(cl.Members[i].Seq); st != nil && better(st.key, st.ok, bk, bok) {
					best, bk, bok = i, st.key, st.ok
				}
			}
			if best >= 0 {
				kept := cl.Members[best]
				members := []Member{{ID: cl.ID, Seq: cl.Seq, Via: kept.Via, Distance: kept.Distance, Exact: kept.Exact,
					Similarity: kept.Similarity, Content: kept.Content}}
				for i, m := range cl.Members {
					if i == best {
						continue
					}
					switch m.Via {
					case "":
						m.Via = cl.ID // the original, now a member
					case kept.ID:
						m.Via = ""
					}
					members = append(members, m)
				}
				sort.Slice(members, func(i, j int) bool { return members[i].Seq < members[j].Seq })
				delete(p.clusters.m, cl.ID)
				cl.ID, cl.Title, cl.Members = kept.ID, "", members
				p.clusters.m[cl.ID] = cl
				keptSeq = kept.Seq
			}
		}
		if keptSeq >= 0 {
			p.final[keptSeq] = Annotation{Verdict: "unique", Cluster: cl.ID}
		}
		for _, m := range cl.Members {
			member := m.Via
			if member == "" {
				member = cl.ID
			}
			p.final[m.Seq] = Annotation{Verdict: "duplicate", Cluster: cl.ID, Member: member, Similarity: m.Similarity, Content: m.Content}
		}
	}
}

// finish writes, at the end of a run under the plan, the pairs (one a
// duplicate: its cluster's kept member and the member it matched) and,
// reading the inputs again with reread, the unique and annotate files
// in input order.
func (w *Outputs) finish(p *keepPlan) error {
	p.decide()
	if w.Pairs != nil {
		if err := w.writeKeptPairs(p); err != nil {
			return err
		}
	}
	annotating, unique := w.annotate != nil || w.annotateRows != nil, w.Unique != nil || w.uniqueRows != nil
	if !annotating && !unique {
		return nil
	}
	if w.reread == nil {
		return errors.New("keep policy " + p.policy.String() + ": the inputs are not known, to read them again")
	}
	r := w.reread()
	defer r.Close()
	for seq := int64(0); ; seq++ {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		a, skip, ferr := p.annotation(seq, &rec, err)
		if ferr != nil {
			return ferr
		}
		if skip {
			continue
		}
		if annotating {
			if err := w.writeAnnotation(&rec, err, a); err != nil {
				return err
			}
		}
		if unique && (a.Verdict == "unique" || a.Verdict == "too-short") {
			if err := w.writeUnique(&rec); err != nil {
				return err
			}
		}
	}
}

// writeKeptPairs writes the pairs of the plan's clusters, in the order
// their duplicates were read.
func (w *Outputs) writeKeptPairs(p *keepPlan) error {
	type dup struct {
		cluster string
		m       Member
	}
	var dups []dup
	for _, cl := range p.clusters.m {
		for _, m := range cl.Members {
			dups = append(dups, dup{cl.ID, m})
		}
	}
	sort.Slice(dups, func(i, j int) bool { return dups[i].m.Seq < dups[j].m.Seq })
	for _, d := range dups {
		m := &d.m
		if err := writeJSON(w.Pairs, Pair{A: d.cluster, B: m.ID, Member: m.Via, Distance: m.Distance, Exact: m.Exact,
			Similarity: m.Similarity, Content: m.Content}, true); err != nil {
			return err
		}
		w.NPairs++
	}
	return nil
}

// annotation returns the annotation of record seq, read again as rec
// with readErr, as the plan decided it; skip reports an input that
// failed, which has none. An error says the inputs changed since the
// run read them.
func (p *keepPlan) annotation(seq int64, rec *input.Record, readErr error) (a Annotation, skip bool, err error) {
	st := p.state(seq)
	if st == nil {
		return a, false, fmt.Errorf("keep policy %s: the inputs read again hold more records than the run read (%d): they changed", p.policy, len(p.states))
	}
	if readErr != nil && st.verdict != Rejected && st.verdict != TooShort && st.verdict != InputFailed {
		return a, false, fmt.Errorf("keep policy %s: reading the inputs again: %w", p.policy, readErr)
	}
	if a, inCluster := p.final[seq]; inCluster {
		return a, false, nil
	}
	a = Annotation{Verdict: st.verdict.String()}
	switch st.verdict {
	case Unique:
		a.Cluster = rec.ID
	case Duplicate:
		return a, false, fmt.Errorf("keep policy %s: record %d (%s) is a duplicate in no cluster", p.policy, seq+1, rec.Name())
	case InputFailed:
		return a, true, nil
	case Rejected, TooShort:
		a.Reason = p.reasons[seq]
	}
	return a, false, nil
}

// newParquetWriter returns a writer of rows of T to out.
func newParquetWriter[T any](out io.Writer) *parquet.GenericWriter[T] {
	return parquet.NewGenericWriter[T](out, parquet.Compression(&parquet.Zstd))
}
