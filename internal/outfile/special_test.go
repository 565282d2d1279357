//go:build unix

package outfile

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write creates path, writes data and commits it.
func write(t *testing.T, path, data string) {
	t.Helper()
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFIFO: an output that is a FIFO is written through to its reader
// and stays a FIFO (it was replaced by a regular file holding the data,
// and the reader got nothing).
func TestFIFO(t *testing.T) {
	t.Parallel()
	for _, viaLink := range []bool{false, true} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "pairs")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		path := fifo
		if viaLink {
			path = filepath.Join(dir, "link")
			if err := os.Symlink("pairs", path); err != nil {
				t.Fatal(err)
			}
		}
		// A reader that does not wait for a writer to open: the FIFO
		// has a reader when Create opens it, and the test cannot hang.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		write(t, path, "{\"a\":\"1\",\"b\":\"2\"}\n")
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "{\"a\":\"1\",\"b\":\"2\"}\n" {
			t.Errorf("link %v: the FIFO's reader got %q, want the pairs line", viaLink, got)
		}
		fi, err := os.Lstat(fifo)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("link %v: after the write %s is %v (%v), want a FIFO", viaLink, fifo, fi.Mode(), err)
		}
		if viaLink {
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link to the FIFO is %v (%v) after the write, want a symbolic link", fi.Mode(), err)
			}
		}
	}
}

// TestSymlinkToRegular: a symbolic link to a regular file (relative,
// absolute, a chain, dangling) stays a link; its target gets the data,
// atomically (a temporary file next to the target).
func TestSymlinkToRegular(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		links [][2]string // (link, its target), made in order
		path  string      // the output path given
		want  string      // the file that holds the data afterwards
	}{
		{"relative", [][2]string{{"out", "real/pairs"}}, "out", "real/pairs"},
		{"chain", [][2]string{{"b", "real/pairs"}, {"a", "b"}}, "a", "real/pairs"},
		{"dangling", [][2]string{{"out", "real/new"}}, "out", "real/new"},
		{"directory link", [][2]string{{"d", "real"}}, "d/pairs", "real/pairs"},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "real", "pairs"), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, l := range tc.links {
			if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
				t.Fatal(err)
			}
		}
		write(t, filepath.Join(dir, tc.path), "new\n")
		if got := readFile(t, filepath.Join(dir, tc.want)); got != "new\n" {
			t.Errorf("%s: %s holds %q, want %q", tc.name, tc.want, got, "new\n")
		}
		for _, l := range tc.links {
			link := filepath.Join(dir, l[0])
			fi, err := os.Lstat(link)
			if err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s: %s is %v (%v) after the write, want the symbolic link it was", tc.name, l[0], fi.Mode(), err)
				continue
			}
			if got, _ := os.Readlink(link); got != l[1] {
				t.Errorf("%s: %s -> %q after the write, want -> %q", tc.name, l[0], got, l[1])
			}
		}
		es, _ := os.ReadDir(filepath.Join(dir, "real"))
		for _, e := range es {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("%s: a temporary file is left: %s", tc.name, e.Name())
			}
		}
	}
}

// TestDevStdoutChild is the child of TestDevStdout: it writes its
// argument's output path when OUTFILE_TEST_PATH is set.
func TestDevStdoutChild(t *testing.T) {
	path := os.Getenv("OUTFILE_TEST_PATH")
	if path == "" {
		t.Skip("the child of TestDevStdout")
	}
	write(t, path, "through "+path+"\n")
}

// TestDevStdout: /dev/stdout, /dev/fd/1 and /proc/self/fd/1 write to the
// process's standard output (a pipe here), whatever they are links to.
// Before, Create made a temporary file in /dev and renamed it over
// /dev/stdout: refused without root, so the run failed; as root,
// /dev/stdout became a regular file. Do not run this test as root
// against such a Create.
func TestDevStdout(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		// Write only through the links these are (to /proc/self/fd/1):
		// a code that renames over them replaced /dev/stdout, as root,
		// with a regular file (what this test found). A machine where
		// that happened is reported, not written to.
		fi, err := os.Lstat(path)
		if err != nil {
			t.Logf("%s: %v", path, err)
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is %v, not the link to /proc/self/fd/1 it should be: restore it (ln -sf /proc/self/fd/1 %s)", path, fi.Mode(), path)
			continue
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDevStdoutChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), "OUTFILE_TEST_PATH="+path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		want := "through " + path + "\n"
		if err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("writing %s into a pipe: %v; the pipe got %q, want %q first; stderr %s", path, err, out, want, stderr.String())
		}
	}
	// A regular file behind /dev/fd/N (a shell's 3>>file) is appended
	// to, not replaced: the file another process opened keeps its data.
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	if err := os.WriteFile(log, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDevStdoutChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), "OUTFILE_TEST_PATH=/dev/fd/3")
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	f.Close()
	if err != nil {
		t.Fatalf("writing /dev/fd/3: %v\n%s", err, out)
	}
	if got := readFile(t, log); got != "before\nthrough /dev/fd/3\n" {
		t.Errorf("the file behind /dev/fd/3 holds %q, want what it held and the line after it", got)
	}
}
