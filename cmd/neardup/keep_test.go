package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/input"
)

var samplePathKeep = filepath.Join("..", "..", "testdata", "sample", "sample.jsonl")

// annotated is a line of an annotate file, as far as the tests read it.
type annotated struct {
	ID      string           `json:"id"`
	Text    string           `json:"text"`
	NearDup dedup.Annotation `json:"neardup"`
}

func readAnnotated(t *testing.T, path string) []annotated {
	t.Helper()
	var out []annotated
	for _, line := range strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n") {
		var a annotated
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("%s: %v: %s", path, err, line)
		}
		out = append(out, a)
	}
	return out
}

// projection is the part of an annotate file the goldens keep: the
// records that are not unique, and how many are.
func projection(t *testing.T, path string) string {
	var b strings.Builder
	n := 0
	for _, a := range readAnnotated(t, path) {
		if a.NearDup.Verdict == "unique" && a.NearDup.Cluster == a.ID {
			n++
			continue
		}
		ann, _ := json.Marshal(a.NearDup)
		b.WriteString(a.ID + "\t" + string(ann) + "\n")
	}
	return b.String() + "unique records with their own cluster: " + strconv.Itoa(n) + "\n"
}

// TestGoldenKeepAnnotate: --annotate and --keep on the sample corpus.
// Under --keep longest every cluster's kept member has the most
// characters, and it alone of its cluster is in --unique.
func TestGoldenKeepAnnotate(t *testing.T) {
	t.Parallel()
	goldenBackends(t, func(t *testing.T, be string) {
		tmp := t.TempDir()
		out := func(name string) string { return filepath.Join(tmp, name) }

		args := withSegmenter(be, "dedup", "--workers", "2", "--annotate", out("first.annotate"), "--pairs", out("first.pairs"), samplePathKeep)
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		golden(t, be, "dedup_annotate.txt", normalize(transcript(args, r), tmp)+"annotate (not unique):\n"+projection(t, out("first.annotate")))
		// Keeping the first, the annotations say what the pairs say.
		pairs := 0
		for _, a := range readAnnotated(t, out("first.annotate")) {
			if a.NearDup.Verdict == "duplicate" {
				pairs++
				if !strings.Contains(readFile(t, out("first.pairs")), `"a":"`+a.NearDup.Cluster+`","b":"`+a.ID+`"`) {
					t.Errorf("%s: annotated a duplicate of %s, not in the pairs", a.ID, a.NearDup.Cluster)
				}
			}
		}
		if pairs != 82 {
			t.Errorf("%d duplicates annotated, want 82", pairs)
		}

		args = withSegmenter(be, "dedup", "--workers", "2", "--keep", "longest", "--annotate", out("longest.annotate"), "--pairs", out("longest.pairs"),
			"--clusters", out("longest.clusters"), "--unique", out("longest.unique"), samplePathKeep)
		r = runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		golden(t, be, "dedup_keep_longest.txt", normalize(transcript(args, r, out("longest.pairs"), out("longest.clusters")), tmp)+
			"annotate (not unique):\n"+projection(t, out("longest.annotate")))
		text := map[string]string{}
		kept := map[string]bool{}
		for _, a := range readAnnotated(t, out("longest.annotate")) {
			text[a.ID] = a.Text
		}
		for _, line := range strings.Split(strings.TrimSuffix(readFile(t, out("longest.unique")), "\n"), "\n") {
			var a annotated
			json.Unmarshal([]byte(line), &a)
			kept[a.ID] = true
		}
		var cl struct {
			ID      string
			Members []struct{ ID string }
		}
		for _, line := range strings.Split(strings.TrimSuffix(readFile(t, out("longest.clusters")), "\n"), "\n") {
			if err := json.Unmarshal([]byte(line), &cl); err != nil {
				t.Fatal(err)
			}
			if !kept[cl.ID] {
				t.Errorf("cluster %s: not in --unique", cl.ID)
			}
			for _, m := range cl.Members {
				if kept[m.ID] {
					t.Errorf("cluster %s: member %s in --unique", cl.ID, m.ID)
				}
				if n, k := len([]rune(text[m.ID])), len([]rune(text[cl.ID])); n > k {
					t.Errorf("cluster %s (%d characters) kept over %s (%d)", cl.ID, k, m.ID, n)
				}
			}
		}
	})
}

// TestKeepLongestEdited: edited copies made longer are kept in place of
// their originals, which come first in the input.
func TestKeepLongestEdited(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	lines := strings.SplitN(readFile(t, samplePathKeep), "\n", 6)[:5]
	var in strings.Builder
	for _, l := range lines {
		in.WriteString(l + "\n")
	}
	for i, l := range lines {
		var rec struct{ ID, Title, Text string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		edited, _ := json.Marshal(map[string]string{"id": rec.ID + "#longer", "text": rec.Text + "\nAn added closing paragraph of the edited copy, number " + strconv.Itoa(i) + "."})
		in.Write(append(edited, '\n'))
	}
	path := filepath.Join(tmp, "in.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "dedup", "--segmenter", "gse", "--keep", "longest", "--unique", filepath.Join(tmp, "u.jsonl"), path)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(tmp, "u.jsonl")), "\n"), "\n") {
		var rec struct{ ID string }
		json.Unmarshal([]byte(l), &rec)
		ids = append(ids, rec.ID)
	}
	if len(ids) != 5 {
		t.Fatalf("unique: %q, want the 5 longer copies", ids)
	}
	for _, id := range ids {
		if !strings.HasSuffix(id, "#longer") {
			t.Errorf("unique: %q, want the 5 longer copies", ids)
			break
		}
	}
	// Standard input cannot be read twice.
	if r := (cliRun{stdin: in.String()}).run(t, "dedup", "--segmenter", "gse", "--keep", "longest", "--unique", filepath.Join(tmp, "v.jsonl"), "-"); r.code != 2 ||
		!strings.Contains(r.stderr, "--keep longest reads the inputs again for --unique and --annotate: standard input cannot be read twice") {
		t.Errorf("stdin: exit %d, %s", r.code, r.stderr)
	}
}

// TestParquetOutputs: --unique and --annotate named *.parquet write
// Parquet, which neardup reads back.
func TestParquetOutputs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	u, a := filepath.Join(tmp, "u.parquet"), filepath.Join(tmp, "a.parquet")
	r := runCLI(t, "dedup", "--segmenter", "gse", "--unique", u, "--annotate", a, filepath.Join(formatsDir, "records.snappy.parquet"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	n := 0
	rd := input.NewReader([]string{u}, nil, nil)
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		n++
	}
	if n != 15 {
		t.Errorf("%d records in the unique Parquet file, want 15", n)
	}
	// Of Parquet input, the annotation is a group "neardup" beside the
	// input's columns (TestFormatsParquetOutputs).
	type annotation struct {
		Verdict string `parquet:"verdict"`
		Cluster string `parquet:"cluster,optional"`
	}
	rows, err := parquet.ReadFile[struct {
		ID      string     `parquet:"id,optional"`
		NearDup annotation `parquet:"neardup"`
	}](a)
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for _, row := range rows {
		if row.NearDup.Verdict == "duplicate" {
			dups++
		}
	}
	if len(rows) != 25 || dups != 10 || rows[0].NearDup.Cluster != rows[0].ID {
		t.Errorf("annotate: %d rows, %d duplicates, first %+v; want 25, 10, its own cluster", len(rows), dups, rows[0])
	}
}
