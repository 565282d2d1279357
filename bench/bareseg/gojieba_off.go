//go:build !(gojieba && cgo)

package main

import "errors"

func newGojiebaCut() (func(string) []string, error) {
	return nil, errors.New("-gojieba needs a build with -tags gojieba (and cgo)")
}
