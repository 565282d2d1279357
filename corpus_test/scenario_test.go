package corpus_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
)

var scnCorpora = flag.String("scenario-corpora", "",
	"directory of the clean corpora (NAME.jsonl.gz): check the scenarios' articles.jsonl and negatives.jsonl against them, or with -update rewrite them")

// scnMaxDirBytes bounds a scenario directory: the fixtures are committed.
const scnMaxDirBytes = 400 << 10

// scnDoc is one document of a scenario, as its JSONL files hold it.
type scnDoc struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Text     string `json:"text"`
	Kind     string `json:"kind,omitempty"`     // copies: the edit kind
	Original string `json:"original,omitempty"` // copies: the article it was made from
	Against  string `json:"against,omitempty"`  // negatives: the article it must not match
	Parent   string `json:"parent,omitempty"`   // copies made from another copy: the text it was made from
}

// scnLabel is one expected pair of labels.jsonl.
type scnLabel struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Label bool   `json:"label"`
}

// scnTotals adds up the default detector's results over the scenarios.
type scnTotals struct{ copies, found int }

func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("scenarios: skipped with -short")
	}
	a := testfixtures.Analyzer(t, "") // neardup.NewAnalyzer(nil), shared with TestSharedCorpora
	corpora := scnCorpusCache{dir: *scnCorpora}
	var tot scnTotals
	for _, sc := range scnScenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", sc.name)
			f := scnFixtures(t, &sc, dir, &corpora)
			res := scnRun(t, a, dir, f)
			scnCheckFile(t, filepath.Join(dir, "golden.txt"), res.golden(a))
			res.check(t, sc.name == "libreoffice_twins")
			tot.copies += len(f.copies)
			tot.found += res.dedupCopiesFound()
			scnCheckDirSize(t, dir)
		})
	}
	if tot.copies > 0 {
		recall := float64(tot.found) / float64(tot.copies)
		t.Logf("default detector (dedup.Run): %d of %d copies found, recall %.3f", tot.found, tot.copies, recall)
		if recall < 0.95 {
			t.Errorf("default detector (dedup.Run) recall over all copies: %d/%d = %.3f, want >= 0.95", tot.found, tot.copies, recall)
		}
	}
}

// scnFiles are a scenario's documents and labels.
type scnFiles struct {
	articles, copies, negatives []scnDoc
	labels                      []scnLabel
	kinds                       []string // the copies' kinds: scnKinds, or the OpenCC configurations
}

// paths are the JSONL files dedup.Run reads, in order.
func (f *scnFiles) paths(dir string) []string {
	p := []string{filepath.Join(dir, "articles.jsonl"), filepath.Join(dir, "copies.jsonl")}
	if len(f.negatives) > 0 {
		p = append(p, filepath.Join(dir, "negatives.jsonl"))
	}
	return p
}

// scnFixtures reads a scenario's articles and negatives (checking them
// against the corpora when -scenario-corpora is given), generates its
// copies and labels, and compares them with the committed ones; -update
// writes them instead.
func scnFixtures(t *testing.T, sc *scnScenario, dir string, corpora *scnCorpusCache) *scnFiles {
	t.Helper()
	var f scnFiles
	if corpora.dir != "" {
		var err error
		if f.articles, err = corpora.extract(sc.articles); err != nil {
			t.Fatal(err)
		}
		if f.negatives, err = corpora.extract(sc.negatives); err != nil {
			t.Fatal(err)
		}
		scnCheckFile(t, filepath.Join(dir, "articles.jsonl"), scnJSONL(f.articles))
		if sc.negConvert != "" {
			// The committed negatives are converted to traditional.
			f.negatives = scnOpenCC(t, sc.negConvert, f.negatives)
		}
		if len(f.negatives) > 0 {
			scnCheckFile(t, filepath.Join(dir, "negatives.jsonl"), scnJSONL(f.negatives))
		}
	} else {
		f.articles = scnReadDocs(t, filepath.Join(dir, "articles.jsonl"))
		if len(sc.negatives) > 0 {
			f.negatives = scnReadDocs(t, filepath.Join(dir, "negatives.jsonl"))
		}
	}
	if len(f.articles) != len(sc.articles) || len(f.negatives) != len(sc.negatives) {
		t.Fatalf("%s: %d articles and %d negatives, the scenario lists %d and %d",
			dir, len(f.articles), len(f.negatives), len(sc.articles), len(sc.negatives))
	}
	for i, d := range f.negatives {
		if d.Against != sc.negatives[i].against {
			t.Fatalf("%s: negative %s is against %q, the scenario says %q", dir, d.ID, d.Against, sc.negatives[i].against)
		}
	}

	if len(sc.convert) > 0 {
		f.kinds = sc.convert
		f.copies = scnConvertedCopies(t, sc, dir, f.articles)
	} else {
		f.kinds = scnKinds
		ed := &scnEditor{r: scnRand(sc.name), articles: f.articles}
		var err error
		if f.copies, err = ed.copies(sc.copies); err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		scnCheckFile(t, filepath.Join(dir, "copies.jsonl"), scnJSONL(f.copies))
		// The generator is deterministic: a second run gives the same bytes.
		again, err := (&scnEditor{r: scnRand(sc.name), articles: f.articles}).copies(sc.copies)
		if err != nil || !bytes.Equal(scnJSONL(again), scnJSONL(f.copies)) {
			t.Errorf("%s: a second run of the generator made different copies (err %v)", sc.name, err)
		}
	}

	f.labels = scnMakeLabels(sc, &f)
	var lb bytes.Buffer
	for _, l := range f.labels {
		b, _ := json.Marshal(l)
		lb.Write(b)
		lb.WriteByte('\n')
	}
	scnCheckFile(t, filepath.Join(dir, "labels.jsonl"), lb.Bytes())
	return &f
}

// scnOpenCCVersion is the opencc command the converted fixtures were made
// with (Debian's opencc 1.1.6+ds1-1, which calls itself 1.1.5).
const scnOpenCCVersion = "Version: 1.1.5"

// scnHaveOpenCC reports whether the opencc command that made the
// committed conversions is installed (apt-get install opencc).
func scnHaveOpenCC() bool {
	out, err := exec.Command("opencc", "--version").CombinedOutput()
	return err == nil && strings.Contains(string(out), scnOpenCCVersion)
}

// scnOpenCC converts the titles and texts of docs with the opencc
// command and the configuration conf (s2t, s2tw, s2hk, s2twp), in one run.
func scnOpenCC(t *testing.T, conf string, docs []scnDoc) []scnDoc {
	t.Helper()
	if !scnHaveOpenCC() {
		t.Fatalf("converting with OpenCC %s needs the opencc command (%s): apt-get install opencc", conf, scnOpenCCVersion)
	}
	const sep = "\n@@@ neardup scenario separator @@@\n"
	var in strings.Builder
	for i, d := range docs {
		if i > 0 {
			in.WriteString(sep)
		}
		in.WriteString(d.Title + sep + d.Text)
	}
	cmd := exec.Command("opencc", "-c", conf+".json")
	cmd.Stdin = strings.NewReader(in.String())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opencc -c %s.json: %v: %s", conf, err, errb.Bytes())
	}
	parts := strings.Split(string(out), sep)
	if len(parts) != 2*len(docs) {
		t.Fatalf("opencc -c %s.json: %d parts out, %d in", conf, len(parts), 2*len(docs))
	}
	res := slices.Clone(docs)
	for i := range res {
		res[i].Title, res[i].Text = parts[2*i], parts[2*i+1]
	}
	return res
}

// scnConvertedCopies returns the copies of a converting scenario: each
// article converted with each of sc.convert, in that order, by the opencc
// command when it is installed (compared with the committed copies.jsonl,
// or written with -update), else as committed.
func scnConvertedCopies(t *testing.T, sc *scnScenario, dir string, articles []scnDoc) []scnDoc {
	t.Helper()
	path := filepath.Join(dir, "copies.jsonl")
	if !scnHaveOpenCC() && !*update {
		copies := scnReadDocs(t, path)
		if len(copies) != len(sc.convert)*len(articles) {
			t.Fatalf("%s: %d copies, want %d", path, len(copies), len(sc.convert)*len(articles))
		}
		for i, c := range copies {
			a, conf := articles[i%len(articles)], sc.convert[i/len(articles)]
			if c.Original != a.ID || c.Kind != conf || c.ID != a.ID+"#"+conf {
				t.Fatalf("%s: copy %d is %s (%s of %s), want %s of %s", path, i, c.ID, c.Kind, c.Original, conf, a.ID)
			}
		}
		t.Logf("%s: opencc (%s) not installed: the committed conversions are used as they are", sc.name, scnOpenCCVersion)
		return copies
	}
	var copies []scnDoc
	for _, conf := range sc.convert {
		for _, c := range scnOpenCC(t, conf, articles) {
			c.Original, c.Kind, c.ID = c.ID, conf, c.ID+"#"+conf
			copies = append(copies, c)
		}
	}
	scnCheckFile(t, path, scnJSONL(copies))
	return copies
}

// scnMakeLabels lists the expected pairs: each copy with its original and
// with the other copies of the same original; each negative with its
// original; each two originals of the same group.
func scnMakeLabels(sc *scnScenario, f *scnFiles) []scnLabel {
	var out []scnLabel
	for _, a := range f.articles {
		var cs []string
		for _, c := range f.copies {
			if c.Original == a.ID {
				out = append(out, scnLabel{A: a.ID, B: c.ID, Label: true})
				cs = append(cs, c.ID)
			}
		}
		for i := range cs {
			for j := i + 1; j < len(cs); j++ {
				out = append(out, scnLabel{A: cs[i], B: cs[j], Label: true})
			}
		}
	}
	for _, n := range f.negatives {
		out = append(out, scnLabel{A: n.Against, B: n.ID, Label: false})
	}
	if sc.group != nil {
		for i, a := range f.articles {
			for _, b := range f.articles[i+1:] {
				if g := sc.group(a.ID, a.Title); g != "" && g == sc.group(b.ID, b.Title) {
					out = append(out, scnLabel{A: a.ID, B: b.ID, Label: false})
				}
			}
		}
	}
	return out
}

// scnJSONL encodes docs one a line, without HTML escapes.
func scnJSONL(docs []scnDoc) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range docs {
		if err := enc.Encode(&docs[i]); err != nil {
			panic(err) // strings only: cannot fail
		}
	}
	return b.Bytes()
}

func scnReadDocs(t *testing.T, path string) []scnDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []scnDoc
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var d scnDoc
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, d)
	}
	return out
}

// scnCheckFile compares a generated file with the committed one, or
// writes it with -update.
func scnCheckFile(t *testing.T, path string, want []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./corpus_test -update to generate it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test generates (%s; go test ./corpus_test -update rewrites it)", path, scnFirstDiff(got, want))
	}
}

// scnFirstDiff describes the first line where got and want differ.
func scnFirstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d: committed %.200q, generated %.200q", i+1, gl, wl)
		}
	}
	return "same lines"
}

func scnCheckDirSize(t *testing.T, dir string) {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n > scnMaxDirBytes {
		t.Errorf("%s holds %d bytes, want at most %d", dir, n, scnMaxDirBytes)
	}
}

// scnCorpusCache reads the corpora once.
type scnCorpusCache struct {
	dir  string
	docs map[string]map[string]scnDoc // corpus → id → document
}

func (c *scnCorpusCache) corpus(name string) (map[string]scnDoc, error) {
	if d, ok := c.docs[name]; ok {
		return d, nil
	}
	path := filepath.Join(c.dir, name+".jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := make(map[string]scnDoc)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		var d scnDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		m[d.ID] = d
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.docs == nil {
		c.docs = make(map[string]map[string]scnDoc)
	}
	c.docs[name] = m
	return m, nil
}

// extract takes the sources' texts from the corpora.
func (c *scnCorpusCache) extract(srcs []scnSource) ([]scnDoc, error) {
	var out []scnDoc
	for _, s := range srcs {
		m, err := c.corpus(s.corpus)
		if err != nil {
			return nil, err
		}
		d, ok := m[s.id]
		if !ok {
			return nil, fmt.Errorf("%s: no document %q", s.corpus, s.id)
		}
		d.Against = s.against
		if s.cut != (scnCut{}) {
			if d.Text, err = s.cut.apply(d.Text); err != nil {
				return nil, fmt.Errorf("%s %s: %w", s.corpus, s.id, err)
			}
			if s.cut.Suffix != "" {
				d.ID += ":" + s.cut.Suffix
				d.Title += " (" + s.cut.Suffix + ")"
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// apply cuts text.
func (c scnCut) apply(text string) (string, error) {
	var b strings.Builder
	off := 0
	for _, p := range scnPieces(text) {
		if off >= c.From && b.Len() < c.Size {
			b.WriteString(p)
		}
		off += len(p)
	}
	if b.Len() < c.Size/2 {
		return "", fmt.Errorf("cut from byte %d: only %d bytes, want about %d", c.From, b.Len(), c.Size)
	}
	return strings.TrimRightFunc(b.String(), func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' }), nil
}

// scnPair is an unordered pair of documents, by their positions in the
// scenario (a < b).
type scnPair struct{ a, b int }

func scnMakePair(i, j int) scnPair {
	if i > j {
		i, j = j, i
	}
	return scnPair{i, j}
}

// scnResult is what the detector made of one scenario.
type scnResult struct {
	name     string
	docs     []scnDoc // articles, copies, negatives: dedup.Run's input order
	pos      map[string]int
	f        *scnFiles
	labels   map[scnPair]bool
	analyses []*neardup.Analysis // nil: not fingerprinted
	skipped  []string            // records dedup.Run did not fingerprint, and why
	dedup    map[scnPair]index.Match
	dedupSeq []scnFound // dedup.Run's matches in its output order
	similar  map[scnPair]index.Match
}

type scnFound struct {
	pair scnPair
	m    index.Match
}

// scnRun runs the pipeline: dedup.Run over the scenario's files into an
// in-memory archive (memstore) with default options, then index.Similar
// of every document against an in-memory archive holding all of them.
func scnRun(t *testing.T, a *neardup.Analyzer, dir string, f *scnFiles) *scnResult {
	t.Helper()
	r := &scnResult{name: filepath.Base(dir), f: f, pos: make(map[string]int),
		dedup: make(map[scnPair]index.Match), similar: make(map[scnPair]index.Match), labels: make(map[scnPair]bool)}
	r.docs = slices.Concat(f.articles, f.copies, f.negatives)
	for i, d := range r.docs {
		if _, dup := r.pos[d.ID]; dup {
			t.Fatalf("%s: id %s twice", dir, d.ID)
		}
		r.pos[d.ID] = i
	}
	for _, l := range f.labels {
		i, ok1 := r.pos[l.A]
		j, ok2 := r.pos[l.B]
		if !ok1 || !ok2 {
			t.Fatalf("%s: label %+v names an unknown document", dir, l)
		}
		r.labels[scnMakePair(i, j)] = l.Label
	}
	r.analyses = make([]*neardup.Analysis, len(r.docs))

	store, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rd := input.NewReader(f.paths(dir), nil, nil)
	defer rd.Close()
	_, err = dedup.Run(context.Background(), rd, a, store, nil, func(o *dedup.Outcome) error {
		if o.Seq >= int64(len(r.docs)) || o.Record.ID != r.docs[o.Seq].ID {
			return fmt.Errorf("record %d is %q, want %q", o.Seq, o.Record.ID, r.docs[min(o.Seq, int64(len(r.docs)-1))].ID)
		}
		i := int(o.Seq)
		r.analyses[i] = o.Analysis
		switch o.Verdict {
		case dedup.Unique:
		case dedup.Duplicate:
			for _, m := range o.Matches {
				j, ok := r.pos[m.ID]
				if !ok {
					return fmt.Errorf("%s matches unknown %q", o.Record.ID, m.ID)
				}
				p := scnMakePair(i, j)
				r.dedup[p] = m
				r.dedupSeq = append(r.dedupSeq, scnFound{scnPair{i, j}, m})
			}
		default:
			r.skipped = append(r.skipped, fmt.Sprintf("%s\t%s\t%v", o.Record.ID, o.Verdict, o.Err))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: dedup.Run: %v", dir, err)
	}

	all, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	idocs := make([]index.Doc, len(r.docs))
	for i, an := range r.analyses {
		if an == nil {
			continue
		}
		idocs[i] = index.Doc{ID: r.docs[i].ID, Title: r.docs[i].Title, Fingerprint: an.Fingerprint,
			ContentHash: an.ContentHash, Sketch: an.Sketch, Keywords: an.Keywords[:min(len(an.Keywords), 32)]}
		if err := all.Add(context.Background(), idocs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range idocs {
		if r.analyses[i] == nil {
			continue
		}
		ms, err := all.Similar(context.Background(), &idocs[i], index.DefaultMaxDistance)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			r.similar[scnMakePair(i, r.pos[m.ID])] = m
		}
	}
	return r
}

// family is the article a document stands for: itself, a copy's
// original, or the negative itself.
func (r *scnResult) family(i int) string {
	if o := r.docs[i].Original; o != "" {
		return o
	}
	return r.docs[i].ID
}

// pairKind is the kind of a labelled-true pair: the copy's edit kind, or
// "copy-copy".
func (r *scnResult) pairKind(p scnPair) string {
	ka, kb := r.docs[p.a].Kind, r.docs[p.b].Kind
	switch {
	case ka != "" && kb != "":
		return "copy-copy"
	case ka != "":
		return ka
	}
	return kb
}

func (r *scnResult) label(p scnPair) string {
	l, ok := r.labels[p]
	switch {
	case !ok:
		return "-"
	case l:
		return "true"
	}
	return "false"
}

// dedupCopiesFound counts the copies dedup.Run found to duplicate their original.
func (r *scnResult) dedupCopiesFound() int {
	n := 0
	for _, c := range r.f.copies {
		if _, ok := r.dedup[scnMakePair(r.pos[c.ID], r.pos[c.Original])]; ok {
			n++
		}
	}
	return n
}

// check asserts what the issue requires of the default detector.
func (r *scnResult) check(t *testing.T, twins bool) {
	t.Helper()
	for _, found := range []map[scnPair]index.Match{r.dedup, r.similar} {
		for p := range found {
			if l, ok := r.labels[p]; ok && !l {
				t.Errorf("labelled negative found: %s ~ %s", r.docs[p.a].ID, r.docs[p.b].ID)
			}
			if twins && scnLang(r.family(p.a)) != scnLang(r.family(p.b)) {
				t.Errorf("cross-language match: %s ~ %s", r.docs[p.a].ID, r.docs[p.b].ID)
			}
		}
	}
	if r.f.kinds[0] != scnKinds[0] {
		// Converted copies: dedup.Run finds at least 98% of each kind, and
		// nothing across articles.
		for _, kind := range r.f.kinds {
			n, found := 0, 0
			for _, c := range r.f.copies {
				if c.Kind == kind {
					n++
					if _, ok := r.dedup[scnMakePair(r.pos[c.ID], r.pos[c.Original])]; ok {
						found++
					}
				}
			}
			if float64(found) < 0.98*float64(n) {
				t.Errorf("dedup.Run found %d of %d %s copies, want at least 98%%", found, n, kind)
			}
		}
		for _, found := range []map[scnPair]index.Match{r.dedup, r.similar} {
			for p := range found {
				if r.family(p.a) != r.family(p.b) {
					t.Errorf("match across articles: %s ~ %s", r.docs[p.a].ID, r.docs[p.b].ID)
				}
			}
		}
	}
	for _, c := range r.f.copies {
		switch c.Kind {
		case scnReprint, scnPunctWidth, scnSwapParagraphs:
			if _, ok := r.dedup[scnMakePair(r.pos[c.ID], r.pos[c.Original])]; !ok {
				t.Errorf("dedup.Run did not find the %s copy %s", c.Kind, c.ID)
			}
		}
	}
}

// fmtMatch writes a found pair as a golden line.
func (r *scnResult) fmtMatch(w io.Writer, a, b int, m index.Match) {
	fmt.Fprintf(w, "%s\t%s\t%d\t%t\t%.2f\t%s\n", r.docs[a].ID, r.docs[b].ID, m.Distance, m.Exact, m.Content, r.label(scnMakePair(a, b)))
}

// golden renders the results; see doc_test.go for how to read it.
func (r *scnResult) golden(a *neardup.Analyzer) []byte {
	var w bytes.Buffer
	nTrue, nFalse := 0, 0
	for _, l := range r.labels {
		if l {
			nTrue++
		} else {
			nFalse++
		}
	}
	fmt.Fprintf(&w, "# scenario %s\n", r.name)
	fmt.Fprintf(&w, "# analyzer %s (segmenter %s), neardup.NewAnalyzer(nil); store index.Memory with default options (max distance %d, min content %.2f)\n",
		a.ID(), a.Backend(), index.DefaultMaxDistance, index.DefaultMinContent)
	fmt.Fprintf(&w, "# documents %d: %d articles, %d copies, %d negatives; labels %d true, %d false\n",
		len(r.docs), len(r.f.articles), len(r.f.copies), len(r.f.negatives), nTrue, nFalse)

	fmt.Fprintf(&w, "\n## dedup: duplicates found, in input order (record, matched original, distance, exact, content, label)\n")
	for _, f := range r.dedupSeq {
		r.fmtMatch(&w, f.pair.a, f.pair.b, f.m)
	}
	if len(r.skipped) > 0 {
		fmt.Fprintf(&w, "\n## dedup: not fingerprinted\n")
		for _, s := range r.skipped {
			fmt.Fprintln(&w, s)
		}
	}

	fmt.Fprintf(&w, "\n## similar: pairs found by index.Similar(doc, %d) over all documents (a, b, distance, exact, content, label)\n", index.DefaultMaxDistance)
	for _, p := range scnSortedPairs(r.similar) {
		r.fmtMatch(&w, p.a, p.b, r.similar[p])
	}

	// Every pair's distance and content, for the misses and the tables.
	type pairStat struct {
		dist    int
		content float64
		exact   bool
	}
	stat := func(p scnPair) (pairStat, bool) {
		x, y := r.analyses[p.a], r.analyses[p.b]
		if x == nil || y == nil {
			return pairStat{}, false
		}
		return pairStat{x.Fingerprint.Distance(y.Fingerprint), x.Sketch.Jaccard(y.Sketch), x.ContentHash == y.ContentHash}, true
	}

	fmt.Fprintf(&w, "\n## expected pairs not found by index.Similar (a, b, kind, distance, content, found by dedup)\n")
	for _, p := range scnSortedPairs(r.labels) {
		if !r.labels[p] {
			continue
		}
		if _, ok := r.similar[p]; ok {
			continue
		}
		_, byDedup := r.dedup[p]
		if s, ok := stat(p); ok {
			fmt.Fprintf(&w, "%s\t%s\t%s\t%d\t%.2f\t%t\n", r.docs[p.a].ID, r.docs[p.b].ID, r.pairKind(p), s.dist, s.content, byDedup)
		} else {
			fmt.Fprintf(&w, "%s\t%s\t%s\tnot fingerprinted\t\t%t\n", r.docs[p.a].ID, r.docs[p.b].ID, r.pairKind(p), byDedup)
		}
	}

	// Recall by kind, default detector.
	kinds := append(slices.Clone(r.f.kinds), "copy-copy")
	type count struct{ exp, dedup, sim int }
	byKind := make(map[string]*count)
	for _, k := range kinds {
		byKind[k] = &count{}
	}
	var neg count
	for p, l := range r.labels {
		_, d := r.dedup[p]
		_, s := r.similar[p]
		c := &neg
		if l {
			c = byKind[r.pairKind(p)]
		}
		c.exp++
		if d {
			c.dedup++
		}
		if s {
			c.sim++
		}
	}
	ratio := func(n, d int) string {
		if d == 0 {
			return fmt.Sprintf("%d/%d     -", n, d)
		}
		return fmt.Sprintf("%d/%d %5.2f", n, d, float64(n)/float64(d))
	}
	fmt.Fprintf(&w, "\n## recall by edit kind, default detector (found/expected recall)\n")
	fmt.Fprintf(&w, "%-16s %-14s %s\n", "kind", "dedup", "similar")
	var all, allCopies count
	for _, k := range kinds {
		c := byKind[k]
		if c.exp == 0 {
			continue
		}
		d := ratio(c.dedup, c.exp)
		if k == "copy-copy" {
			d = "-" // dedup.Run stores originals only: a copy is matched to its original
		} else {
			allCopies.exp += c.exp
			allCopies.dedup += c.dedup
			allCopies.sim += c.sim
		}
		all.exp += c.exp
		all.sim += c.sim
		fmt.Fprintf(&w, "%-16s %-14s %s\n", k, d, ratio(c.sim, c.exp))
	}
	fmt.Fprintf(&w, "%-16s %-14s %s\n", "copy-original", ratio(allCopies.dedup, allCopies.exp), ratio(allCopies.sim, allCopies.exp))
	fmt.Fprintf(&w, "%-16s %-14s %s\n", "all true pairs", "-", ratio(all.sim, all.exp))

	cross := func(found map[scnPair]index.Match) int {
		n := 0
		for p := range found {
			if _, ok := r.labels[p]; !ok && r.family(p.a) != r.family(p.b) {
				n++
			}
		}
		return n
	}
	fmt.Fprintf(&w, "\n## precision, default detector\n")
	fmt.Fprintf(&w, "%-34s %-14s %s\n", "", "dedup", "similar")
	fmt.Fprintf(&w, "%-34s %-14s %s\n", "labelled negatives found", fmt.Sprintf("%d/%d", neg.dedup, neg.exp), fmt.Sprintf("%d/%d", neg.sim, neg.exp))
	fmt.Fprintf(&w, "%-34s %-14s %s\n", "precision on labelled pairs", ratio(allCopies.dedup, allCopies.dedup+neg.dedup), ratio(all.sim, all.sim+neg.sim))
	cd, cs := cross(r.dedup), cross(r.similar)
	fmt.Fprintf(&w, "%-34s %-14d %d\n", "unlabelled pairs across articles", cd, cs)
	fmt.Fprintf(&w, "%-34s %-14s %s\n", "precision on all pairs found", ratio(allCopies.dedup, allCopies.dedup+neg.dedup+cd), ratio(all.sim, all.sim+neg.sim+cs))

	// The margin: how close the pairs that must not match come.
	fmt.Fprintf(&w, "\n## closest pairs that must not match (smallest distance; largest content)\n")
	for _, which := range []string{"labelled negatives", "unlabelled, across articles"} {
		minD, maxC := -1, -1.0
		var dPair, cPair scnPair
		for i := range r.docs {
			for j := i + 1; j < len(r.docs); j++ {
				p := scnPair{i, j}
				l, labelled := r.labels[p]
				neg := labelled && !l
				if which != "labelled negatives" {
					neg = !labelled && r.family(i) != r.family(j)
				}
				s, ok := stat(p)
				if !neg || !ok {
					continue
				}
				if minD < 0 || s.dist < minD {
					minD, dPair = s.dist, p
				}
				if s.content > maxC {
					maxC, cPair = s.content, p
				}
			}
		}
		if minD < 0 {
			continue
		}
		fmt.Fprintf(&w, "%s: distance %d (%s ~ %s); content %.2f (%s ~ %s)\n", which,
			minD, r.docs[dPair.a].ID, r.docs[dPair.b].ID, maxC, r.docs[cPair.a].ID, r.docs[cPair.b].ID)
	}

	// By threshold: every pair of fingerprinted documents.
	const maxT = 10
	type row struct {
		exp    int
		screen [maxT + 1]int
		verify [maxT + 1]int
	}
	rows := make(map[string]*row)
	for _, k := range append(slices.Clone(kinds), "negatives", "other") {
		rows[k] = &row{}
	}
	for i := range r.docs {
		for j := i + 1; j < len(r.docs); j++ {
			p := scnPair{i, j}
			s, ok := stat(p)
			if !ok {
				continue
			}
			l, labelled := r.labels[p]
			var rw *row
			switch {
			case labelled && l:
				rw = rows[r.pairKind(p)]
			case labelled:
				rw = rows["negatives"]
			default:
				rw = rows["other"]
			}
			rw.exp++
			for t := 0; t <= maxT; t++ {
				if s.exact || s.dist <= t {
					rw.screen[t]++
					if s.exact || s.content >= index.DefaultMinContent {
						rw.verify[t]++
					}
				}
			}
		}
	}
	table := func(title string, get func(*row) *[maxT + 1]int) {
		fmt.Fprintf(&w, "\n## %s\n", title)
		fmt.Fprintf(&w, "%-16s %6s", "t", "pairs")
		for t := 0; t <= maxT; t++ {
			fmt.Fprintf(&w, " %5d", t)
		}
		fmt.Fprintln(&w)
		var pos row
		for _, k := range append(slices.Clone(kinds), "negatives", "other") {
			rw := rows[k]
			if rw.exp == 0 {
				continue
			}
			fmt.Fprintf(&w, "%-16s %6d", k, rw.exp)
			for t, n := range get(rw) {
				fmt.Fprintf(&w, " %5d", n)
				if k != "negatives" && k != "other" {
					get(&pos)[t] += n
				}
			}
			fmt.Fprintln(&w)
			if k != "negatives" && k != "other" {
				pos.exp += rw.exp
			}
		}
		fmt.Fprintf(&w, "%-16s %6s", "recall", "")
		for _, n := range get(&pos) {
			fmt.Fprintf(&w, " %5.2f", float64(n)/float64(max(pos.exp, 1)))
		}
		fmt.Fprintln(&w)
		fmt.Fprintf(&w, "%-16s %6s", "precision", "")
		for t, n := range get(&pos) {
			fp := get(rows["negatives"])[t] + get(rows["other"])[t]
			if n+fp == 0 {
				fmt.Fprintf(&w, " %5s", "-")
			} else {
				fmt.Fprintf(&w, " %5.2f", float64(n)/float64(n+fp))
			}
		}
		fmt.Fprintln(&w)
	}
	table("pairs within SimHash distance t, screen only (distance <= t, or the same content)", func(rw *row) *[maxT + 1]int { return &rw.screen })
	table(fmt.Sprintf("pairs within SimHash distance t, verified (and content >= %.2f, or the same content)", index.DefaultMinContent), func(rw *row) *[maxT + 1]int { return &rw.verify })
	return w.Bytes()
}

// scnSortedPairs returns the keys of m in document order.
func scnSortedPairs[V any](m map[scnPair]V) []scnPair {
	ps := make([]scnPair, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].a != ps[j].a {
			return ps[i].a < ps[j].a
		}
		return ps[i].b < ps[j].b
	})
	return ps
}
