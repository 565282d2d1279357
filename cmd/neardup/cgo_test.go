//go:build cgo

package main

// haveCgo: the jieba segmenter is available, and the golden files (made
// with it) apply.
const haveCgo = true
