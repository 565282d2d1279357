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

	"github.com/cespare/xxhash/v2"
)

// The filters file.
//
// The content-hash filter and the ID filter are built at Open by reading
// every content-hash key: about 2 µs a document, 20 s for 10 million,
// which every `neardup check` against a large archive would pay. So
// Close saves both filters to a file in the index directory, stamped
// with the database's version (Badger's highest commit timestamp, which
// every write raises), and Open loads them when the stamp equals the
// database's version, that is when nothing was written since they were
// saved; otherwise (a writer that did not close, a damaged or missing
// file, another false-positive rate) it rebuilds them from the store.
//
// The file, all integers little-endian:
//
//	magic        8 bytes "NDFILT01"
//	stamp        8 bytes, the database version the filters describe
//	docs         8 bytes, the number of documents
//	fpRate       8 bytes, float64 bits, the target false-positive rate
//	capacity     8 bytes, the documents the filters are sized for
//	saturated    8 bytes, counting-filter counters at 15
//	stuck        8 bytes, decrements skipped at saturated counters
//	cells        the counting filter's m/2 bytes (m from capacity and fpRate)
//	bits         the ID filter's bit words, 8 bytes each
//	band bits    the band filter's bit words, 8 bytes each (its size
//	             from capacity: see newBandFilter)
//	checksum     8 bytes, XXH64 of everything before it
//
// A file of an earlier version (magic "NDFILT01", without the band
// filter) is not used: Open rebuilds the filters from the store, once.
const (
	filtersFile  = "neardup-filters"
	filtersMagic = "NDFILT02"
)

// errFilters marks a filters file that cannot be used.
var errFilters = errors.New("unusable filters file")

// saveFilters writes the filters file for the database version stamp,
// atomically (a temporary file renamed over the old one), streaming it
// through the checksum rather than building it in memory.
func (s *Store) saveFilters(stamp uint64) error {
	path := filepath.Join(s.dir, filtersFile)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	sum := xxhash.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	var word [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(word[:], v)
		w.Write(word[:])
	}
	w.WriteString(filtersMagic)
	s.bmu.RLock()
	b := s.bloom
	for _, v := range []uint64{stamp, uint64(s.docs.Load()), math.Float64bits(b.fpRate), uint64(b.capacity), uint64(b.saturated), uint64(b.stuck)} {
		put(v)
	}
	w.Write(b.cells)
	s.bmu.RUnlock()
	for _, v := range s.ids.bits {
		put(v)
	}
	s.bmu.RLock()
	for _, v := range s.bands.bits {
		put(v)
	}
	s.bmu.RUnlock()
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

// loadFilters installs the filters of the filters file if it describes
// database version stamp at false-positive rate s.fpRate, and returns an
// error wrapping errFilters (or the file's read error) if it does not.
func (s *Store) loadFilters(stamp uint64) error {
	data, err := os.ReadFile(filepath.Join(s.dir, filtersFile))
	if err != nil {
		return err
	}
	const head = len(filtersMagic) + 6*8
	if len(data) < head+8 || string(data[:len(filtersMagic)]) != filtersMagic {
		return fmt.Errorf("%w: no header", errFilters)
	}
	body := data[:len(data)-8]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(data[len(data)-8:]) {
		return fmt.Errorf("%w: bad checksum", errFilters)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(data[len(filtersMagic)+8*i:]) }
	if u(0) != stamp {
		return fmt.Errorf("%w: made for database version %d, the database is at %d", errFilters, u(0), stamp)
	}
	docs, fpRate, capacity := int64(u(1)), math.Float64frombits(u(2)), int64(u(3))
	if fpRate != s.fpRate {
		return fmt.Errorf("%w: false-positive rate %v, want %v", errFilters, fpRate, s.fpRate)
	}
	if docs < 0 || capacity < minBloomCapacity || capacity > 1<<40 {
		return fmt.Errorf("%w: %d documents, capacity %d", errFilters, docs, capacity)
	}
	b := &countingBloom{bloomShape: newBloomShape(capacity, fpRate), saturated: int64(u(4)), stuck: int64(u(5))}
	ids := newIDFilter(capacity, idFalsePositive)
	bands := newBandFilter(capacity)
	rest := body[head:]
	if want := int(b.m/2) + 8*len(ids.bits) + 8*len(bands.bits); len(rest) != want {
		return fmt.Errorf("%w: %d bytes of filters, want %d", errFilters, len(rest), want)
	}
	b.cells = rest[: b.m/2 : b.m/2]
	rest = rest[b.m/2:]
	for i := range ids.bits {
		ids.bits[i] = binary.LittleEndian.Uint64(rest[8*i:])
	}
	rest = rest[8*len(ids.bits):]
	for i := range bands.bits {
		bands.bits[i] = binary.LittleEndian.Uint64(rest[8*i:])
	}
	s.setFilters(b, ids, bands, docs)
	return nil
}

// setFilters installs a content-hash filter, an ID filter and a band
// filter for docs documents. Callers other than Open and Load hold wmu.
func (s *Store) setFilters(b *countingBloom, ids, bands *idFilter, docs int64) {
	s.bmu.Lock()
	s.bloom = b
	s.bands = bands
	s.bmu.Unlock()
	s.ids = ids
	s.docs.Store(docs)
}
