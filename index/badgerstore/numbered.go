package badgerstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
	"github.com/neardup/neardup/simhash"
)

// readLayout finds whether the store's postings are numbered ('M'
// "postings" is "numbered", or the store is new) or end in IDs (a store
// written before issue #27, which holds keys and no such setting), and
// the number the next new document gets: one more than the highest
// 'n' key's.
func (s *Store) readLayout() (err error) {
	defer s.recoverTo("reading metadata", &err)
	var setting, records, tables []byte
	var empty bool
	var last uint64
	err = s.read(func(txn *badger.Txn, tabs []*tablecheck.Table) error {
		v, err := s.get(txn, tabs, storeMetaKey(metaPostings))
		switch {
		case err == nil:
			setting = v
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		switch v, err := s.get(txn, tabs, storeMetaKey(metaRecords)); {
		case err == nil:
			records = v
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		switch v, err := s.get(txn, tabs, storeMetaKey(metaTables)); {
		case err == nil:
			tables = v
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		switch v, err := s.get(txn, tabs, storeMetaKey(metaNext)); {
		case err == nil && len(v) == numLen:
			last = max(last, readNum(v)-1)
		case err == nil:
			return fmt.Errorf("%w: next number %x: want %d bytes", ErrCorrupt, v, numLen)
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{})
		it.Rewind()
		// A Load of a numbered store cut short before its settings
		// landed wrote nothing but numbered keys after dropping
		// everything: it is read as a new store is.
		empty = !it.Valid() || s.loadCut
		it.Close()
		prefix := []byte{kindNum}
		rt := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer rt.Close()
		rt.Seek([]byte{kindNum, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		if rt.Valid() {
			key := rt.Item().Key()
			if len(key) != 1+numLen {
				return fmt.Errorf("%w: number key %x: want 'n' and %d bytes", ErrCorrupt, key, numLen)
			}
			last = max(last, readNum(key[1:]))
		}
		return s.shadow.CheckRead(tabs, prefix, false)
	})
	if err != nil {
		return fmt.Errorf("index: %s: reading metadata: %w", s.dir, err)
	}
	switch {
	case string(setting) == postingsNum:
		s.numbered = true
	case setting != nil:
		return fmt.Errorf("index: %s: %w: postings setting %q: want %q", s.dir, ErrCorrupt, setting, postingsNum)
	case empty:
		s.numbered, s.mark = true, !s.readOnly
	}
	switch {
	case string(records) == recordsLean:
		s.lean = true
	case records != nil:
		return fmt.Errorf("index: %s: %w: records setting %q: want %q", s.dir, ErrCorrupt, records, recordsLean)
	case !empty || s.readOnly:
		s.lean = false // an existing store keeps its records whole
	}
	switch {
	case string(tables) == tablesZstd:
		s.compress = true
	case tables != nil:
		return fmt.Errorf("index: %s: %w: tables setting %q: want %q", s.dir, ErrCorrupt, tables, tablesZstd)
	case !empty || s.readOnly:
		s.compress = false // an existing store keeps writing uncompressed tables
	}
	s.next = last + 1
	return nil
}

// setMark records, in the first write of a new store, that its
// postings are numbered, and whether it keeps lean records and writes
// compressed tables.
func (s *Store) setMark(txn *badger.Txn) error {
	if !s.mark {
		return nil
	}
	for _, kv := range s.settings() {
		if err := txn.Set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// settings are the 'M' keys and values that a new store records about
// itself in its first write, sorted by key (as Load writes them).
func (s *Store) settings() [][2][]byte {
	kv := [][2][]byte{{storeMetaKey(metaPostings), []byte(postingsNum)}}
	if s.lean {
		kv = append(kv, [2][]byte{storeMetaKey(metaRecords), []byte(recordsLean)})
	}
	if s.compress {
		kv = append(kv, [2][]byte{storeMetaKey(metaTables), []byte(tablesZstd)})
	}
	return kv
}

// PostingsNear implements index.NearPostings: of the postings under a
// table key, a numbered store resolves to IDs only those within k bits
// of the key's fingerprint in fps.
func (s *Store) PostingsNear(ctx context.Context, keys []index.Key, fps []simhash.Fingerprint, k int) ([][]index.Posting, error) {
	if len(fps) != len(keys) {
		return nil, fmt.Errorf("index: %s: postings: %d keys and %d fingerprints", s.dir, len(keys), len(fps))
	}
	return s.postingsOf(ctx, keys, fps, k)
}

// numPosting is a numbered posting before its number is resolved.
type numPosting struct {
	num uint64
	fp  simhash.Fingerprint
	at  int // the key's index
}

// numPostings appends to ps the postings under prefix of a numbered
// store, with at, leaving out table postings more than k bits from fp
// when k >= 0.
func (s *Store) numPostings(txn *badger.Txn, tabs []*tablecheck.Table, prefix []byte, table bool, fp simhash.Fingerprint, k, at int, ps []numPosting) (_ []numPosting, err error) {
	defer s.named(tabs, prefix, false, &err)
	n := len(prefix)
	want := n + numLen
	if table {
		want += 8
	}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		key := it.Item().Key()
		if len(key) != want {
			return nil, fmt.Errorf("index: %s: posting key %x: %w: %d bytes, want %d", s.dir, key, ErrCorrupt, len(key), want)
		}
		p := numPosting{at: at}
		if table {
			p.fp = simhash.Fingerprint(binary.BigEndian.Uint64(key[n:]))
			if k >= 0 && fp.Distance(p.fp) > k {
				continue
			}
			p.num = readNum(key[n+8:])
		} else {
			p.num = readNum(key[n:])
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// resolve appends to out[p.at] the posting of each of ps whose number
// has an ID ('n' number), reading the numbers in order, each once. A
// number without one (a document deleted in a write this read does not
// see in full) is left out.
func (s *Store) resolve(txn *badger.Txn, tabs []*tablecheck.Table, ps []numPosting, out [][]index.Posting) error {
	slices.SortFunc(ps, func(a, b numPosting) int { return cmp.Compare(a.num, b.num) })
	var id string
	for i, p := range ps {
		if i == 0 || p.num != ps[i-1].num {
			v, err := s.getNamed(txn, tabs, numKey(p.num))
			switch {
			case errors.Is(err, badger.ErrKeyNotFound):
				id = ""
			case err != nil:
				return err
			default:
				id = string(v)
			}
		}
		if id != "" {
			out[p.at] = append(out[p.at], index.Posting{ID: id, Fingerprint: p.fp, Num: postingNum(p.num)})
		}
	}
	return nil
}

// fillNum writes w into txn, in a numbered store: its old postings
// (under its old number) deleted, its record set with its number (its
// old one, or the next) and its postings added, or its record and
// number deleted. nums are the numbers of the documents written by the
// transaction being filled and by the earlier ones of the same Apply,
// which txn does not show (0: deleted); the first gets w's. It returns
// removed with the content hashes of the postings deleted, and the
// change in the number of documents. The postings of a write without a
// record are not kept: there is no number to file them under.
func (s *Store) fillNum(txn *badger.Txn, w *index.Write, nums [2]map[string]uint64, removed []uint64) ([]uint64, int64, error) {
	old, had := nums[0][w.ID]
	if !had {
		old, had = nums[1][w.ID]
	}
	if !had {
		s.bmu.RLock()
		had = !s.ids.mayContain(xxhash.Sum64String(w.ID)) // no record: none to read
		s.bmu.RUnlock()
	}
	if !had {
		item, err := txn.Get(docKey(w.ID))
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return nil, 0, s.writeErr("add", w.ID, err)
		default:
			err := item.Value(func(v []byte) error {
				n, _, err := splitDocValue(v)
				old = n
				return err
			})
			if err != nil {
				return nil, 0, fmt.Errorf("index: %s: reading document %q: %w", s.dir, w.ID, err)
			}
		}
	}
	var key []byte
	if old != 0 {
		for _, k := range w.OldKeys {
			key = appendNumPostingKey(key[:0], k, w.OldFingerprint, old)
			if err := txn.Delete(append([]byte(nil), key...)); err != nil {
				return nil, 0, s.writeErr("delete", w.ID, err)
			}
			if k.Kind == index.KindContent {
				removed = append(removed, k.Value)
			}
		}
	}
	if w.Record == nil {
		nums[0][w.ID] = 0
		if old == 0 {
			return removed, 0, nil
		}
		if err := txn.Delete(docKey(w.ID)); err != nil {
			return nil, 0, s.writeErr("delete", w.ID, err)
		}
		if err := txn.Delete(numKey(old)); err != nil {
			return nil, 0, s.writeErr("delete", w.ID, err)
		}
		s.logMem(w, old, 0, nil)
		return removed, -1, nil
	}
	num, added := old, int64(0)
	if num != 0 && s.lean {
		// A lean record keeps band digests, not the sketch its band
		// keys come from (index.BatchRecord), so that OldKeys lack
		// them: the old number is retired with whatever postings are
		// left under it, which then resolve to no ID, and the record
		// gets a new one.
		if err := txn.Delete(numKey(num)); err != nil {
			return nil, 0, s.writeErr("add", w.ID, err)
		}
		num = 0
	}
	if num == 0 {
		if s.next > maxNum {
			return nil, 0, fmt.Errorf("index: %s: add %q: the store has numbered %d documents, its most", s.dir, w.ID, int64(maxNum))
		}
		num = s.next
		s.next++
		if old == 0 {
			added = 1
		}
	}
	// Set again when the number is kept: a Load cut short may have
	// written a record and not its number's ID, which adding the
	// document again then repairs.
	if err := txn.Set(numKey(num), []byte(w.ID)); err != nil {
		return nil, 0, s.writeErr("add", w.ID, err)
	}
	nums[0][w.ID] = num
	for _, k := range w.Keys {
		key = appendNumPostingKey(key[:0], k, w.Fingerprint, num)
		if err := txn.Set(append([]byte(nil), key...), nil); err != nil {
			return nil, 0, s.writeErr("add", w.ID, err)
		}
	}
	v := appendNum(make([]byte, 0, numLen+len(w.Record)), num)
	if s.lean {
		var err error
		if v, err = index.BatchRecord(v, w.Record, w.ID); err != nil {
			return nil, 0, fmt.Errorf("index: %s: add %q: %w", s.dir, w.ID, err)
		}
	} else {
		v = append(v, w.Record...)
	}
	if err := txn.Set(docKey(w.ID), v); err != nil {
		return nil, 0, s.writeErr("add", w.ID, err)
	}
	s.logMem(w, old, num, v[numLen:])
	return removed, added, nil
}

// named is deferred by reads that Badger may panic in, on a damaged
// table (reading its index or a block it did not verify): the panic
// becomes the damage the store's checks find where the read was (key,
// a prefix unless point), naming the table and block, or else an error
// wrapping index.ErrCorrupt with the panic.
func (s *Store) named(tabs []*tablecheck.Table, key []byte, point bool, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if cerr := s.shadow.CheckRead(tabs, key, point); cerr != nil {
		*err = cerr
		return
	}
	*err = fmt.Errorf("index: %s: %w: %v", s.dir, index.ErrCorrupt, tablecheck.PanicError(r))
}

// getNamed is get, with a panic of Badger's turned into an error by
// named.
func (s *Store) getNamed(txn *badger.Txn, tabs []*tablecheck.Table, key []byte) (_ []byte, err error) {
	defer s.named(tabs, key, true, &err)
	return s.get(txn, tabs, key)
}
