package badgerstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
)

// Report is what Verify and Salvage found in a store's directory. Its
// JSON is neardup verify --json's; neardup verify writes its text.
type Report struct {
	Dir     string   `json:"index"`   // the directory verified
	Tables  int      `json:"tables"`  // table files read
	Entries int64    `json:"entries"` // entries read from them (every key and version)
	Records int64    `json:"records"` // document records decoded: with Verify, those Badger reads; with Salvage, the newest of each ID
	Damage  []Damage `json:"damage"`  // what could not be read, in the order found; empty, not nil, when nothing is damaged
	// Salvaged is the number of documents Salvage put into the store in
	// Into; nil from Verify.
	Salvaged *int   `json:"salvaged,omitempty"`
	Into     string `json:"-"`
}

// Verify checks the store in dir without writing to it: it reads every
// table file the MANIFEST lists (every one when it cannot be read)
// itself, block by block, verifying each block's checksum
// and reading every entry, then (when the tables are whole) opens the
// store read-only and reads every key through Badger (which reads the
// manifest, the key registry and the memtable logs too) and decodes
// every document record. A store with no damage returns a Report with
// an empty Damage; err is for a directory that cannot be verified at
// all (missing, or in use by a writer).
func Verify(ctx context.Context, dir string) (*Report, error) {
	tables, err := tablecheck.Files(dir)
	if err != nil {
		return nil, fmt.Errorf("index: verify %s: %w", dir, err)
	}
	r := &Report{Dir: dir, Damage: []Damage{}}
	for _, f := range tables {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.Tables++
		r.Entries += tablecheck.Walk(dir, f, func(*tablecheck.Entry) {}, func(d Damage) { r.Damage = append(r.Damage, d) })
	}
	if len(r.Damage) > 0 {
		return r, nil
	}
	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		if errors.Is(err, ErrInUse) || errors.Is(err, ErrNotFound) {
			return nil, err
		}
		var ce *corruptError
		if errors.As(err, &ce) {
			r.Damage = append(r.Damage, ce.Damage)
		} else {
			r.Damage = append(r.Damage, Damage{File: "(opening with Badger)", Block: -1, Err: err})
		}
		return r, nil
	}
	defer s.Close()
	err = tablecheck.Protect(func() error {
		return s.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				item := it.Item()
				key := item.Key()
				if len(key) == 0 || key[0] != kindDoc {
					continue
				}
				id := string(key[1:])
				rec, err := s.readValue(item)
				var ce *corruptError
				switch {
				case errors.As(err, &ce):
					r.Damage = append(r.Damage, ce.Damage)
					continue
				case err != nil:
					r.Damage = append(r.Damage, Damage{File: "value log", Block: -1, ID: id, Err: err})
					continue
				}
				if s.numbered {
					if _, rec, err = splitDocValue(rec); err != nil {
						r.Damage = append(r.Damage, Damage{File: "(through Badger)", Block: -1, ID: id, Err: err})
						continue
					}
				}
				if _, err := index.DecodeRecord(id, rec); err != nil {
					r.Damage = append(r.Damage, Damage{File: "(through Badger)", Block: -1, ID: id, Err: err})
					continue
				}
				r.Records++
			}
			return nil
		})
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return r, err
	}
	if err != nil {
		r.Damage = append(r.Damage, Damage{File: "(through Badger)", Block: -1, Err: err})
	}
	return r, nil
}

// Salvage copies what can be read of the store in dir into a new store
// in out, which must not hold documents: every document record it can
// read from the table files (those the MANIFEST lists; every one when
// it cannot be read) (the newest version of each; a record in a
// damaged block is lost, and a record deleted in a damaged block may
// come back) goes into an index with the same layout and analyzer,
// which files it under all its keys again (a lean record, which keeps
// band digests, gets its sketch back from its band postings:
// index.RestoreSketch), and keeps the store's settings (lean records,
// compressed tables) whatever opts say of them.
// The memtable logs (.mem files, the writes of a writer that did not
// close) are not read; they are reported as damage when they hold
// data. It returns the report and the number of documents out holds.
func Salvage(ctx context.Context, dir, out string, opts *Options) (*Report, int, error) {
	if a, b := filepath.Clean(dir), filepath.Clean(out); a == b {
		return nil, 0, fmt.Errorf("index: salvage %s: the output must be another directory", dir)
	}
	tables, err := tablecheck.Files(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("index: salvage %s: %w", dir, err)
	}
	r := &Report{Dir: dir, Damage: []Damage{}}
	keep, err := readNewest(ctx, dir, tables, r)
	if err != nil {
		return r, 0, err
	}
	for _, name := range memFiles(dir) {
		r.Damage = append(r.Damage, Damage{File: name, Block: -1, Err: errors.New("memtable log not read: the writes of a writer that did not close")})
	}
	format, lay, analyzer := keep.meta(index.MetaFormat), keep.meta(index.MetaLayout), keep.meta(index.MetaAnalyzer)
	if len(format) != 1 || format[0] != index.FormatVersion || len(lay) != 2 {
		return r, 0, fmt.Errorf("index: salvage %s: %w: its format and layout metadata cannot be read (format %v, layout %v)", dir, ErrCorrupt, format, lay)
	}
	docs := keep.docs(r)
	r.Records = int64(len(docs))
	if _, err := os.Stat(out); err == nil {
		if es, _ := os.ReadDir(out); len(es) > 0 {
			return r, 0, fmt.Errorf("index: salvage into %s: %w: the directory is not empty", out, ErrNotEmpty)
		}
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Lean = keep.setting(metaRecords) == recordsLean
	o.Compress = keep.setting(metaTables) == tablesZstd
	x, err := OpenIndex(ctx, out, &o, &index.Options{Blocks: int(lay[0]), MaxDistance: int(lay[1]), AnalyzerID: string(analyzer)})
	if err != nil {
		return r, 0, err
	}
	// The other named values (such as package reuse's "reuse") too.
	if others := keep.others(); len(others) > 0 {
		if _, err := x.Store().Claim(ctx, others); err != nil {
			x.Close()
			return r, 0, err
		}
	}
	n, err := x.Load(ctx, func(yield func(index.Doc) bool) {
		for _, d := range docs {
			if !yield(d) {
				return
			}
		}
	})
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	r.Salvaged, r.Into = &n, out
	return r, n, err
}

// newest is the newest version of a key that Salvage read.
type newest struct {
	version          uint64
	deleted, pointer bool
	value            []byte
}

// newestKeys are the document, metadata and band posting keys Salvage
// read, each at its newest version.
type newestKeys map[string]*newest

// readNewest reads the document and metadata entries of the table files
// of dir, keeping the newest version of each key, and counts the tables
// and entries read and the damage found in r.
func readNewest(ctx context.Context, dir string, tables []tablecheck.File, r *Report) (newestKeys, error) {
	keep := newestKeys{}
	for _, f := range tables {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.Tables++
		r.Entries += tablecheck.Walk(dir, f, func(e *tablecheck.Entry) {
			// Band postings of numbered stores too: a lean record keeps
			// band digests, which name no band keys (see docs).
			band := len(e.Key) == bandPrefixLen+numLen && e.Key[0] == byte(index.KindBand)
			if len(e.Key) == 0 || (e.Key[0] != kindDoc && e.Key[0] != kindMeta && e.Key[0] != kindStoreMeta && !band) {
				return
			}
			if n := keep[string(e.Key)]; n != nil && n.version >= e.Version {
				return
			}
			keep[string(e.Key)] = &newest{version: e.Version, deleted: e.Deleted(), pointer: e.InValueLog(), value: append([]byte(nil), e.Value...)}
		}, func(d Damage) { r.Damage = append(r.Damage, d) })
	}
	return keep, nil
}

// meta returns the named value name, nil when it is missing or deleted.
func (keep newestKeys) meta(name string) []byte {
	if n := keep[string(metaKey(name))]; n != nil && !n.deleted {
		return n.value
	}
	return nil
}

// docs decodes the documents kept, in ID order, noting in r those it
// cannot salvage: kept in the value log, or undecodable. A store with
// numbered postings starts its records with the number.
func (keep newestKeys) docs(r *Report) []index.Doc {
	numbered := false
	if n := keep[string(storeMetaKey(metaPostings))]; n != nil && !n.deleted && string(n.value) == postingsNum {
		numbered = true
	}
	var ids []string
	for k, n := range keep {
		if k[0] == kindDoc && !n.deleted {
			ids = append(ids, k)
		}
	}
	sort.Strings(ids)
	// The values of each number's band keys, for lean records
	// (index.RestoreSketch).
	type bandValues struct {
		v    [index.Bands]uint64
		seen [index.Bands]int
	}
	var bands map[uint64]*bandValues
	if numbered {
		bands = map[uint64]*bandValues{}
		for k, n := range keep {
			if k[0] != byte(index.KindBand) || len(k) != bandPrefixLen+numLen || n.deleted || int(k[1]) >= index.Bands {
				continue
			}
			num := readNum([]byte(k[bandPrefixLen:]))
			bv := bands[num]
			if bv == nil {
				bv = &bandValues{}
				bands[num] = bv
			}
			bv.v[k[1]] = binary.BigEndian.Uint64([]byte(k[2:bandPrefixLen]))
			bv.seen[k[1]]++
		}
	}
	var docs []index.Doc
	for _, k := range ids {
		n, id := keep[k], k[1:]
		if n.pointer {
			r.Damage = append(r.Damage, Damage{File: "value log", Block: -1, ID: id, Err: errors.New("record kept in the value log: not salvaged")})
			continue
		}
		rec := n.value
		var num uint64
		if numbered {
			var err error
			if num, rec, err = splitDocValue(rec); err != nil {
				r.Damage = append(r.Damage, Damage{File: "(table entry)", Block: -1, ID: id, Err: err})
				continue
			}
		}
		d, err := index.DecodeRecord(id, rec)
		if err != nil {
			r.Damage = append(r.Damage, Damage{File: "(table entry)", Block: -1, ID: id, Err: err})
			continue
		}
		// A lean record's band digests get the sketch back from its
		// number's band keys, one for each band; else the document is
		// filed under no band key.
		if bv := bands[num]; bv != nil && !slices.ContainsFunc(bv.seen[:], func(n int) bool { return n != 1 }) {
			index.RestoreSketch(&d, &bv.v)
		}
		docs = append(docs, d)
	}
	return docs
}

// setting returns the store setting name ('M' name) kept, "" when
// there is none.
func (keep newestKeys) setting(name string) string {
	if n := keep[string(storeMetaKey(name))]; n != nil && !n.deleted {
		return string(n.value)
	}
	return ""
}

// others returns the named values kept other than the format, layout
// and analyzer, which the new index writes itself.
func (keep newestKeys) others() map[string][]byte {
	others := map[string][]byte{}
	for k, n := range keep {
		name := k[1:]
		if k[0] == kindMeta && !n.deleted && name != index.MetaFormat && name != index.MetaLayout && name != index.MetaAnalyzer {
			others[name] = n.value
		}
	}
	return others
}
