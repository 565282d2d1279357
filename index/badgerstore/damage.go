package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore/internal/tablecheck"
)

// This file turns the damage that package tablecheck finds (it reads
// Badger's table files and log line, which Badger does not report
// damage in) into the store's errors.

// A Damage is one part of a store's directory that cannot be read.
type Damage = tablecheck.Damage

// corruptError is the error of a damaged store: it names the directory
// and the file and wraps index.ErrCorrupt.
type corruptError = tablecheck.Error

// readValue returns a copy of item's value, or an error wrapping
// index.ErrCorrupt naming the value log when Badger read the value as
// empty though its size is not (a damaged value-log entry, which Badger
// logs and reads as empty).
func (s *Store) readValue(item *badger.Item) ([]byte, error) {
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	if len(v) == 0 && item.ValueSize() > 0 {
		return nil, s.valueErr(item)
	}
	return v, nil
}

// valueErr is the error of a value of item's that Badger read as empty.
func (s *Store) valueErr(item *badger.Item) error {
	key := item.KeyCopy(nil)
	id := ""
	if len(key) > 0 && key[0] == kindDoc {
		id = string(key[1:])
	}
	return &corruptError{Dir: s.dir, Damage: Damage{File: s.vlogDamage.File(key), Block: -1, ID: id,
		Err: errors.New("its value cannot be read from the value log (a checksum or its length does not match)")}}
}

// recoverTo is deferred by the Store's methods: a panic of Badger's in
// the calling goroutine (a damaged table, read without a checksum
// verification that would have caught it) becomes an error naming the
// directory.
func (s *Store) recoverTo(op string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("index: %s: %s: %w: %v in %s", s.dir, op, index.ErrCorrupt, tablecheck.PanicError(r), firstFrame(debug.Stack()))
	}
}

// firstFrame returns the innermost function of Badger's in stack, for
// the error message.
func firstFrame(stack []byte) string {
	for _, line := range bytes.Split(stack, []byte("\n")) {
		if bytes.Contains(line, []byte("dgraph-io/")) && !bytes.HasPrefix(line, []byte("\t")) {
			s := string(line)
			if i := strings.LastIndexByte(s, '('); i > 0 {
				s = s[:i]
			}
			return s
		}
	}
	return "not in Badger"
}

// memFiles returns the names of the memtable logs in dir that hold
// writes (a writer that did not close).
func memFiles(dir string) []string {
	var out []string
	for name := range logFiles(dir) {
		if strings.HasSuffix(name, ".mem") {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() > 0 {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}
