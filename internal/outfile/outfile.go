// Package outfile owns a command's output files: each is written under a
// temporary name in its own directory and renamed into place when the
// run commits it, so that an interrupted run never leaves a partial file
// under the final name; the temporaries of a run killed before it could
// remove them are removed the next time the same output is created.
//
// Only a regular file (or a new one) is replaced so. Anything else is
// written through, in place: a device (/dev/null), a FIFO, a socket,
// and whatever is reached through /proc (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, even when it is a regular file: it is another
// process's open file). A symbolic link is followed: its target is what
// is written (atomically when the target is a regular file or missing),
// and the link itself stays as it was.
package outfile

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is an output file being written. The path "-" writes to the
// standard output given to Create instead.
type File struct {
	path string
	f    *os.File // nil for the standard output
	w    *bufio.Writer
	// target is the regular file the temporary f is renamed to (path,
	// or the file its symbolic links lead to); "" when f is path itself,
	// written through.
	target string
}

// Create creates the output path ("-": stdout). A path that is a
// directory is refused now, not at the rename after the whole run. A
// path that is not a regular file (see the package comment) is opened
// for writing as it is, and written through.
func Create(path string, stdout io.Writer) (*File, error) {
	if path == "-" {
		return &File{path: path, w: bufio.NewWriterSize(stdout, 64<<10)}, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("create %s: is a directory", path)
	}
	target, through := resolve(path)
	if through {
		// O_APPEND: a regular file behind /dev/fd/N is another open
		// file, written after what it holds, as the shell's >> would.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		return &File{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	RemoveStale(dir, base)
	f, err := os.CreateTemp(dir, fmt.Sprintf(".%s.tmp-%d-*", base, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10), target: target}, nil
}

// maxLinks is how many symbolic links resolve follows (Linux's limit).
const maxLinks = 40

// resolve says where the output path is written: through (in place),
// or target, a regular file or a name that does not exist yet, which a
// temporary file is renamed to. It follows path's symbolic links itself,
// one at a time, so that it can tell a link into /proc (/dev/stdout,
// /dev/fd/N: a file descriptor's "magic" link, whose readlink is a name
// that may not lead to that file) from a link to a file. When it cannot
// tell (a missing directory, a loop), it returns path: creating the
// temporary file there reports the error.
func resolve(path string) (target string, through bool) {
	p := path
	for range maxLinks {
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		rdir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return path, false
		}
		if abs, err := filepath.Abs(rdir); err == nil && (abs == "/proc" || strings.HasPrefix(abs, "/proc/")) {
			return path, true
		}
		p = filepath.Join(rdir, base)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return p, false // a new file (or an error CreateTemp reports)
		case fi.Mode().IsRegular():
			return p, false
		case fi.Mode()&fs.ModeSymlink == 0:
			return path, true // a device, a FIFO, a socket
		}
		link, err := os.Readlink(p)
		if err != nil {
			return path, false
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(rdir, link)
		}
		p = link
	}
	return path, false
}

// RemoveStale removes the temporary files of output base in dir that a
// run killed before it could rename or remove them left behind: those
// whose process (the number in the name) is gone, and those named as
// before the number was put in (".BASE.tmp-DIGITS").
func RemoveStale(dir, base string) {
	prefix := "." + base + ".tmp-"
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pid, _, twoParts := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			continue
		}
		if twoParts && processAlive(n) {
			continue // another run writing the same output now
		}
		os.Remove(filepath.Join(dir, name))
	}
}

func (o *File) Write(p []byte) (int, error) { return o.w.Write(p) }

// Path returns the path the file was created for.
func (o *File) Path() string { return o.path }

// Commit flushes, syncs and renames the file into place (a file
// written through is flushed and closed).
func (o *File) Commit() error {
	if err := o.w.Flush(); err != nil {
		o.Abort()
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if o.f == nil {
		return nil
	}
	if o.target == "" {
		err := o.f.Close()
		o.f = nil
		if err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
		return nil
	}
	tmp := o.f.Name()
	err := o.f.Chmod(0o644)
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil
	if err == nil {
		err = os.Rename(tmp, o.target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return nil
}

// Abort removes the temporary file (a file written through is closed,
// with what was written to it). It is a no-op after Commit.
func (o *File) Abort() {
	if o.f != nil {
		o.f.Close()
		if o.target != "" {
			os.Remove(o.f.Name())
		}
		o.f = nil
	}
}

// Set is the output files of one run: Create creates each, Commit
// renames them all into place at the end, and Abort (deferred) removes
// whatever was not committed.
type Set struct {
	stdout io.Writer
	files  []*File
}

// NewSet returns an empty set whose "-" outputs go to stdout.
func NewSet(stdout io.Writer) *Set { return &Set{stdout: stdout} }

// Create creates the output path, or returns nil when path is empty.
func (s *Set) Create(path string) (*File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := Create(path, s.stdout)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	return f, nil
}

// Commit commits every file, stopping at the first error.
func (s *Set) Commit() error {
	for _, f := range s.files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// Abort aborts every file not committed.
func (s *Set) Abort() {
	for _, f := range s.files {
		f.Abort()
	}
}
