//go:build !cgo

package main

// haveCgo: the jieba segmenter is not available in this build.
const haveCgo = false
