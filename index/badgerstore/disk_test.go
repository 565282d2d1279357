package badgerstore

import (
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"
)

// racingFS is a directory whose entries fail as they do when Badger
// removes or locks a file between the directory read and the stat.
type racingFS struct {
	fstest.MapFS
	fail map[string]error // by path: Info's error for a file, ReadDir's for a directory
}

func (f racingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.fail[name]; err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: err}
	}
	es, err := f.MapFS.ReadDir(name)
	for i, e := range es {
		if err := f.fail[path.Join(name, e.Name())]; err != nil && !e.IsDir() {
			es[i] = failingEntry{e, &fs.PathError{Op: "lstat", Path: path.Join(name, e.Name()), Err: err}}
		}
	}
	return es, err
}

type failingEntry struct {
	fs.DirEntry
	err error
}

func (e failingEntry) Info() (fs.FileInfo, error) { return nil, e.err }

// TestDirBytes: files removed while Stats walks the directory (a .mem
// file flushed, an old table compacted away) are left out; other errors
// are reported.
func TestDirBytes(t *testing.T) {
	files := fstest.MapFS{
		"00001.mem":       {Data: make([]byte, 100)},
		"000002.sst":      {Data: make([]byte, 23)},
		"MANIFEST":        {Data: make([]byte, 7)},
		"sub/000003.vlog": {Data: make([]byte, 1000)},
	}
	for _, c := range []struct {
		name string
		fail map[string]error
		want int64
		err  string
	}{
		{"all there", nil, 1130, ""},
		{"mem file gone", map[string]error{"00001.mem": fs.ErrNotExist}, 1030, ""},
		{"two gone", map[string]error{"00001.mem": fs.ErrNotExist, "sub/000003.vlog": fs.ErrNotExist}, 30, ""},
		{"directory gone", map[string]error{"sub": fs.ErrNotExist}, 130, ""},
		{"file unreadable", map[string]error{"000002.sst": fs.ErrPermission}, 0, "lstat 000002.sst: permission denied"},
		{"directory unreadable", map[string]error{"sub": fs.ErrPermission}, 0, "readdirent sub: permission denied"},
		{"root gone", map[string]error{".": fs.ErrNotExist}, 0, "readdirent .: file does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := dirBytes(racingFS{files, c.fail})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("dirBytes = %d, %v; want error %q", n, err, c.err)
				}
				return
			}
			if err != nil || n != c.want {
				t.Fatalf("dirBytes = %d, %v; want %d", n, err, c.want)
			}
		})
	}
}
