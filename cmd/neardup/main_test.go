package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/internal/testfixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// binary is the neardup binary TestMain builds.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "neardup-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "neardup")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building neardup:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of neardup printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// cliRun runs the command in-process, in the package directory, with the
// given standard input and environment, and the analyzers of the test
// binary's pool (testfixtures.Analyzers): one per set of options for all
// the runs, where each process of the binary would load its own.
//
// The runs take turns (inProcess): urfave/cli writes to package-level
// values when it sets up an app and its commands (it adds its HelpFlag and
// help command to each, and Apply writes to the flag), a data race
// between runs in parallel.
type cliRun struct {
	stdin string
	env   []string // "NAME=value": the run's environment variables, its only ones
	dir   string   // "" or ".": a run in-process cannot change directory
}

func (o cliRun) run(t testing.TB, args ...string) result {
	t.Helper()
	if o.dir != "" && o.dir != "." {
		t.Fatalf("neardup %s: an in-process run cannot work in %s", strings.Join(args, " "), o.dir)
	}
	env := &environment{lookupEnv: lookupIn(o.env), analyzers: testfixtures.Analyzers}
	var out, errb bytes.Buffer
	inProcess.Lock()
	defer inProcess.Unlock()
	code := runEnv(context.Background(), append([]string{"neardup"}, args...), strings.NewReader(o.stdin), &out, &errb, env)
	return result{out.String(), errb.String(), code}
}

// inProcess is held by the in-process run under way.
var inProcess sync.Mutex

// lookupIn looks variables up in env, "NAME=value" strings.
func lookupIn(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
}

// runCLI runs the command in-process with nothing on standard input.
func runCLI(t testing.TB, args ...string) result {
	t.Helper()
	return cliRun{}.run(t, args...)
}

// Volatile parts of the output, replaced before comparing with goldens.
var volatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`in [0-9.]+(ns|µs|ms|s|m[0-9.]+s|h[0-9m.]+s) \([0-9.]+ MB/s`), "in <time> (<rate> MB/s"},
	{regexp.MustCompile(`"seconds":[0-9.e+-]+`), `"seconds":0`},
	{regexp.MustCompile(`"mb_per_s":[0-9.e+-]+`), `"mb_per_s":0`},
	{regexp.MustCompile(`"disk_bytes":[0-9]+`), `"disk_bytes":0`},
	{regexp.MustCompile(`(?m)^disk .*$`), "disk          <size>"},
	{regexp.MustCompile(`in [0-9.]+ s, evaluated in [0-9.]+ s`), "in <time>, evaluated in <time>"},
}

// normalize replaces the temporary directory tmp with $TMP and the
// volatile parts with placeholders.
func normalize(s, tmp string) string {
	if tmp != "" {
		s = strings.ReplaceAll(s, tmp, "$TMP")
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.repl)
	}
	return s
}

// transcript formats a run for a golden file.
func transcript(args []string, r result, files ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ neardup %s\n%s", strings.Join(args, " "), r.stdout)
	if r.stderr != "" {
		fmt.Fprintf(&b, "--- stderr\n%s", r.stderr)
	}
	fmt.Fprintf(&b, "--- exit %d\n", r.code)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(&b, "--- file %s: %v\n", filepath.Base(f), err)
			continue
		}
		fmt.Fprintf(&b, "--- file %s\n%s", filepath.Base(f), data)
	}
	return b.String()
}

// golden compares got with testdata/golden/backend/name, or rewrites it
// with -update.
func golden(t *testing.T, backend, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", backend, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run go test -update to accept it):\n%s", path, diff(string(want), got))
	}
}

// diff shows the first differing lines of want and got.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant: %q\ngot:  %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// readFile returns the content of path, failing the test if it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// countLines counts the lines of s.
func countLines(s string) int { return strings.Count(s, "\n") }

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
