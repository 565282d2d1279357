// Package docid owns the rule every layer applies to document IDs: the
// reader of inputs (package input) rejects a record whose ID breaks it,
// and the archive (package index) refuses to file one. It is a leaf, so
// that the layers below the archive need not import it.
//
// An ID is 1 to MaxLen bytes. The bound comes from the stores: Badger
// keys are at most 65,000 bytes, and a table key carries up to 18 bytes
// besides the ID (see index/badgerstore).
package docid

import (
	"errors"
	"fmt"
)

// MaxLen is the longest document ID in bytes.
const MaxLen = 64000

// ErrInvalid is wrapped by the errors of Check.
var ErrInvalid = errors.New("invalid document id")

// Check returns an error wrapping ErrInvalid if id cannot be a document
// ID: it is empty or longer than MaxLen bytes. The message says which
// ("empty id", "id is N bytes long; an index holds ids of at most
// 64000").
func Check(id string) error {
	switch {
	case id == "":
		return invalid("empty id")
	case len(id) > MaxLen:
		return invalid(fmt.Sprintf("id is %d bytes long; an index holds ids of at most %d", len(id), MaxLen))
	}
	return nil
}

// invalid is an invalid ID; it wraps ErrInvalid.
type invalid string

func (e invalid) Error() string { return string(e) }
func (e invalid) Unwrap() error { return ErrInvalid }
