package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesAtStart: serve refuses, before opening the archive,
// --cors-origin '*' without a token (every site's pages could write),
// and a token file no request could match (two lines, a byte-order
// mark). Before, both started.
func TestServeRefusesAtStart(t *testing.T) {
	dir := t.TempDir()
	twoLines := filepath.Join(dir, "two")
	bom := filepath.Join(dir, "bom")
	os.WriteFile(twoLines, []byte("s3cret\nother\n"), 0o600)
	os.WriteFile(bom, []byte("\xef\xbb\xbfs3cret\n"), 0o600)
	index := filepath.Join(dir, "archive")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cors-origin", "*"}, "neardup serve: --cors-origin '*' without --token-file lets the pages of every site change the archive: give --token-file FILE (or --insecure)\n"},
		{[]string{"--token-file", twoLines}, "neardup: --token-file: " + twoLines + ": more than one line: want the token alone\n"},
		{[]string{"--token-file", bom}, "neardup: --token-file: " + bom + ": starts with a byte-order mark: save it as plain ASCII\n"},
	} {
		r := runCLI(t, append([]string{"serve", "--index", index, "--addr", "127.0.0.1:0"}, tc.args...)...)
		if r.code != exitError || !strings.HasPrefix(r.stderr, tc.want) {
			t.Errorf("serve %s: exit %d, stderr %q; want exit %d, %q", strings.Join(tc.args, " "), r.code, r.stderr, exitError, tc.want)
		}
	}
	if _, err := os.Stat(index); !os.IsNotExist(err) {
		t.Errorf("a refused serve created the archive: %v", err)
	}
}
