package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInterspersed(t *testing.T) {
	t.Parallel()
	cmds := newApp(nil, nil, nil).Commands
	tests := []struct {
		in, want string
	}{
		{"neardup dedup a b --pairs p --strict c", "neardup dedup --pairs p --strict -- a b c"},
		{"neardup dedup --pairs=p a", "neardup dedup --pairs=p -- a"},
		{"neardup dedup a -- --weird b", "neardup dedup -- a --weird b"},
		{"neardup dedup - --json", "neardup dedup --json -- -"},
		{"neardup idf build a -o out b", "neardup idf build -o out -- a b"},
		{"neardup idf build a -o -", "neardup idf build -o - -- a"},
		{"neardup check --index i", "neardup check --index i"},
		{"neardup --version", "neardup --version"},
		{"neardup nosuch a --x", "neardup nosuch a --x"},
		{"neardup idf a --x", "neardup idf a --x"}, // not a leaf command
		{"neardup", "neardup"},
	}
	for _, tt := range tests {
		got := strings.Join(interspersed(cmds, strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("interspersed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzInterspersed(f *testing.F) {
	f.Add("dedup\x00a\x00--pairs\x00p\x00b")
	f.Add("idf\x00build\x00-o\x00x\x00--\x00-y")
	f.Add("check\x00--json\x00-")
	cmds := newApp(nil, nil, nil).Commands
	f.Fuzz(func(t *testing.T, s string) {
		args := append([]string{"neardup"}, strings.Split(s, "\x00")...)
		out := interspersed(cmds, args)
		// Nothing is lost or invented: the same arguments, plus at most
		// one "--".
		a, b := slices.Clone(args), slices.Clone(out)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			i := slices.Index(b, "--")
			if i < 0 || !slices.Equal(a, slices.Delete(slices.Clone(b), i, i+1)) {
				t.Fatalf("interspersed(%q) = %q", args, out)
			}
		}
	})
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, `neardup: unknown command "nosuch"`},
		{[]string{"dedup", "--no-such-flag", "x"}, "neardup dedup: flag provided but not defined: -no-such-flag\nRun 'neardup dedup --help' for usage."},
		{[]string{"dedup"}, "neardup dedup: no input"},
		{[]string{"compare", "a"}, "neardup compare: want two articles A and B, got 1 arguments"},
		{[]string{"compare", "-", "-"}, "only one of A and B can be standard input"},
		{[]string{"fingerprint", "--compat"}, "--compat needs --top-n N"},
		{[]string{"fingerprint", "--top-n", "-2"}, "--top-n -2: want 0 (all candidate words, up to 256) or more"},
		{[]string{"fingerprint", "--format", "xml"}, `input format "xml": want auto, jsonl or text`},
		{[]string{"fingerprint", "--encoding", "latin1"}, "input encoding"},
		{[]string{"dedup", "--workers", "0", "x"}, "--workers 0: want at least 1"},
		{[]string{"dedup", "--max-distance", "65", "x"}, "--max-distance 65: want 0 to 64"},
		{[]string{"dedup", "--max-distance", "10", "x"}, "--max-distance 10: an index answers distances up to 9"},
		{[]string{"eval", "--pairs", "p", "--max-distance", "10", "x"}, "neardup eval: --max-distance 10: an index answers distances up to 9"},
		{[]string{"dedup", "--min-content", "0", "x"}, "--min-content 0: want a value in (0, 1]"},
		{[]string{"dedup", "--progress", "maybe", "x"}, `--progress "maybe"`},
		{[]string{"fingerprint", "--progress", "sometimes", "x"}, "neardup fingerprint: --progress \"sometimes\": want auto, always or never\nRun 'neardup fingerprint --help' for usage."},
		{[]string{"add", "--index", "x"}, "nothing to add"},
		{[]string{"delete", "--index", "x"}, "no ids to delete"},
		{[]string{"stats", "--index", "x", "extra"}, `unexpected argument "extra"`},
		{[]string{"idf", "build", "x"}, "no output: give -o FILE"},
		{[]string{"idf", "build", "-o", "x", "--min-df", "0", "y"}, "--min-df 0: want at least 1"},
		{[]string{"check", "--index", "x", "--fingerprint", "00", "file"}, "--fingerprint checks a fingerprint alone"},
	}
	for _, tt := range tests {
		r := runCLI(t, tt.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("neardup %s: exit %d, stderr %q; want 2 and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
		}
		if r.stdout != "" {
			t.Errorf("neardup %s: usage error printed to stdout: %q", strings.Join(tt.args, " "), r.stdout)
		}
	}
}

func TestNoIndex(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{"stats", "--index", missing},
		{"delete", "--index", missing, "x"},
		{"check", "--index", missing, "--fingerprint", "0123456789abcdef"},
	} {
		r := runCLI(t, args...)
		if r.code != exitError || !strings.Contains(r.stderr, "no index in "+missing) {
			t.Errorf("neardup %s: exit %d: %q", strings.Join(args, " "), r.code, r.stderr)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatalf("neardup %s created the index directory", strings.Join(args, " "))
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	if got := plural(1, "article", "articles"); got != "1 article" {
		t.Errorf("plural(1) = %q", got)
	}
	if got := plural(2000, "article", "articles"); got != "2,000 articles" {
		t.Errorf("plural(2000) = %q", got)
	}
}

// BenchmarkDedupSample runs dedup on the sample corpus in process,
// including loading the dictionaries (run makes a new analyzer).
func BenchmarkDedupSample(b *testing.B) {
	fi, err := os.Stat(samplePath)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		var stderr strings.Builder
		if code := run([]string{"neardup", "dedup", "--workers", "2", samplePath}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
