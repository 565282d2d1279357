package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
)

// damageDocs is the number of documents of the store the damage tests
// scribble over: a table of a few hundred blocks.
const damageDocs = 2000

var (
	pristineOnce sync.Once
	pristineDir  string
	pristineErr  error
)

// pristine returns a directory holding a closed store of damageDocs
// killDocs, made once per test binary (loaded: a few tables), and the
// name of the table with the most document records.
func pristine(t testing.TB) (string, string) {
	t.Helper()
	pristineOnce.Do(func() {
		dir, err := os.MkdirTemp("", "badgerstore-pristine-*")
		if err != nil {
			pristineErr = err
			return
		}
		pristineDir = filepath.Join(dir, "idx")
		x, err := OpenIndex(context.Background(), pristineDir, nil, &index.Options{AnalyzerID: "damage-test"})
		if err != nil {
			pristineErr = err
			return
		}
		if _, err := x.Load(context.Background(), func(yield func(index.Doc) bool) {
			for i := range damageDocs {
				if !yield(killDoc(i)) {
					return
				}
			}
		}); err != nil {
			pristineErr = err
		}
		if err := x.Close(); err != nil && pristineErr == nil {
			pristineErr = err
		}
	})
	if pristineErr != nil {
		t.Fatal(pristineErr)
	}
	names, err := tablecheck.TableFiles(pristineDir)
	if err != nil || len(names) == 0 {
		t.Fatalf("pristine store: tables %v, %v", names, err)
	}
	best, most := "", -1
	for _, name := range names {
		if n, _ := tableRecords(t, pristineDir, name); n > most {
			best, most = name, n
		}
	}
	return pristineDir, best
}

// tableRecords returns the number of document records in the table
// file name of dir (one its MANIFEST lists) and whether it holds the
// metadata.
func tableRecords(t testing.TB, dir, name string) (int, bool) {
	t.Helper()
	files, err := tablecheck.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(files, func(f tablecheck.File) bool { return f.Name == name })
	if i < 0 {
		t.Fatalf("%s: the MANIFEST does not list %s", dir, name)
	}
	n, meta := 0, false
	tablecheck.Walk(dir, files[i], func(e *tablecheck.Entry) {
		switch e.Key[0] {
		case kindDoc:
			n++
		case kindMeta:
			meta = true
		}
	}, func(d Damage) { t.Fatalf("pristine table: %v", d) })
	return n, meta
}

// copyStore copies the pristine store into a new directory.
func copyStore(t testing.TB) (string, string) {
	t.Helper()
	src, sst := pristine(t)
	dst := filepath.Join(t.TempDir(), "idx")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst, sst
}

// scribble writes n runs of 64 random bytes at random places of the
// file path, as the reproduction did, in the first share of it
// (1: anywhere).
func scribble(t testing.TB, path string, n int, seed uint64, share float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	for range n {
		off := r.IntN(max(1, int(float64(len(b))*share)-64))
		for i := off; i < off+64 && i < len(b); i++ {
			b[i] = byte(r.Uint32())
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// useDamaged opens the store in dir read-write and read-only and reads
// the record of every document (every step-th: 1 for all) and the
// postings of every 40th. Nothing may panic; every error must wrap
// index.ErrCorrupt and name dir. It returns the first error and the
// number of documents whose records were read back intact.
func useDamaged(t *testing.T, dir string, step int) (error, int) {
	t.Helper()
	var first error
	intact := 0
	for _, ro := range []bool{false, true} {
		x, err := OpenIndex(t.Context(), dir, &Options{ReadOnly: ro}, nil)
		if err != nil {
			if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), dir) {
				t.Errorf("open (read-only %v): %v; want an error wrapping ErrCorrupt naming %s", ro, err, dir)
			}
			if first == nil {
				first = err
			}
			continue
		}
		n := 0
		for i := 0; i < damageDocs; i += step {
			d := killDoc(i)
			got, err := x.Get(t.Context(), d.ID)
			if err == nil && got.Fingerprint == d.Fingerprint && got.Title == d.Title {
				n++
			}
			if err != nil && !errors.Is(err, index.ErrCorrupt) {
				// ErrNotFound too: a damaged block must not read as
				// missing keys.
				t.Errorf("Get %s: %v; want the document or ErrCorrupt", d.ID, err)
			}
			if i%(40*step) != 0 {
				continue
			}
			if _, err := x.Similar(t.Context(), &d, 3); err != nil && !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("Similar %s: %v; want ErrCorrupt", d.ID, err)
			}
		}
		if _, err := x.Stats(t.Context()); err != nil && !errors.Is(err, index.ErrCorrupt) {
			t.Errorf("Stats: %v", err)
		}
		x.Close()
		intact = n
	}
	return first, intact
}

// checkSalvage salvages dir into a new directory and checks that every
// salvaged document is the one that was added, that the new store
// verifies clean, and that it holds at least least documents.
func checkSalvage(t *testing.T, dir string, least int) int {
	t.Helper()
	out := filepath.Join(t.TempDir(), "salvaged")
	r, n, err := Salvage(t.Context(), dir, out, nil)
	if err != nil {
		t.Fatalf("Salvage: %v", err)
	}
	if n < least || n > damageDocs || int64(n) != r.Records {
		t.Errorf("Salvage: %d documents (report: %d records); want %d to %d", n, r.Records, least, damageDocs)
	}
	if r.Dir != dir || r.Salvaged == nil || *r.Salvaged != n || r.Into != out {
		t.Errorf("Salvage: report of %s, salvaged %v into %s; want %s, %d, %s", r.Dir, r.Salvaged, r.Into, dir, n, out)
	}
	x, err := OpenIndex(t.Context(), out, &Options{ReadOnly: true}, &index.Options{AnalyzerID: "damage-test"})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i := range damageDocs {
		d := killDoc(i)
		got, err := x.Get(t.Context(), d.ID)
		if errors.Is(err, index.ErrNotFound) {
			continue
		}
		if err != nil || got.Fingerprint != d.Fingerprint || got.ContentHash != d.ContentHash || got.Title != d.Title || got.Sketch != d.Sketch {
			t.Fatalf("salvaged %s: %+v, %v; want the document added", d.ID, got, err)
		}
		if ids, err := x.Exact(t.Context(), d.ContentHash); err != nil || !slices.Contains(ids, d.ID) {
			t.Fatalf("salvaged %s is not found by its content hash: %v, %v", d.ID, ids, err)
		}
		found++
	}
	x.Close()
	if found != n {
		t.Errorf("found %d salvaged documents, Salvage says %d", found, n)
	}
	if vr, err := Verify(t.Context(), out); err != nil || vr.Damage == nil || len(vr.Damage) != 0 || vr.Records != int64(n) || vr.Dir != out || vr.Salvaged != nil {
		t.Errorf("Verify of the salvaged store: %+v, %v; want %d records, no damage", vr, err, n)
	}
	return n
}

// TestDamagedStore damages each kind of file of a store's directory the
// ways of issue 19 and checks that nothing panics, that the errors name
// the directory and the damaged file, that Verify finds the damage and
// that Salvage copies what is readable.
func TestDamagedStore(t *testing.T) {
	_, sst := pristine(t)
	size := func(dir, name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		// openErr, if not empty, is in the error of every Open.
		openErr string
		// file is the file Verify must name ("" for none: harmless).
		file string
		// salvage is the least Salvage must copy; -1: Salvage fails
		// (the metadata is lost).
		salvage int
	}{
		{"truncated table", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, sst), size(dir, sst)*6/10); err != nil {
				t.Fatal(err)
			}
		}, sst + ": its footer or index does not parse", sst, -1},
		{"table cut to 10 bytes", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, sst), 10); err != nil {
				t.Fatal(err)
			}
		}, sst + ":", sst, -1},
		{"empty table", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, sst), 0); err != nil {
				t.Fatal(err)
			}
		}, sst + ": empty file", sst, -1},
		// 19 runs of 64 bytes in the blocks (the first half of the
		// table; its index is at the end): at most 19 blocks of about
		// 60 records are lost.
		{"table blocks scribbled at 19 places, seed 1", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, sst), 19, 1, 0.5) }, "", sst, damageDocs - 19*60},
		{"table blocks scribbled at 19 places, seed 2", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, sst), 19, 2, 0.5) }, "", sst, damageDocs - 19*60},
		{"table's last 64 bytes", func(t *testing.T, dir string) {
			p := filepath.Join(dir, sst)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(make([]byte, 64), size(dir, sst)-64); err != nil {
				t.Fatal(err)
			}
		}, sst + ":", sst, -1},
		{"MANIFEST", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "MANIFEST"), 1, 1, 1) }, "MANIFEST:", "MANIFEST", damageDocs},
		{"KEYREGISTRY", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "KEYREGISTRY"), 1, 1, 1) }, "KEYREGISTRY:", "KEYREGISTRY", damageDocs},
		{"value log", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "000001.vlog"), 1, 1, 1) }, "000001.vlog:", "000001.vlog", damageDocs},
		{"DISCARD", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "DISCARD"), 19, 1, 1) }, "", "", damageDocs},
		{"saved filters", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, filtersFile), 19, 1, 1) }, "", "", damageDocs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := copyStore(t)
			tc.damage(t, dir)
			openErr, intact := useDamaged(t, dir, 1)
			switch {
			case tc.openErr != "" && (openErr == nil || !strings.Contains(openErr.Error(), tc.openErr)):
				t.Errorf("open: %v; want an error containing %q", openErr, tc.openErr)
			case tc.openErr == "" && openErr != nil:
				t.Errorf("open: %v; want it to open", openErr)
			case tc.file == "" && intact != damageDocs:
				t.Errorf("%d documents read back intact; want all %d", intact, damageDocs)
			}
			r, err := Verify(t.Context(), dir)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			var files []string
			for _, d := range r.Damage {
				files = append(files, d.File)
			}
			switch {
			case tc.file == "" && len(r.Damage) != 0:
				t.Errorf("Verify: damage %v; want none", r.Damage)
			case tc.file == "" && r.Records != damageDocs:
				t.Errorf("Verify: %d records; want %d", r.Records, damageDocs)
			case tc.file != "" && !slices.Contains(files, tc.file):
				t.Errorf("Verify: damage %v; want some in %s", r.Damage, tc.file)
			}
			if tc.salvage < 0 {
				// The whole table is lost: the others' records are
				// salvaged, unless it held the metadata.
				src, _ := pristine(t)
				if lost, meta := tableRecords(t, src, sst); !meta {
					if n := checkSalvage(t, dir, damageDocs-lost); n != damageDocs-lost {
						t.Errorf("Salvage: %d documents; want %d (all but the %d of %s)", n, damageDocs-lost, lost, sst)
					}
					return
				}
				out := filepath.Join(t.TempDir(), "salvaged")
				if _, _, err := Salvage(t.Context(), dir, out, nil); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "metadata cannot be read") {
					t.Errorf("Salvage: %v; want its metadata unreadable", err)
				}
				return
			}
			checkSalvage(t, dir, tc.salvage)
		})
	}
}

// TestVerifyPristine: a store with no damage verifies clean, every
// entry and record counted.
func TestVerifyPristine(t *testing.T) {
	dir, _ := pristine(t)
	r, err := Verify(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// Per document: 4 table keys, a content key, a record and its
	// number's ID; every fourth has 16 band keys. Then 3 metadata
	// values and the store's two settings (numbered postings, the next
	// number).
	want := int64(damageDocs*7 + damageDocs/4*16 + 3 + 2)
	if names, _ := tablecheck.TableFiles(dir); r.Tables != len(names) || r.Entries != want || r.Records != damageDocs || len(r.Damage) != 0 {
		t.Errorf("Verify: %+v; want every table, %d entries, %d records, no damage", r, want, damageDocs)
	}
}

// TestSalvageRefuses: the output must be another, empty directory.
func TestSalvageRefuses(t *testing.T) {
	dir, _ := copyStore(t)
	if _, _, err := Salvage(t.Context(), dir, dir+"/", nil); err == nil || !strings.Contains(err.Error(), "another directory") {
		t.Errorf("Salvage into itself: %v", err)
	}
	other, _ := copyStore(t)
	if _, _, err := Salvage(t.Context(), dir, other, nil); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Salvage into a store: %v; want ErrNotEmpty", err)
	}
}

// FuzzDamagedTable writes the fuzzer's bytes over the table of a small
// store at the fuzzer's offset: opening, reading, Verify and Salvage
// must not panic, and every error must say the index is corrupt.
func FuzzDamagedTable(f *testing.F) {
	f.Add(uint32(0), []byte("\xff\xff\xff\xff"))
	f.Add(uint32(1<<31), []byte("\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(uint32(12345), []byte("garbage over a block"))
	f.Fuzz(func(t *testing.T, off uint32, b []byte) {
		if len(b) == 0 || len(b) > 256 {
			return
		}
		dir, sst := copyStore(t)
		p := filepath.Join(dir, sst)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o := int(off) % len(data)
		copy(data[o:], b)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, dir, 97)
		if _, err := Verify(t.Context(), dir); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		_, _, err = Salvage(t.Context(), dir, filepath.Join(t.TempDir(), "out"), nil)
		if err != nil && !errors.Is(err, index.ErrCorrupt) {
			t.Fatalf("Salvage: %v", err)
		}
	})
}

// scribbleInPlace writes n runs of 64 random bytes over the first share
// of the file path where they are (as scribble does, but without
// rewriting the file): a store that has the file mapped sees them.
func scribbleInPlace(t testing.TB, path string, n int, seed uint64, share float64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, 64)
	for range n {
		off := r.IntN(max(1, int(float64(fi.Size())*share)-64))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if _, err := f.WriteAt(b, int64(off)); err != nil {
			t.Fatal(err)
		}
	}
}

// blockNamed matches the name of a table's block, or of a table whose
// index is damaged, in an error.
var blockNamed = regexp.MustCompile(`[0-9]{6}\.sst( block [0-9]+( record "[^"]+")?: unreadable|( record "[^"]+")?: its index \(block offsets and keys, Bloom filter\) changed since the archive was opened)`)

// TestDamageAfterOpen: table blocks damaged while the store is open (a
// long-running serve, a file overwritten between Open and a read) make
// the reads that meet them fail with an error naming the directory and
// the table, never miss a document: every document is found by its ID
// (Get), its content hash (Exact) and its fingerprint (Near), or the
// read fails with ErrCorrupt. Badger itself reads such a block as
// missing keys.
func TestDamageAfterOpen(t *testing.T) {
	for _, tc := range []struct {
		name     string
		loaded   bool // the tables are written after Open, by Load
		readOnly bool
		iterate  bool // check with Badger's table iterator, as for compressed tables
		compress bool // the tables written after open compressed (Options.Compress)
		// readAll: every document is read before the damage, so that
		// the blocks of a compressed table are checked by their CRC.
		readAll bool
	}{
		{"opened read-write", false, false, false, false, false},
		{"opened read-only", false, true, false, false, false},
		{"tables written after open", true, false, false, false, false},
		{"opened read-only, compressed tables' check", false, true, true, false, false},
		{"compressed tables written after open", true, false, false, true, false},
		{"compressed tables, every block read before the damage", true, false, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x *index.Index
			var dir string
			var err error
			if tc.loaded {
				dir = filepath.Join(t.TempDir(), "idx")
				x, err = OpenIndex(t.Context(), dir, &Options{Compress: tc.compress}, &index.Options{AnalyzerID: "damage-test"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := x.Load(t.Context(), func(yield func(index.Doc) bool) {
					for i := range damageDocs {
						if !yield(killDoc(i)) {
							return
						}
					}
				}); err != nil {
					t.Fatal(err)
				}
			} else {
				dir, _ = copyStore(t)
				s, err := Open(dir, &Options{ReadOnly: tc.readOnly})
				if err != nil {
					t.Fatal(err)
				}
				if tc.iterate {
					// Tables this package writes are uncompressed; an
					// index written with Badger's default compression
					// has its blocks read with the table iterator.
					if _, release, err := s.shadow.View(s.db); err != nil {
						t.Fatal(err)
					} else {
						release()
					}
					if !s.shadow.IterateOnly() {
						t.Fatal("a table with no block index")
					}
				}
				if x, err = index.New(t.Context(), s, nil); err != nil {
					t.Fatal(err)
				}
			}
			defer x.Close()
			// Every document is there before the damage.
			if got, err := x.Get(t.Context(), killDoc(damageDocs-1).ID); err != nil || got.Title != killDoc(damageDocs-1).Title {
				t.Fatalf("Get before the damage: %+v, %v", got, err)
			}
			for i := range damageDocs {
				if !tc.readAll {
					break
				}
				d := killDoc(i)
				if got, err := x.Get(t.Context(), d.ID); err != nil || got.Title != d.Title {
					t.Fatalf("Get %s before the damage: %+v, %v", d.ID, got, err)
				}
				if ids, err := x.Exact(t.Context(), d.ContentHash); err != nil || !slices.Contains(ids, d.ID) {
					t.Fatalf("Exact %s before the damage: %v, %v", d.ID, ids, err)
				}
				if ms, err := x.Near(t.Context(), d.Fingerprint, 0); err != nil || len(ms) == 0 {
					t.Fatalf("Near %s before the damage: %v, %v", d.ID, ms, err)
				}
			}
			// Every table: Load writes the records, the content keys,
			// the band keys and each SimHash table's keys to tables of
			// their own.
			names, err := tablecheck.TableFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range names {
				scribbleInPlace(t, filepath.Join(dir, name), 19, uint64(i+1), 0.5)
			}

			corrupt := map[string]int{}
			check := func(what string, d index.Doc, found bool, err error) {
				t.Helper()
				switch {
				case errors.Is(err, index.ErrCorrupt):
					if msg := err.Error(); !strings.Contains(msg, dir) || !blockNamed.MatchString(msg) {
						t.Errorf("%s %s: %v; want the error to name %s and a table's block or index", what, d.ID, err, dir)
					}
					if corrupt[what] == 0 {
						t.Logf("%s %s: %v", what, d.ID, err)
					}
					corrupt[what]++
				case err != nil:
					t.Errorf("%s %s: %v; want it found or ErrCorrupt", what, d.ID, err)
				case !found:
					t.Errorf("%s %s: not found, and no error: a damaged block read as missing keys", what, d.ID)
				}
			}
			for i := range damageDocs {
				d := killDoc(i)
				got, err := x.Get(t.Context(), d.ID)
				check("Get", d, err == nil && got.Fingerprint == d.Fingerprint && got.Title == d.Title, err)
				ids, err := x.Exact(t.Context(), d.ContentHash)
				check("Exact", d, slices.Contains(ids, d.ID), err)
				ms, err := x.Near(t.Context(), d.Fingerprint, 0)
				check("Near", d, slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == d.ID }), err)
			}
			// 19 runs of 64 bytes hit blocks of records, content keys
			// and table keys alike (the seed's placement, checked).
			for _, what := range []string{"Get", "Exact", "Near"} {
				if corrupt[what] == 0 {
					t.Errorf("%s: no read failed with ErrCorrupt; want the damaged blocks found (%v)", what, corrupt)
				}
			}
		})
	}
}

// TestDamagedValueLog: a record kept in the value log (1 MiB or more)
// whose bytes are damaged after it was written reads as an error naming
// the directory, the value log and the document, not as a missing
// record (Badger logs the checksum error and reads the value as empty),
// by Records and ScanRecords; Verify names it too.
func TestDamagedValueLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The format, so that Verify opens it as an index.
	if _, err := s.Claim(t.Context(), map[string][]byte{index.MetaFormat: {index.FormatVersion}}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, valueThreshold+4096)
	r := rand.New(rand.NewPCG(19, 19))
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	small := []byte("a record kept in a table")
	err = s.Apply(t.Context(), &index.Batch{Writes: []index.Write{
		{ID: "big", Record: big, Keys: []index.Key{{Kind: index.KindContent, Value: 1}}},
		{ID: "small", Record: small, Keys: []index.Key{{Kind: index.KindContent, Value: 2}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.Records(t.Context(), []string{"big", "small"})
	if err != nil || !bytes.Equal(recs[0], big) || !bytes.Equal(recs[1], small) {
		t.Fatalf("Records before the damage: %d and %q bytes, %v", len(recs[0]), recs[1], err)
	}

	vlog := filepath.Join(dir, "000001.vlog")
	data, err := os.ReadFile(vlog)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(data, big[:64])
	if off < 0 {
		t.Fatalf("the big record is not in %s", vlog)
	}
	f, err := os.OpenFile(vlog, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 64), int64(off+len(big)/2)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	want := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), `000001.vlog record "big": `) {
			t.Errorf("%s: %v; want ErrCorrupt naming %s, 000001.vlog and the record", what, err, dir)
		}
	}
	recs, err = s.Records(t.Context(), []string{"small", "big"})
	want("Records", err)
	if recs != nil {
		t.Errorf("Records: %d records along with the error", len(recs))
	}
	if recs, err := s.Records(t.Context(), []string{"small"}); err != nil || !bytes.Equal(recs[0], small) {
		t.Errorf("Records of the record in a table: %q, %v", recs, err)
	}
	want("ScanRecords", s.ScanRecords(t.Context(), func(string, []byte) error { return nil }))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	rep, err := Verify(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range rep.Damage {
		found = found || d.File == "000001.vlog"
	}
	if !found {
		t.Errorf("Verify: damage %v; want 000001.vlog named", rep.Damage)
	}
}

// TestDamagedTableIndex: a table's index overwritten while the store is
// open (here its Bloom filter, zeroed: Badger's Get then skips the
// table, and every record in it reads as missing) is found by the
// verification of one table's index every tablecheck.IndexCheckEvery reads: after
// at most that many reads for each table, every read of the table fails
// with ErrCorrupt naming it, and none misses a document.
func TestDamagedTableIndex(t *testing.T) {
	dir, sst := copyStore(t)
	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.New(t.Context(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	tables, err := tablecheck.TableFiles(dir)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, sst)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off, n, err := tablecheck.BloomFilter(data)
	if err != nil || n < 64 {
		t.Fatalf("%s: Bloom filter of %d bytes at %d: %v", sst, n, off, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, n), int64(off)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	reads, found := 0, -1
	for pass := range 2 {
		missed := 0
		for i := range damageDocs {
			d := killDoc(i)
			got, err := x.Get(t.Context(), d.ID)
			reads++
			switch {
			case errors.Is(err, index.ErrCorrupt):
				if msg := err.Error(); !strings.Contains(msg, sst+` record "`+d.ID+`": its index (block offsets and keys, Bloom filter) changed since the archive was opened`) || !strings.Contains(msg, dir) {
					t.Fatalf("Get %s: %v; want %s's index named", d.ID, err, sst)
				}
				if found < 0 {
					found = reads
				}
			case errors.Is(err, index.ErrNotFound):
				missed++
			case err != nil:
				t.Fatalf("Get %s: %v", d.ID, err)
			case got.Title != d.Title:
				t.Fatalf("Get %s: %+v", d.ID, got)
			}
		}
		if pass == 1 && missed > 0 {
			t.Errorf("after the index was found damaged, %d documents read as missing", missed)
		}
	}
	if found < 0 || found > tablecheck.IndexCheckEvery*len(tables) {
		t.Errorf("the damaged index was found at read %d; want it within %d reads (%d tables)", found, tablecheck.IndexCheckEvery*len(tables), len(tables))
	}
}
