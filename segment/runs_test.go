package segment

import (
	"bytes"
	"testing"
)

// TestASCIISkip checks asciiSkip's eight-byte steps against a loop a
// byte at a time: every byte value at every place of texts of letters
// and of separators, of lengths either side of a step.
func TestASCIISkip(t *testing.T) {
	skip := func(text string, i int, k uint8) int {
		for i < len(text) && asciiKind[text[i]] == k {
			i++
		}
		return i
	}
	for _, fill := range []byte{'a', 'Z', '5', ' ', ',', '\n'} {
		for n := 1; n <= 19; n++ {
			for at := range n {
				for c := range 256 {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					text := string(b)
					for _, k := range []uint8{kindWord, kindSep} {
						for _, from := range []int{0, 1} {
							if got, want := asciiSkip(text, from, k), skip(text, from, k); got != want {
								t.Fatalf("asciiSkip(%q, %d, %d) = %d, want %d", text, from, k, got, want)
							}
						}
					}
				}
			}
		}
	}
}
