package simhash_test

import (
	"fmt"

	"github.com/neardup/neardup/simhash"
)

func Example() {
	// Keywords and TF-IDF weights, as gojieba extracts them from
	// "我来到北京清华大学", hashed as gosimhash does.
	keywords := []struct {
		word   string
		weight float64
	}{{"清华大学", 8.08059472162}, {"来到", 5.38568688411}, {"北京", 4.66740230872}}
	var fs []simhash.Feature
	for _, k := range keywords {
		fs = append(fs, simhash.Feature{Hash: simhash.HashLookup3(k.word), Weight: k.weight})
	}
	a := simhash.Sum(fs)
	fmt.Println(a)

	// A fourth, lighter keyword moves the fingerprint a few bits.
	b := simhash.Sum(append(fs, simhash.Feature{Hash: simhash.HashLookup3("大学"), Weight: 3}))
	fmt.Println(b, a.Distance(b), a.Similarity(b))

	c, err := simhash.Parse("0xFEB6372A8750EB1D")
	fmt.Println(c == a, err)
	// Output:
	// feb6372a8750eb1d
	// eab477aa8750eb95 7 0.890625
	// true <nil>
}
