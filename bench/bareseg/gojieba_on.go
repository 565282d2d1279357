//go:build gojieba && cgo

package main

import (
	"github.com/yanyiwu/gojieba"

	"github.com/neardup/neardup/dict"
)

// newGojiebaCut returns gojieba's own Cut, HMM on, over the embedded
// dictionary, as a tool built on gojieba alone would cut: every text
// whole, English included, through cppjieba.
func newGojiebaCut() (func(string) []string, error) {
	p, err := dict.MaterializeJieba("")
	if err != nil {
		return nil, err
	}
	x := gojieba.NewJieba(p.Dict, p.HMM, p.User, p.StubIDF, p.StubStopWords)
	return func(s string) []string { return x.Cut(s, true) }, nil
}
