package input

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readLines reads l to the end; a line cut for being too long is marked
// with a "+" after it. offsets are l.Offset after each line and at the end.
func readLines(t *testing.T, l *LineReader) (lines []string, offsets []int64) {
	t.Helper()
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("the LineReader does not end")
		}
		line, tooLong, err := l.Next()
		offsets = append(offsets, l.Offset())
		if err == io.EOF {
			return lines, offsets
		}
		if err != nil {
			t.Fatal(err)
		}
		s := string(line)
		if tooLong {
			s += "+"
		}
		lines = append(lines, s)
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		limit   int
		want    []string // "+" marks a line cut for being too long
		offsets []int64  // Offset after each line, and at the end
	}{
		{"empty input", "", 10, nil, []int64{0}},
		{"one empty line", "\n", 10, []string{""}, []int64{1, 1}},
		{"final newline", "a\n", 10, []string{"a"}, []int64{2, 2}},
		{"no final newline", "a\nb", 10, []string{"a", "b"}, []int64{2, 3, 3}},
		{"CRLF keeps the CR", "a\r\nb\r\n\r\nc", 10, []string{"a\r", "b\r", "\r", "c"}, []int64{3, 6, 8, 9, 9}},
		{"lone CRs", "\r\n\r", 10, []string{"\r", "\r"}, []int64{2, 3, 3}},
		{"at the limit", "0123456789\n01234567890\nab", 10,
			[]string{"0123456789", "0123456789+", "ab"}, []int64{11, 23, 25, 25}},
		{"the CR counts", "012345678\r\n0123456789\r\n", 10,
			[]string{"012345678\r", "0123456789+"}, []int64{11, 23, 23}},
		{"long line over buffers", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nok\n", 10,
			[]string{"xxxxxxxxxx+", "ok"}, []int64{51, 54, 54}},
		{"long line within the limit", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ny", 64,
			[]string{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "y"}, []int64{41, 42, 42}},
		{"long last line without newline", "abc\nzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", 20,
			[]string{"abc", "zzzzzzzzzzzzzzzzzzzz+"}, []int64{4, 54, 54}},
		{"limit 0", "\nx\n", 0, []string{"", "+"}, []int64{1, 3, 3}},
		{"negative limit", "\nx", -5, []string{"", "+"}, []int64{1, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The smallest buffer bufio allows, so that lines span buffers.
			l := NewLineReader(bufio.NewReaderSize(strings.NewReader(tt.in), 16), tt.limit)
			lines, offsets := readLines(t, l)
			if !reflect.DeepEqual(lines, tt.want) || !reflect.DeepEqual(offsets, tt.offsets) {
				t.Errorf("lines %q, offsets %v; want %q, %v", lines, offsets, tt.want, tt.offsets)
			}
		})
	}
}

// TestLineReaderError: a read error is returned as it is, dropping the
// incomplete line, and Offset counts the bytes read before it.
func TestLineReaderError(t *testing.T) {
	boom := errors.New("boom")
	l := NewLineReader(bufio.NewReaderSize(io.MultiReader(strings.NewReader("a\nbc"), iotest.ErrReader(boom)), 16), 10)
	if line, tooLong, err := l.Next(); string(line) != "a" || tooLong || err != nil {
		t.Fatalf("Next = %q, %t, %v; want \"a\"", line, tooLong, err)
	}
	if line, tooLong, err := l.Next(); line != nil || tooLong || err != boom {
		t.Errorf("Next = %q, %t, %v; want nil, false, boom", line, tooLong, err)
	}
	if got := l.Offset(); got != 4 {
		t.Errorf("Offset = %d, want 4", got)
	}
}

// FuzzLineReader checks the lines, the cuts and the offsets against
// strings.Split, for any limit and buffer size.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb\r\n\nc", "\r\n\r", "0123456789\n01234567890\nab",
		strings.Repeat("y", 40) + "\nz", "abc\n" + strings.Repeat("z", 50)} {
		f.Add(s, 10, 16)
	}
	f.Add("x\n\nyy", 0, 16)
	f.Fuzz(func(t *testing.T, in string, limit, size int) {
		if limit < -1 || limit > 100 || size < 16 || size > 64 {
			return
		}
		want := strings.SplitAfter(in, "\n")
		if want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		l := NewLineReader(bufio.NewReaderSize(strings.NewReader(in), size), limit)
		var off int64
		for i := 0; ; i++ {
			line, tooLong, err := l.Next()
			if err == io.EOF {
				if i != len(want) || l.Offset() != int64(len(in)) {
					t.Fatalf("io.EOF after %d lines, offset %d; want %d lines, offset %d", i, l.Offset(), len(want), len(in))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(want) {
				t.Fatalf("more than %d lines", len(want))
			}
			off += int64(len(want[i]))
			w := strings.TrimSuffix(want[i], "\n")
			wantLong := len(w) > max(limit, 0)
			if wantLong {
				w = w[:max(limit, 0)]
			}
			if string(line) != w || tooLong != wantLong || l.Offset() != off {
				t.Fatalf("line %d = %q, tooLong %t, offset %d; want %q, %t, %d", i+1, line, tooLong, l.Offset(), w, wantLong, off)
			}
		}
	})
}
