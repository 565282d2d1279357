package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
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

// TestHelpGolden: the help of neardup and of every command and
// subcommand, whole (testdata/golden/help; the default segmenter is
// normalised).
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(slices.Clone(prefix), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(nil, nil, nil).Commands)
	paths = append(paths, nil)
	defaultSegmenter := regexp.MustCompile(`\(default: "(jieba|gse)"\)`)
	for _, p := range paths {
		args := append(slices.Clone(p), "--help")
		r := runCLI(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("neardup %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		name := "neardup.txt"
		if len(p) > 0 {
			name = strings.Join(p, "-") + ".txt"
		}
		golden(t, "help", name, defaultSegmenter.ReplaceAllString(transcript(args, r), `(default: "SEGMENTER")`))
	}
}

// TestHelpTexts: every command but help and idf (a group) has a long
// help text, and every file of help/ is some command's, or the exit
// status rule.
func TestHelpTexts(t *testing.T) {
	used := map[string]bool{"exit-status": true}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := prefix + c.Name
			if c.Name != "help" && c.Name != "idf" {
				if c.Description == "" {
					t.Errorf("%s: no help text (help/%s.txt)", name, name)
				}
				used[name] = true
			}
			walk(name+"-", c.Subcommands)
		}
	}
	walk("", newApp(nil, nil, nil).Commands)
	files, err := helpTexts.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 14 {
		t.Errorf("help/ holds %d files, want 14", len(files))
	}
	for _, f := range files {
		if name := strings.TrimSuffix(f.Name(), ".txt"); !used[name] {
			t.Errorf("help/%s is no command's help text", f.Name())
		}
	}
}
