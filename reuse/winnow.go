package reuse

import (
	"fmt"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Defaults of Params: 12-character k-grams, windows of 39, so that every
// shared passage of 50 characters is found, filed under 32-bit keys.
const (
	DefaultGram   = 12
	DefaultWindow = 39
	DefaultBits   = 32
)

// Params are the winnowing parameters of a reuse index, recorded with
// the archive (a stored format: an archive's fingerprints are comparable
// only with fingerprints made with the same ones).
type Params struct {
	Gram   int // k: characters in a hashed k-gram, 1 to 64
	Window int // w: k-gram hashes in a window, 1 to 255
	// Bits is the width of the keys a fingerprint is filed under (Key):
	// 32, the low half of its hash, or 64, the whole hash. 0 means
	// DefaultBits.
	Bits int
}

// DefaultParams are DefaultGram, DefaultWindow and DefaultBits.
var DefaultParams = Params{Gram: DefaultGram, Window: DefaultWindow, Bits: DefaultBits}

// resolve fills in the defaults: DefaultGram and DefaultWindow when
// both are 0, DefaultBits when Bits is.
func (p Params) resolve() Params {
	if p.Gram == 0 && p.Window == 0 {
		p.Gram, p.Window = DefaultGram, DefaultWindow
	}
	if p.Bits == 0 {
		p.Bits = DefaultBits
	}
	return p
}

// Key is the value a fingerprint with hash h is filed under
// (index.KindPassage): the low 32 bits of h when Bits is 32, h itself
// when it is 64. Not the top bits: a fingerprint is the smallest hash
// of its window, so its top bits are mostly zeros (the smallest of 39
// is below 2^64/17 nine times in ten), and keys made of them collide
// ten to twenty times as often (eleven times in bench/reusecost). Keys only select candidates (see
// the package doc on what two passages with one key do).
func (p Params) Key(h uint64) uint64 {
	if p.Bits == 32 {
		return h & 0xffffffff
	}
	return h
}

// Keys returns the distinct keys (Key) of the hashes hs, in order of
// first appearance.
func (p Params) Keys(hs []uint64) []uint64 {
	seen := make(map[uint64]struct{}, len(hs))
	out := make([]uint64, 0, len(hs))
	for _, h := range hs {
		k := p.Key(h)
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}

// Guarantee is L = Window + Gram − 1: any passage of at least L
// characters two texts share yields at least one fingerprint they share.
func (p Params) Guarantee() int { return p.Window + p.Gram - 1 }

func (p Params) check() error {
	if p.Gram < 1 || p.Gram > 64 || p.Window < 1 || p.Window > 255 {
		return fmt.Errorf("reuse: k-gram %d and window %d: want 1 to 64 and 1 to 255", p.Gram, p.Window)
	}
	if p.Bits != 32 && p.Bits != 64 {
		return fmt.Errorf("reuse: keys of %d bits: want 32 or 64", p.Bits)
	}
	return nil
}

// A Print is one winnowing fingerprint of a text: the hash of the
// k-gram that starts at its character Pos.
type Print struct {
	Hash uint64
	Pos  int
}

// GramHash is the hash of a k-gram: XXH64 (seed 0) of the UTF-8 bytes
// of its characters. It is part of the stored format.
func GramHash(runes []rune) uint64 {
	var buf [64 * utf8.UTFMax]byte
	b := buf[:0]
	for _, r := range runes {
		b = utf8.AppendRune(b, r)
	}
	return xxhash.Sum64(b)
}

// gramHashes returns the hash of every k-gram of t: h[i] of the one that
// starts at character i.
func gramHashes(t *Text, k int) []uint64 {
	if t.Len() < k {
		return nil
	}
	h := make([]uint64, t.Len()-k+1)
	var buf [64 * utf8.UTFMax]byte
	for i := range h {
		b := buf[:0]
		for _, r := range t.runes[i : i+k] {
			b = utf8.AppendRune(b, r)
		}
		h[i] = xxhash.Sum64(b)
	}
	return h
}

// Prints returns the winnowing fingerprints of t (Schleimer, Wilkerson
// and Aiken 2003, robust winnowing): in every window of Window
// consecutive k-gram hashes, the smallest, the rightmost of equal ones
// unless the previous window's pick is still in the window; each pick
// once, in order of position. A text with fewer k-grams than a window
// has one fingerprint, its smallest hash; one shorter than a k-gram has
// none.
func (p Params) Prints(t *Text) []Print {
	return winnow(gramHashes(t, p.Gram), p.Window)
}

// winnow picks the fingerprints of the hashes h with windows of w, in
// one pass: a deque holds the positions that may still be a window's
// minimum, their hashes increasing from front to back.
func winnow(h []uint64, w int) []Print {
	if len(h) == 0 {
		return nil
	}
	if len(h) < w {
		w = len(h)
	}
	out := make([]Print, 0, 2*len(h)/(w+1)+1)
	dq := make([]int, 0, 2*w) // dq[head:] is the deque
	head := 0
	last := -1
	for i, v := range h {
		// Drop from the back every position with a larger or equal
		// hash: the new one is as small and further right.
		for len(dq) > head && h[dq[len(dq)-1]] >= v {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, i)
		if dq[head] <= i-w {
			head++
		}
		if head > w && head > len(dq)/2 { // compact
			dq = append(dq[:0], dq[head:]...)
			head = 0
		}
		if i < w-1 {
			continue
		}
		// The window is h[i−w+1 … i]; its minimum is at dq[head], the
		// rightmost of the minimal hashes.
		m := dq[head]
		if last >= i-w+1 && h[last] == h[m] {
			continue // robust winnowing: keep the earlier pick of an equal hash
		}
		if m != last {
			out = append(out, Print{Hash: h[m], Pos: m})
			last = m
		}
	}
	return out
}

// Hashes returns the distinct hashes of ps, in order of first position.
func Hashes(ps []Print) []uint64 {
	seen := make(map[uint64]struct{}, len(ps))
	out := make([]uint64, 0, len(ps))
	for _, p := range ps {
		if _, ok := seen[p.Hash]; !ok {
			seen[p.Hash] = struct{}{}
			out = append(out, p.Hash)
		}
	}
	return out
}
