package input

import (
	"bufio"
	"io"
)

// LineReader reads the lines of a stream, holding no more than a limit of
// any line: the lines of JSONL inputs, and of other line-oriented inputs
// such as lists of URLs.
type LineReader struct {
	br  *bufio.Reader
	max int
	buf []byte // the line so far when it spans buffers, at most max+1 bytes
	off int64  // bytes read from br
}

// NewLineReader returns a LineReader of br that accepts lines of up to
// limit bytes, not counting the "\n" (a negative limit is taken as 0).
func NewLineReader(br *bufio.Reader, limit int) *LineReader {
	return &LineReader{br: br, max: max(limit, 0)}
}

// Next returns the next line without its "\n"; a "\r" before the "\n" is
// kept. The line is valid until the next call (it may be part of br's
// buffer). A line of more than the limit comes back cut to its first
// limit bytes, with tooLong set; the rest of it is read and dropped, so a
// long line never holds more than the limit and one buffer of br in
// memory.
//
// A last line without "\n" is a line; after it Next returns io.EOF. A
// read error is returned as it is, and drops the incomplete line.
func (l *LineReader) Next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	n := 0 // bytes of the line so far, "\n" included
	for {
		frag, err := l.br.ReadSlice('\n')
		l.off += int64(len(frag))
		n += len(frag)
		if err == bufio.ErrBufferFull {
			l.keep(frag)
			continue
		}
		if err != nil && (err != io.EOF || n == 0) {
			return nil, false, err
		}
		if err == nil {
			frag = frag[:len(frag)-1] // the "\n"
			n--
		}
		if n > l.max {
			l.keep(frag)
			return l.buf[:l.max], true, nil
		}
		if len(l.buf) == 0 {
			return frag, false, nil // the whole line was in br's buffer
		}
		l.buf = append(l.buf, frag...)
		return l.buf, false, nil
	}
}

// keep appends frag to the line held, up to max+1 bytes.
func (l *LineReader) keep(frag []byte) {
	if room := l.max + 1 - len(l.buf); room > 0 {
		l.buf = append(l.buf, frag[:min(len(frag), room)]...)
	}
}

// Offset returns how many bytes Next has read: after a line, the offset
// of the next line from where the LineReader started; after a read error,
// the bytes read before it.
func (l *LineReader) Offset() int64 { return l.off }
