package main

import (
	"os"
	"strings"
)

// Compare an article with its reprint (pure-Go segmenter, so that the
// example holds in every build).
func Example_compare() {
	run([]string{"neardup", "compare", "--segmenter", "gse", "--keywords", "3", "testdata/a.txt", "testdata/b.txt"},
		strings.NewReader(""), os.Stdout, os.Stderr)
	// Output:
	// A                   d6114e778fe93130  testdata/a.txt (54 keywords)
	// B                   d6114e778fe93134  testdata/b.txt (58 keywords)
	// distance            1 of 64 bits
	// similarity          0.984
	// content similarity  0.973 (estimated Jaccard of character 5-grams)
	// verdict             near duplicate: content similarity 0.97 ≥ 0.70; fingerprints 1 ≤ 3 bits apart
	// shared keywords     54: 对话框 43.50/43.50, 控件 29.17/29.17, 编辑器 27.93/27.93, … (51 more)
	// only in A           0
	// only in B           4: 文档 9.99, 转载自 9.17, 本文 7.64, … (1 more)
}
