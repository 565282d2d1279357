package tablecheck

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/neardup/neardup/index"
)

// This file reads Badger's table files (.sst) itself, one at a time and
// in the calling goroutine, so that a damaged table is an error naming
// its file instead of a panic: Badger opens its tables in goroutines of
// its own, where a table whose index or blocks are damaged ends the
// process with a panic nothing can recover.

// A Damage is one part of a store's directory that cannot be read.
type Damage struct {
	File string // the file's name in the directory, e.g. "000001.sst"
	// Block is the table block, counted from 0, or -1 when the damage
	// is not in one block (the table's index, or another file).
	Block int
	ID    string // the document whose record is damaged, if any
	Err   error
}

// MarshalText is String: a Damage is a string in JSON.
func (d Damage) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d Damage) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Block >= 0 {
		fmt.Fprintf(&b, " block %d", d.Block)
	}
	if d.ID != "" {
		fmt.Fprintf(&b, " record %q", d.ID)
	}
	fmt.Fprintf(&b, ": %v", d.Err)
	return b.String()
}

// Error is the error of a damaged store: it names the directory and
// the damage and wraps index.ErrCorrupt.
type Error struct {
	Dir    string
	Damage Damage
}

func (e *Error) Error() string {
	return fmt.Sprintf("index: %s: %v: %v", e.Dir, index.ErrCorrupt, e.Damage)
}

func (e *Error) Unwrap() error { return index.ErrCorrupt }

// TableFiles returns the names of the table files in dir, sorted: every
// one there, the MANIFEST's and leftovers alike (Files reads only the
// MANIFEST's).
func TableFiles(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".sst") && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// tableOptions are the options to read a table compressed with c (this
// package writes none, but Badger's defaults compress, and an index may
// have been written by an older version) with every block's checksum
// verified when it is read. Nothing is encrypted.
func tableOptions(c options.CompressionType) table.Options {
	return table.Options{
		BlockSize:   4 * 1024,
		Compression: c,
		ChkMode:     options.OnBlockRead,
	}
}

// unknownCompression means the MANIFEST, which records each table's
// compression, could not be read: every compression is tried.
const unknownCompression options.CompressionType = 1 << 31

// manifestTables returns the tables the MANIFEST of dir lists (the
// others are leftovers that Badger deletes when it opens), by file
// name, with their compression.
func manifestTables(dir string) (map[string]options.CompressionType, error) {
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m badger.Manifest
	if err := Protect(func() error {
		var err error
		m, _, err = badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir).WithLogger(quiet{}))
		return err
	}); err != nil {
		return nil, err
	}
	out := make(map[string]options.CompressionType, len(m.Tables))
	for id, t := range m.Tables {
		out[table.IDToFilename(id)] = t.Compression
	}
	return out, nil
}

// dirTables returns the tables of dir to read, with their compression:
// those the MANIFEST lists, or every table file (compression unknown)
// when it cannot be read.
func dirTables(dir string) (map[string]options.CompressionType, error) {
	if m, err := manifestTables(dir); err == nil {
		return m, nil
	}
	names, err := TableFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]options.CompressionType, len(names))
	for _, n := range names {
		out[n] = unknownCompression
	}
	return out, nil
}

// quiet is a badger.Logger that logs nothing.
type quiet struct{}

func (quiet) Errorf(string, ...any)   {}
func (quiet) Warningf(string, ...any) {}
func (quiet) Infof(string, ...any)    {}
func (quiet) Debugf(string, ...any)   {}

// A File is one table file of a directory, with the compression to read
// it with.
type File struct {
	Name        string // e.g. "000001.sst"
	compression options.CompressionType
}

// Files returns the table files of dir to read, sorted by name: those
// the MANIFEST lists (the others are leftovers that Badger deletes when
// it opens), or every table file when it cannot be read.
func Files(dir string) ([]File, error) {
	tables, err := dirTables(dir)
	if err != nil {
		return nil, err
	}
	out := make([]File, 0, len(tables))
	for _, name := range sortedNames(tables) {
		out = append(out, File{Name: name, compression: tables[name]})
	}
	return out, nil
}

// sortedNames returns the keys of m, sorted.
func sortedNames(m map[string]options.CompressionType) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PanicError turns a recovered panic into an error.
func PanicError(r any) error {
	if err, ok := r.(error); ok {
		return fmt.Errorf("%w (recovered from a panic)", err)
	}
	s := strings.TrimSpace(fmt.Sprint(r))
	if strings.Contains(s, "initIndex crash") {
		// Badger's report of a table whose footer or index does not
		// parse: the numbers it prints are garbage.
		return errors.New("its footer or index does not parse (the file is truncated or overwritten)")
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return fmt.Errorf("%s (recovered from a panic)", s)
}

// errEmptyTable is the error of an empty table file: damage, unless
// Badger deleted the table (it empties the file before it removes it).
var errEmptyTable = errors.New("empty file")

// openTable maps the table file path and reads its index (the footer,
// the index's checksum, the smallest and the biggest key), the table
// being compressed with c (unknownCompression: whichever works). It
// returns the table and the mapped file; the caller calls close when
// done with them.
func openTable(path string, c options.CompressionType) (*table.Table, []byte, func(), error) {
	if c != unknownCompression {
		return openTableAs(path, c)
	}
	var first error
	for _, c := range []options.CompressionType{options.None, options.Snappy, options.ZSTD} {
		t, data, closeFn, err := openTableAs(path, c)
		if err == nil {
			return t, data, closeFn, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, nil, nil, first
}

func openTableAs(path string, c options.CompressionType) (t *table.Table, data []byte, closeFn func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, nil, nil, errEmptyTable
	}
	data, err = z.Mmap(f, false, fi.Size())
	if err != nil {
		return nil, nil, nil, err
	}
	unmap := func() { _ = z.Munmap(data) }
	id, ok := table.ParseFileID(path)
	if !ok {
		unmap()
		return nil, nil, nil, errors.New("not a table file name")
	}
	// A file truncated while it is read (Badger empties a table it
	// deletes after a compaction before removing it) faults: a panic
	// here, not a crash, and the file counts as gone.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			unmap()
			t, data, closeFn, err = nil, nil, nil, PanicError(r)
			if isFault(r) {
				err = fmt.Errorf("%w: truncated while read", fs.ErrNotExist)
			}
		}
	}()
	opts := tableOptions(c)
	t, err = table.OpenInMemoryTable(data, id, &opts)
	if err != nil {
		unmap()
		return nil, nil, nil, err
	}
	return t, data, unmap, nil
}

// Open reads the index of every table in dir (see checkTables) and
// returns the store's handles on them, for View and CheckRead: a
// read-only store's list of tables is Badger's for good. A damaged table
// is an *Error naming it.
func Open(dir string, readOnly bool) (*Shadows, error) {
	tabs, err := checkTables(dir)
	if err != nil {
		return nil, err
	}
	return &Shadows{dir: dir, readOnly: readOnly, tabs: tabs}, nil
}

// checkTables reads the index of every table in dir, so that Badger's
// Open, which reads them in goroutines of its own, does not panic on a
// damaged one. It returns the first damage found, or the tables, open,
// sorted by ID, for the store's checks of what Badger reads (shadow.go).
func checkTables(dir string) ([]*Table, error) {
	tables, err := manifestTables(dir)
	if err != nil {
		return nil, nil // no MANIFEST yet, or Badger's Open reports what is wrong with it
	}
	var out []*Table
	for _, name := range sortedNames(tables) {
		id, _ := table.ParseFileID(name)
		st := openShadow(dir, id, tables[name])
		if errors.Is(st.err, fs.ErrNotExist) {
			// Compacted away by a writer that holds the store since the
			// MANIFEST was read (Badger's Open then says it is in use),
			// or missing: Badger's Open reports it.
			continue
		}
		if st.err != nil {
			for _, o := range out {
				o.release()
			}
			return nil, &Error{Dir: dir, Damage: Damage{File: name, Block: -1, Err: st.err}}
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *Table) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}

// Bits of an entry's meta byte (Badger's value.go).
const (
	bitDelete       = 1 << 0 // the key was deleted
	bitValuePointer = 1 << 1 // the value is in the value log
)

// An Entry is one key-value entry of a table.
type Entry struct {
	Key     []byte // without the version
	Version uint64
	Meta    byte // Badger's: see Deleted and InValueLog
	Value   []byte
}

// Deleted reports whether the entry deletes its key.
func (e *Entry) Deleted() bool { return e.Meta&bitDelete != 0 }

// InValueLog reports whether the entry's value is a pointer into the
// value log, not the value.
func (e *Entry) InValueLog() bool { return e.Meta&bitValuePointer != 0 }

// Walk is walkTable for the file f of dir.
func Walk(dir string, f File, fn func(*Entry), bad func(Damage)) int64 {
	return walkTable(filepath.Join(dir, f.Name), f.compression, fn, bad)
}

// walkTable reads every entry of the table file path (compressed with
// c), block by block,
// verifying each block's checksum, and calls fn with each (its slices
// valid during the call only). A block that cannot be read is reported
// to bad and skipped; a table whose index cannot be read is one damage.
// It returns the number of entries read.
func walkTable(path string, c options.CompressionType, fn func(*Entry), bad func(Damage)) int64 {
	name := filepath.Base(path)
	t, _, closeFn, err := openTable(path, c)
	if err != nil {
		bad(Damage{File: name, Block: -1, Err: err})
		return 0
	}
	defer closeFn()
	var firsts []string
	if err := Protect(func() error {
		firsts = t.KeySplits(1<<30, nil) // every block's first key
		return nil
	}); err != nil {
		bad(Damage{File: name, Block: -1, Err: fmt.Errorf("table index: %w", err)})
		return 0
	}
	var n int64
	for b, first := range firsts {
		var next []byte
		if b+1 < len(firsts) {
			next = []byte(firsts[b+1])
		}
		read := int64(0)
		err := Protect(func() error {
			it := t.NewIterator(table.NOCACHE)
			defer it.Close()
			for it.Seek([]byte(first)); it.Valid(); it.Next() {
				k := it.Key()
				if next != nil && y.CompareKeys(k, next) >= 0 {
					break
				}
				if len(k) < 8 {
					return fmt.Errorf("key %q: shorter than its version", k)
				}
				vs := it.Value()
				fn(&Entry{Key: y.ParseKey(k), Version: y.ParseTs(k), Meta: vs.Meta, Value: vs.Value})
				read++
			}
			if read == 0 {
				return errors.New("unreadable (a checksum or its structure does not match)")
			}
			return nil
		})
		n += read
		if err != nil {
			bad(Damage{File: name, Block: b, Err: err})
		}
	}
	if n != int64(t.KeyCount()) && n > 0 {
		// Entries lost inside blocks that were read in part.
		bad(Damage{File: name, Block: -1, Err: fmt.Errorf("read %d of its %d entries", n, t.KeyCount())})
	}
	return n
}

// isFault reports whether the recovered panic r is a memory fault (of
// a goroutine that called debug.SetPanicOnFault): a read of a mapped
// file past its end, the file having been truncated.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

// Protect calls f, turning a panic into an error.
func Protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = PanicError(r)
		}
	}()
	return f()
}
