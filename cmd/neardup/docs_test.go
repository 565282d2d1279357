//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/redistest"
)

// docFiles are the Markdown files whose example transcripts
// TestDocExamples runs, relative to the repository root.
var docFiles = []string{
	"README.md",
	"cmd/neardup/README.md",
	"docs/serve.md",
	"docs/redis.md",
	"docs/errors.md",
	"docs/capacity.md",
}

// A docBlock is one transcript in a Markdown file: an indented code
// block with at least one prompt line ("$ COMMAND" or "shell N$
// COMMAND"), each command followed by the output it prints.
//
// An HTML comment on the line before the block, invisible to readers,
// says how to run it: "<!-- example: KEY=VALUE ... -->" with
//
//	dir=PATH        run in a copy of the repository folder PATH
//	serve=ARGS      with "neardup serve ARGS" running there on a free port
//	                (localhost:8080 and 127.0.0.1:8080 in commands name it)
//	setup=COMMANDS  shell commands run first, their output not shown
//	redis           with a Redis Cluster: the ports 7000-7002 and the folder
//	                /tmp/neardup-rc of commands become free ports and a
//	                folder of the test's, and back again in the output (the
//	                document's blocks share them)
//	output=unchecked  the commands must succeed; what they print varies
//	                (which of two racing writers files a document first)
//
// Values with spaces are in double quotes.
type docBlock struct {
	file string
	line int // of the block's first line
	opts map[string]string
	cmds []docCmd
}

type docCmd struct {
	line int
	text string   // the command as written
	want []string // the output lines shown
}

var (
	promptRE    = regexp.MustCompile(`^(?:shell \d+)?\$ (.*)$`)
	directiveRE = regexp.MustCompile(`^<!-- example:(.*)-->\s*$`)
	optRE       = regexp.MustCompile(`(\w+)(?:=("[^"]*"|\S+))?`)
)

// parseDocBlocks returns the transcripts of a Markdown text.
func parseDocBlocks(file, text string) ([]docBlock, error) {
	lines := strings.Split(text, "\n")
	var blocks []docBlock
	var pending map[string]string
	for i := 0; i < len(lines); {
		l := lines[i]
		if m := directiveRE.FindStringSubmatch(l); m != nil {
			pending = map[string]string{}
			for _, o := range optRE.FindAllStringSubmatch(m[1], -1) {
				pending[o[1]] = strings.Trim(o[2], `"`)
			}
			i++
			continue
		}
		afterBreak := i == 0 || strings.TrimSpace(lines[i-1]) == "" || directiveRE.MatchString(lines[i-1])
		if !strings.HasPrefix(l, "    ") || !afterBreak {
			if strings.TrimSpace(l) != "" {
				pending = nil
			}
			i++
			continue
		}
		// An indented block: indented lines and the blank lines between them.
		start := i
		var body []string
		for i < len(lines) && (strings.HasPrefix(lines[i], "    ") || strings.TrimSpace(lines[i]) == "") {
			body = append(body, strings.TrimPrefix(lines[i], "    "))
			i++
		}
		b := docBlock{file: file, line: start + 1, opts: pending}
		pending = nil
		for j, bl := range body {
			if m := promptRE.FindStringSubmatch(bl); m != nil {
				b.cmds = append(b.cmds, docCmd{line: start + j + 1, text: m[1]})
				continue
			}
			if len(b.cmds) == 0 {
				if strings.TrimSpace(bl) != "" {
					break // a code block, not a transcript
				}
				continue
			}
			c := &b.cmds[len(b.cmds)-1]
			c.want = append(c.want, bl)
		}
		for k := range b.cmds {
			for len(b.cmds[k].want) > 0 && strings.TrimSpace(b.cmds[k].want[len(b.cmds[k].want)-1]) == "" {
				b.cmds[k].want = b.cmds[k].want[:len(b.cmds[k].want)-1]
			}
		}
		if len(b.cmds) > 0 {
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

// varyingRE matches what differs from run to run in a command's output:
// elapsed times, speeds and the number of workers (the machine's cores).
var varyingRE = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m\d+(\.\d+)?s)\b|\b\d+(\.\d+)? [kMG]?B/s\b|\b\d+ workers?\b`)

func normalizeVarying(s string) string {
	return varyingRE.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case strings.HasSuffix(m, "B/s"):
			return "<rate>"
		case strings.Contains(m, "worker"):
			return "<workers>"
		}
		return "<time>"
	})
}

// matchOutput reports whether got matches the lines a document shows.
// A shown line "…" alone, or starting with "…" ("…   (83 pairs)"),
// stands for any number of lines; "…" within a line for any text.
// Times, speeds and worker counts may differ (normalizeVarying).
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	w := strings.TrimSpace(want[0])
	if strings.HasPrefix(w, "…") {
		for k := 0; k <= len(got); k++ {
			if matchOutput(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	parts := strings.Split(normalizeVarying(want[0]), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	if err != nil || !re.MatchString(normalizeVarying(got[0])) {
		return false
	}
	return matchOutput(want[1:], got[1:])
}

// TestDocExamples runs every transcript of the README and the docs with
// the binary TestMain built and checks that each command prints what the
// document shows, so that an example cannot drift from what neardup does.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' examples (a minute): not with -short")
	}
	for _, tool := range []string{"bash", "jq", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " not found: the documents' examples use it; install it with: apt-get install -y jq curl"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg + " (CI=true: the examples must run)")
			}
			t.Skip(msg)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(bin, "neardup")); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range docFiles {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseDocBlocks(f, string(text))
		if err != nil {
			t.Fatal(err)
		}
		total += len(blocks)
		t.Run(strings.ReplaceAll(f, "/", "_"), func(t *testing.T) {
			t.Parallel()
			r := &docRun{root: root, sandbox: newDocSandbox(t, root), bin: bin}
			for _, b := range blocks {
				r.block(t, b)
			}
		})
	}
	if total < 8 {
		t.Errorf("found %d transcripts in %v: the parser misses the examples", total, docFiles)
	}
}

// newDocSandbox makes a folder in which a document's commands run as
// they would from the repository root: the root's files and folders
// appear as links, and what the commands write lands in the folder.
func newDocSandbox(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyFolder makes dst a copy of src's files, with links to its folders,
// so that a block working in a repository folder writes into its copy.
func copyFolder(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if e.IsDir() {
			if err := os.Symlink(s, d); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// docRun is one document's run: its blocks share a sandbox, and a Redis
// Cluster once a block asks for one.
type docRun struct {
	root, sandbox, bin string
	redisPorts         []int // the cluster's ports for 7000, 7001, 7002
}

func (r *docRun) block(t *testing.T, b docBlock) {
	t.Helper()
	where := fmt.Sprintf("%s:%d", b.file, b.line)
	dir := r.sandbox
	if d, ok := b.opts["dir"]; ok {
		dir = filepath.Join(r.sandbox, "copy-"+strings.ReplaceAll(d, "/", "-"))
		if _, err := os.Stat(dir); err != nil {
			copyFolder(t, filepath.Join(r.root, d), dir)
		}
	}
	env := append(os.Environ(), "PATH="+r.bin+":"+os.Getenv("PATH"), "NEARDUP_INDEX=", "LC_ALL=C.UTF-8")
	var rewrite, unrewrite []string // old, new pairs
	if _, ok := b.opts["redis"]; ok {
		if r.redisPorts == nil {
			redistest.Require(t)
			ports, err := redistest.FreePorts(3)
			if err != nil {
				t.Fatal(err)
			}
			r.redisPorts = ports
			rcDir := filepath.Join(r.sandbox, "rc")
			t.Cleanup(func() { exec.Command(filepath.Join(r.root, "scripts/redis-cluster"), "stop", rcDir).Run() })
		}
		for i, p := range r.redisPorts {
			rewrite = append(rewrite, strconv.Itoa(7000+i), strconv.Itoa(p))
			unrewrite = append(unrewrite, ":"+strconv.Itoa(p), ":"+strconv.Itoa(7000+i))
		}
		rewrite = append(rewrite, "/tmp/neardup-rc", filepath.Join(r.sandbox, "rc"))
	}
	if args, ok := b.opts["serve"]; ok {
		addr := startDocServer(t, dir, env, args)
		rewrite = append(rewrite, "localhost:8080", addr, "127.0.0.1:8080", addr)
	}
	rw := strings.NewReplacer(rewrite...)
	unrw := strings.NewReplacer(unrewrite...)
	if setup, ok := b.opts["setup"]; ok {
		if out, err := docShell(dir, env, rw.Replace(setup)); err != nil {
			t.Fatalf("%s: setup %q: %v\n%s", where, setup, err, out)
		}
	}
	for _, c := range b.cmds {
		cmd := rw.Replace(strings.Replace(c.text, "go run ./cmd/neardup", "neardup", 1))
		out, err := docShell(dir, env, cmd)
		out = unrw.Replace(out)
		got := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if out == "" {
			got = nil
		}
		if b.opts["output"] == "unchecked" {
			if err != nil {
				t.Errorf("%s:%d: $ %s: %v\n%s", b.file, c.line, c.text, err, out)
			}
			continue
		}
		if !matchOutput(c.want, got) {
			t.Errorf("%s:%d: $ %s\nthe document shows:\n%s\nthe command printed (%v):\n%s", b.file, c.line, c.text,
				indent(c.want), err, indent(got))
		}
	}
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// docShell runs a command line with bash in dir, standard output and
// standard error into one stream in the order they were written.
func docShell(dir string, env []string, line string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// startDocServer starts "neardup serve ARGS --addr 127.0.0.1:PORT" in
// dir, waits until it answers, and stops it when the test ends.
func startDocServer(t *testing.T, dir string, env []string, args string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(binary, append(append([]string{"serve"}, strings.Fields(args)...), "--addr", addr)...)
	cmd.Dir, cmd.Env = dir, env
	var logb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("neardup serve %s did not answer on %s within a minute: %v\n%s", args, addr, err, logb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMatchOutput pins the rules by which a document's shown output
// matches what a command printed.
func TestMatchOutput(t *testing.T) {
	for _, tt := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"a", "c"}, false},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a", "…   (83 pairs)", "z"}, []string{"a", "b", "c", "z"}, true},
		{[]string{"a", "…", "z"}, []string{"a", "z"}, true},
		{[]string{"a", "…", "z"}, []string{"a", "y"}, false},
		{[]string{`["x","y",…]}`}, []string{`["x","y","z","w"]}`}, true},
		{[]string{`["x","y",…]}`}, []string{`["x","q","z"]}`}, false},
		{[]string{"448.3 kB of text in 51ms (8.81 MB/s, 2 workers)"}, []string{"448.3 kB of text in 1.2s (0.37 MB/s, 1 worker)"}, true},
		{[]string{"448.3 kB of text in 51ms"}, []string{"448.4 kB of text in 51ms"}, false},
		{nil, nil, true},
		{nil, []string{"x"}, false},
	} {
		if got := matchOutput(tt.want, tt.got); got != tt.ok {
			t.Errorf("matchOutput(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}

// TestParseDocBlocks pins what counts as a transcript and its options.
func TestParseDocBlocks(t *testing.T) {
	md := "Text.\n\n    go test ./...\n\n<!-- example: dir=cmd/x serve=\"--index archive\" redis -->\n    $ neardup a\n    out 1\n\n    out 2\n    shell 2$ neardup b\n\nAfter.\n"
	blocks, err := parseDocBlocks("x.md", md)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("%d blocks, want 1: %+v", len(blocks), blocks)
	}
	b := blocks[0]
	got := fmt.Sprintf("block at %d, options %v", b.line, b.opts)
	for _, c := range b.cmds {
		got += fmt.Sprintf("; line %d %q prints %q", c.line, c.text, c.want)
	}
	want := `block at 6, options map[dir:cmd/x redis: serve:--index archive]; line 6 "neardup a" prints ["out 1" "" "out 2"]; line 10 "neardup b" prints []`
	if got != want {
		t.Errorf("parsed\n%s\nwant\n%s", got, want)
	}
}
