//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/segment"
)

// TestBinary runs the binary TestMain built, end to end, for what the
// in-process runs cannot show: main's wiring of the standard streams, of
// the process's environment (NEARDUP_INDEX through os.LookupEnv) and of
// the exit statuses (os.Exit: 0 in the golden case, 1 and 2), and
// standard input at end of file on a real pipe. Its golden case gives the
// same output as in-process.
func TestBinary(t *testing.T) {
	t.Parallel()
	c := robustCmd{dir: "."}

	be := segment.DefaultBackend
	args := withSegmenter(be, "compare", "-", "testdata/a.txt")
	r := robustCmd{dir: ".", stdin: strings.NewReader("我来到北京清华大学，清华大学是中国著名的高等学府，北京是中国的首都。")}.run(t, args...)
	golden(t, be, "compare_stdin.txt", normalize(transcript(args, r), ""))

	// Nothing on standard input: the pipe is closed at once.
	if r := c.run(t, "fingerprint", "-"); r.code != 0 || r.stderr != "neardup: stdin: empty file\nneardup: 1 article not fingerprinted\n" {
		t.Errorf("fingerprint - with nothing on stdin: exit %d: %q", r.code, r.stderr)
	}

	idx := filepath.Join(t.TempDir(), "idx")
	env := robustCmd{dir: ".", env: []string{"NEARDUP_INDEX=" + idx}}
	if r := env.run(t, "add", "testdata/a.txt"); r.code != 0 || r.stdout != "added 1 document to "+idx+"; the index holds 1 document\n" {
		t.Errorf("add with NEARDUP_INDEX: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := env.run(t, "check", "testdata/b.txt"); r.code != 1 || !strings.Contains(r.stdout, "near duplicate   testdata/a.txt") {
		t.Errorf("check with NEARDUP_INDEX: exit %d, want 1: %s%s", r.code, r.stdout, r.stderr)
	}
	// (robustCmd sets NEARDUP_INDEX empty, which names no index.)
	if r := c.run(t, "check", "testdata/b.txt"); r.code != 2 || !strings.Contains(r.stderr, "give --index DIR or set NEARDUP_INDEX") {
		t.Errorf("check without an index: exit %d, want 2: %s", r.code, r.stderr)
	}
}
