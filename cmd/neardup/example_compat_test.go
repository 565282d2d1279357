package main

import (
	"os"
	"strings"
)

// The gosimhash-compatible fingerprint of jieba's example sentence.
func Example_fingerprintCompat() {
	run([]string{"neardup", "fingerprint", "--compat", "--top-n", "5"}, strings.NewReader("我来到北京清华大学"), os.Stdout, os.Stderr)
	// Output:
	// feb6372a8750eb1d  -
	//     清华大学 8.08  来到 5.39  北京 4.67
}
