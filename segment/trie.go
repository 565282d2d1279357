package segment

import (
	"math"
	"math/bits"
)

// trie is cppjieba's dictionary trie over runes (Trie.hpp), flattened:
// nodes are numbers, node 0 the root; the children of the root with a
// rune below 0x10000 (every Han character of the dictionary but a few)
// are found in a dense table, every other edge in one open-addressing
// hash table keyed by (parent, rune). A node's weight is the weight of
// the word that ends there, or noWord.
type trie struct {
	root    []uint32  // child of the root by rune < rootSpan; 0 = none
	weight  []float64 // by node: the word's weight, or noWord
	hasKids []bool    // by node: has a child
	slots   []edge    // the hash table; key 0 = empty
	shift   uint      // 64 − log2(len(slots))
	used    int       // filled slots
}

// edge is one slot of the hash table: the key (parent<<32 | rune)+1,
// and the child.
type edge struct {
	key   uint64
	child uint32
}

const rootSpan = 0x10000

// noWord marks a node at which no word ends. Weights are logarithms of
// finite positive frequencies, never +Inf.
var noWord = math.Inf(1)

func newTrie(words int) *trie {
	t := &trie{root: make([]uint32, rootSpan)}
	n := 1 << bits.Len(uint(words*2+16)) // load under 1/2 for the edges, about one a word's rune
	t.slots = make([]edge, n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	t.weight = make([]float64, 1, words*2)
	t.weight[0] = noWord
	t.hasKids = make([]bool, 1, words*2)
	return t
}

func (t *trie) slot(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> t.shift)
}

// child returns the child of node for r, or 0.
func (t *trie) child(node uint32, r rune) uint32 {
	if node == 0 && uint32(r) < rootSpan {
		return t.root[r]
	}
	if !t.hasKids[node] {
		return 0
	}
	key := uint64(node)<<32 | uint64(uint32(r)) + 1
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.child
		}
		if s.key == 0 {
			return 0
		}
	}
}

// addChild returns the child of node for r, making it if needed.
func (t *trie) addChild(node uint32, r rune) uint32 {
	if c := t.child(node, r); c != 0 {
		return c
	}
	c := uint32(len(t.weight))
	t.weight = append(t.weight, noWord)
	t.hasKids = append(t.hasKids, false)
	t.hasKids[node] = true
	if node == 0 && uint32(r) < rootSpan {
		t.root[r] = c
		return c
	}
	if (t.used+1)*2 > len(t.slots) {
		t.grow()
	}
	t.put(uint64(node)<<32|uint64(uint32(r))+1, c)
	return c
}

func (t *trie) put(key uint64, child uint32) {
	mask := len(t.slots) - 1
	i := t.slot(key)
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = edge{key, child}
	t.used++
}

func (t *trie) grow() {
	old := t.slots
	t.slots = make([]edge, 2*len(old))
	t.shift--
	t.used = 0
	for _, s := range old {
		if s.key != 0 {
			t.put(s.key, s.child)
		}
	}
}

// insert sets the weight of word (runes), as Trie::InsertNode does: a
// word inserted again takes the later weight. An empty word is ignored.
func (t *trie) insert(word []rune, weight float64) {
	if len(word) == 0 {
		return
	}
	var n uint32
	for _, r := range word {
		n = t.addChild(n, r)
	}
	t.weight[n] = weight
}
