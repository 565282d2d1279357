package neardup

import (
	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/dict"
)

// stopSet is a stop-word list laid out for the keyword extractor's hot
// loop: an open-addressing table of XXH64 hashes at most half full, with
// the words alongside to confirm a match. The default list's 2,000-odd
// words take 64 KiB, which stays in a core's cache, where the map's
// lookups miss it once cppjieba has been through; in `neardup dedup` on
// zh_news the map's lookups were 3% of the analysis time.
type stopSet struct {
	hashes []uint64 // 0 is an empty slot
	words  []string // words[i] is the word of hashes[i]
}

func newStopSet(s dict.StopWords) *stopSet {
	n := 16
	for n < 2*len(s) {
		n <<= 1
	}
	t := &stopSet{hashes: make([]uint64, n), words: make([]string, n)}
	mask := uint64(n - 1)
	for w := range s {
		h := stopHash(w)
		i := h & mask
		for t.hashes[i] != 0 {
			i = (i + 1) & mask
		}
		t.hashes[i], t.words[i] = h, w
	}
	return t
}

// stopHash is XXH64 with 0, the empty slot, moved to 1.
func stopHash(w string) uint64 {
	if h := xxhash.Sum64String(w); h != 0 {
		return h
	}
	return 1
}

// Has reports whether word is in the set.
func (t *stopSet) Has(word string) bool {
	h := stopHash(word)
	mask := uint64(len(t.hashes) - 1)
	for i := h & mask; t.hashes[i] != 0; i = (i + 1) & mask {
		if t.hashes[i] == h && t.words[i] == word {
			return true
		}
	}
	return false
}
