package input

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/neardup/neardup/docid"
	"github.com/neardup/neardup/simhash"
)

// ParseFingerprintLine parses a line of a fingerprint file,
// "id<TAB>fingerprint" (as gosimhash writes them): the id is everything
// before the last tab (it may hold tabs itself) and must be one an index
// holds (docid.Check), the fingerprint 1 to 16 hex digits after it;
// spaces around the fingerprint and a final "\r" are ignored.
func ParseFingerprintLine(b []byte) (string, simhash.Fingerprint, error) {
	b = bytes.TrimSuffix(b, []byte("\r"))
	tab := bytes.LastIndexByte(b, '\t')
	if tab < 0 {
		return "", 0, errors.New(`want "id<TAB>fingerprint", found no tab`)
	}
	id := string(b[:tab])
	if err := docid.Check(id); err != nil {
		return "", 0, err
	}
	fp, err := simhash.Parse(string(bytes.TrimSpace(b[tab+1:])))
	if err != nil {
		return "", 0, err
	}
	return id, fp, nil
}

// ReadFingerprints reads the fingerprint file r (named name in errors)
// and calls each with every line but blank ones, in order: its number
// (from 1), and its id and fingerprint or the error parsing it. An error
// from each stops the reading and is returned; so are a read error
// (naming the line) and ctx's error, which is checked every 10,000
// lines.
func ReadFingerprints(ctx context.Context, r io.Reader, name string, each func(line int, id string, fp simhash.Fingerprint, err error) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), docid.MaxLen+64)
	line := 0
	for sc.Scan() {
		line++
		if line%10000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		id, fp, err := ParseFingerprintLine(b)
		if err := each(line, id, fp, err); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}
