package badgerstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/index"
)

// The postings file.
//
// Building the memory copy of the postings (mem.go) reads every posting
// key: about 14 µs a document on this 2-core machine, 14 s at 10^6,
// which each batch run would pay before its first article. So Close
// saves the copy to a file in the index directory, stamped, as the
// filters file is (filters.go), with the database's version, and an
// Open with Options.MemPostings loads it when the stamp equals the
// database's version (nothing was written since), and otherwise reads
// the keys as before. The file is a cache of what the store holds: a
// missing, damaged or stale one costs that read, nothing else.
//
// The file, all integers little-endian:
//
//	magic     8 bytes "NDPOST01"
//	stamp     8 bytes, the database version the copy describes
//	next      8 bytes, the number the next new document gets
//	lists     8 bytes, the number of posting lists, then for each:
//	  kind, table, width   1 byte each, then 5 zero bytes
//	  n       8 bytes, its postings
//	  values  n × 8 bytes, sorted
//	  numbers n × 4 bytes, none 0, then zero bytes to a multiple of 8
//	  fps     n × 8 bytes, in a table's list (kind 't') only
//	ids       8 bytes, the numbers' slots (the highest number + 1), then
//	          as many 8-byte slots (memIDs.at)
//	chunks    8 bytes, the number of ID chunks, then for each its
//	          length (8 bytes) and bytes, zero-padded to a multiple of 8
//	checksum  8 bytes, XXH64 of everything before it
const (
	postingsFile  = "neardup-postings"
	postingsMagic = "NDPOST01"
)

// errPostingsFile marks a postings file that cannot be used.
var errPostingsFile = errors.New("unusable postings file")

// savePostings writes m to the postings file for database version
// stamp, atomically. It merges every list's additions first.
func (s *Store) savePostings(m *memPostings, stamp uint64) error {
	path := filepath.Join(s.dir, postingsFile)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	sum := xxhash.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	writeMemPostings(w, m, stamp, s.next)
	err = w.Flush()
	if err == nil {
		_, err = f.Write(binary.LittleEndian.AppendUint64(nil, sum.Sum64()))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeMemPostings writes the file's body, without the checksum, to w
// (whose errors its Flush reports).
func writeMemPostings(w *bufio.Writer, m *memPostings, stamp, next uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		w.Write(b[:])
	}
	pad := func(n int) {
		w.Write(make([]byte, (8-n%8)%8))
	}
	w.WriteString(postingsMagic)
	put(stamp)
	put(next)
	kinds := make([]memKind, 0, len(m.lists))
	for mk, l := range m.lists {
		if l.nAdd > 0 || l.dead > 0 {
			l.merge()
		}
		kinds = append(kinds, mk)
	}
	slices.SortFunc(kinds, func(a, b memKind) int {
		return int(a.kind)<<16 + int(a.table)<<8 + int(a.width) - (int(b.kind)<<16 + int(b.table)<<8 + int(b.width))
	})
	put(uint64(len(kinds)))
	for _, mk := range kinds {
		l := m.lists[mk]
		w.Write([]byte{byte(mk.kind), mk.table, mk.width, 0, 0, 0, 0, 0})
		put(uint64(len(l.vals)))
		for _, v := range l.vals {
			put(v)
		}
		for _, n := range l.nums {
			w.Write(binary.LittleEndian.AppendUint32(b[:0], n))
		}
		pad(4 * len(l.nums))
		if l.table {
			for _, fp := range l.fps {
				put(fp)
			}
		}
	}
	put(uint64(len(m.ids.at)))
	for _, a := range m.ids.at {
		put(a)
	}
	put(uint64(len(m.ids.chunks)))
	for _, c := range m.ids.chunks {
		put(uint64(len(c)))
		w.Write(c)
		pad(len(c))
	}
}

// loadPostings reads the postings file if it describes database version
// stamp with next as the next number, and returns an error wrapping
// errPostingsFile (or the read error) if it does not.
func (s *Store) loadPostings(stamp uint64) (*memPostings, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, postingsFile))
	if err != nil {
		return nil, err
	}
	return readMemPostings(data, stamp, s.next)
}

// readMemPostings parses a postings file (see above) and checks that it
// is for stamp and next and that what it holds is well formed: sorted
// values, numbers below next, IDs inside their chunks.
func readMemPostings(data []byte, stamp, next uint64) (*memPostings, error) {
	if len(data) < len(postingsMagic)+8 || string(data[:len(postingsMagic)]) != postingsMagic {
		return nil, fmt.Errorf("%w: no header", errPostingsFile)
	}
	body := data[:len(data)-8]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(data[len(data)-8:]) {
		return nil, fmt.Errorf("%w: bad checksum", errPostingsFile)
	}
	r := memReader{b: body[len(postingsMagic):]}
	if st := r.u64(); st != stamp {
		return nil, fmt.Errorf("%w: made for database version %d, the database is at %d", errPostingsFile, st, stamp)
	}
	if n := r.u64(); n != next {
		return nil, fmt.Errorf("%w: next number %d, the store's is %d", errPostingsFile, n, next)
	}
	m := newMemPostings()
	lists := r.count(16)
	for range lists {
		h := r.take(8)
		if h == nil {
			break
		}
		if !zero(h[3:]) {
			return nil, fmt.Errorf("%w: list header %x", errPostingsFile, h)
		}
		mk := memKind{kind: index.Kind(h[0]), table: h[1], width: h[2]}
		if _, dup := m.lists[mk]; dup || mk.width == 0 || mk.width > 8 || !slices.Contains([]index.Kind{index.KindTable, index.KindBand, index.KindContent}, mk.kind) {
			return nil, fmt.Errorf("%w: list %q/%d/%d", errPostingsFile, h[0], h[1], h[2])
		}
		l := m.list(mk)
		per := 12
		if l.table {
			per = 20
		}
		n := r.count(per)
		l.vals = make([]uint64, n)
		for i := range l.vals {
			l.vals[i] = r.u64()
			if i > 0 && l.vals[i] < l.vals[i-1] {
				return nil, fmt.Errorf("%w: list %q/%d: values out of order", errPostingsFile, h[0], h[1])
			}
			if 8*int(mk.width) < 64 && l.vals[i]>>(8*uint(mk.width)) != 0 {
				return nil, fmt.Errorf("%w: list %q/%d: value %x wider than %d bytes", errPostingsFile, h[0], h[1], l.vals[i], mk.width)
			}
		}
		nb := r.take(4*n + (8-4*n%8)%8)
		if nb != nil && !zero(nb[4*n:]) {
			return nil, fmt.Errorf("%w: list %q/%d: padding %x", errPostingsFile, h[0], h[1], nb[4*n:])
		}
		l.nums = make([]uint32, n)
		for i := range l.nums {
			if nb == nil {
				break
			}
			l.nums[i] = binary.LittleEndian.Uint32(nb[4*i:])
			if l.nums[i] == 0 || uint64(l.nums[i]) >= next {
				return nil, fmt.Errorf("%w: list %q/%d: document number %d", errPostingsFile, h[0], h[1], l.nums[i])
			}
		}
		if l.table {
			l.fps = make([]uint64, n)
			for i := range l.fps {
				l.fps[i] = r.u64()
			}
		}
		l.index()
	}
	ids := r.count(8)
	if uint64(ids) > next+1 {
		return nil, fmt.Errorf("%w: %d ID slots for %d numbers", errPostingsFile, ids, next)
	}
	m.ids.at = make([]uint64, ids)
	for i := range m.ids.at {
		m.ids.at[i] = r.u64()
	}
	for range r.count(8) {
		n := r.count(1)
		if n > memChunk {
			return nil, fmt.Errorf("%w: an ID chunk of %d bytes", errPostingsFile, n)
		}
		c := r.take(n + (8-n%8)%8)
		if c == nil {
			break
		}
		if !zero(c[n:]) {
			return nil, fmt.Errorf("%w: ID chunk padding %x", errPostingsFile, c[n:])
		}
		m.ids.chunks = append(m.ids.chunks, append([]byte(nil), c[:n]...))
		m.ids.bytes += int64(n)
	}
	if last := len(m.ids.chunks) - 1; last >= 0 {
		// memIDs.set appends to the last chunk.
		m.ids.chunks[last] = append(make([]byte, 0, memChunk), m.ids.chunks[last]...)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the IDs", errPostingsFile, len(r.b))
	}
	for num, a := range m.ids.at {
		if a == 0 {
			continue
		}
		c, off, n := a>>(memOffBits+memLenBits), (a>>memLenBits)&(1<<memOffBits-1), a&(1<<memLenBits-1)
		if num == 0 || n == 0 || c >= uint64(len(m.ids.chunks)) || off+n > uint64(len(m.ids.chunks[c])) {
			return nil, fmt.Errorf("%w: the ID of number %d is outside its chunk", errPostingsFile, num)
		}
	}
	return m, nil
}

// memReader reads a postings file's fields, recording the first that
// runs past its end.
type memReader struct {
	b   []byte
	err error
}

func (r *memReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: cut short", errPostingsFile)
		}
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *memReader) u64() uint64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// count reads a count of items of at least per bytes each, 0 (and the
// error) when the rest of the file cannot hold them.
func (r *memReader) count(per int) int {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)/per) {
		r.err = fmt.Errorf("%w: %d items of %d bytes in %d bytes", errPostingsFile, n, per, len(r.b))
	}
	if r.err != nil || n > math.MaxInt32 {
		return 0
	}
	return int(n)
}

// zero reports whether b is all zero bytes (a postings file's padding).
func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
