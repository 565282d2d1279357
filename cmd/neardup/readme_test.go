package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEFormats runs the README's examples on the files of
// input/testdata/formats and compares their output, stdout then stderr,
// with what the README shows (times and rates aside).
func TestREADMEFormats(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	examples := 0
	for i, line := range lines {
		cmd, ok := strings.CutPrefix(line, "    $ neardup ")
		if !ok || !strings.Contains(cmd, "input/testdata/formats/") {
			continue
		}
		examples++
		var want []string
		for _, l := range lines[i+1:] {
			out, ok := strings.CutPrefix(l, "    ")
			if !ok || strings.HasPrefix(out, "$ ") {
				break
			}
			want = append(want, out)
		}
		tmp := t.TempDir()
		args := strings.Fields(cmd)
		for j, a := range args {
			switch {
			case strings.HasPrefix(a, "input/testdata/formats/"):
				args[j] = filepath.Join("..", "..", a)
			case j > 0 && a != "-" && strings.HasPrefix(args[j-1], "--") && strings.Contains("--pairs --clusters --unique --rejects --annotate", args[j-1]):
				args[j] = filepath.Join(tmp, a) // an output file
			}
		}
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Errorf("neardup %s: exit %d: %s", cmd, r.code, r.stderr)
			continue
		}
		got := strings.Split(strings.TrimSuffix(normalize(r.stdout+r.stderr, ""), "\n"), "\n")
		w := strings.Split(normalize(strings.Join(want, "\n"), ""), "\n")
		if strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("README: neardup %s:\n%s\nbut it prints:\n%s", cmd, strings.Join(w, "\n"), strings.Join(got, "\n"))
		}
	}
	if examples != 2 {
		t.Errorf("%d examples on input/testdata/formats in the README, want 2 (a Parquet and a WARC one)", examples)
	}
}
