package main

import (
	"strings"
	"testing"
)

// TestHelpCommand: "neardup help X Y" prints what "neardup X Y --help"
// prints, for commands with subcommands too.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, path := range [][]string{{"idf"}, {"idf", "build"}, {"url"}, {"url", "dedup"}, {"dedup"}, {"check"}} {
		want := runCLI(t, append(path, "--help")...)
		got := runCLI(t, append([]string{"help"}, path...)...)
		if got.code != 0 || got.stdout != want.stdout || !strings.Contains(got.stdout, "neardup "+strings.Join(path, " ")+" - ") {
			t.Errorf("help %s: exit %d\n%s\nwant\n%s", strings.Join(path, " "), got.code, got.stdout, want.stdout)
		}
	}
	if r := runCLI(t, "help", "nosuch"); r.code != 2 || !strings.Contains(r.stderr, `no command "nosuch"`) {
		t.Errorf("help nosuch: exit %d: %s", r.code, r.stderr)
	}
}
