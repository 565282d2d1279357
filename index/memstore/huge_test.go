package memstore

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// The arena cuts its chunks from blocks of blockChunks once it holds
// as many, and every entry reads back as it was added.
func TestArenaBlocks(t *testing.T) {
	var a arena
	type at struct{ chunk, off uint32 }
	var ats []at
	rec := func(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 600<<10) } // 1.2 MB
	for i := range 3 * (blockChunks + 4) {
		c, off := a.add(nil, fmt.Sprintf("doc-%d", i), rec(i))
		ats = append(ats, at{c, off})
	}
	if len(a.chunks) < blockChunks+4 {
		t.Fatalf("%d chunks, want at least %d", len(a.chunks), blockChunks+4)
	}
	for i, p := range ats {
		c := a.chunks[p.chunk]
		id := fmt.Sprintf("doc-%d", i)
		if got := string(c[p.off : int(p.off)+len(id)]); got != id {
			t.Fatalf("entry %d: ID %q, want %q", i, got, id)
		}
	}
	for i, c := range a.chunks {
		if cap(c) != chunkSize {
			t.Errorf("chunk %d: cap %d, want %d", i, cap(c), chunkSize)
		}
	}
	// Chunks blockChunks and blockChunks+1 are cut from one block: one
	// after the other in memory.
	c0, c1 := a.chunks[blockChunks], a.chunks[blockChunks+1]
	if unsafe.Add(unsafe.Pointer(unsafe.SliceData(c0)), chunkSize) != unsafe.Pointer(unsafe.SliceData(c1)) {
		t.Errorf("chunks %d and %d are not adjacent", blockChunks, blockChunks+1)
	}
}

// Slots cut from blocks keep their values.
func TestSlotsBlocks(t *testing.T) {
	var s slots
	const n = (blockChunks+2)<<slotBits + 5
	for i := range n {
		if got := s.add(uint64(i) * 3); got != uint32(i+1) {
			t.Fatalf("add %d: number %d, want %d", i, got, i+1)
		}
	}
	for i := range n {
		if got := *s.at(uint32(i + 1)); got != uint64(i)*3 {
			t.Fatalf("slot %d: %d, want %d", i+1, got, uint64(i)*3)
		}
	}
	if len(s.chunks) != blockChunks+3 {
		t.Errorf("%d chunks of slots, want %d", len(s.chunks), blockChunks+3)
	}
}
