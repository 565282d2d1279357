package input

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func gb18030String(t testing.TB, s string) string {
	b, err := simplifiedchinese.GB18030.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeText(t *testing.T) {
	news := "新华社北京电：今天，“中国”的天气很好。"
	tests := []struct {
		in, enc      string
		want, detect string
		err          string
	}{
		{in: "plain ASCII", enc: "auto", want: "plain ASCII", detect: "utf-8"},
		{in: "中文 UTF-8", enc: "", want: "中文 UTF-8", detect: "utf-8"},
		{in: "\xEF\xBB\xBF带 BOM", enc: "auto", want: "带 BOM", detect: "utf-8"},
		{in: "\xEF\xBB\xBF带 BOM", enc: "UTF-8", want: "带 BOM", detect: "utf-8"},
		{in: gbkString(t, news), enc: "auto", want: news, detect: "gb18030"},
		{in: gbkString(t, news), enc: "gbk", want: news, detect: "gbk"},
		{in: gbkString(t, news), enc: "gb2312", want: news, detect: "gbk"},
		{in: gb18030String(t, "表情😀与罕见字𠀀"), enc: "auto", want: "表情😀与罕见字𠀀", detect: "gb18030"},
		{in: gb18030String(t, "\uFEFF有BOM"), enc: "gb18030", want: "有BOM", detect: "gb18030"},
		{in: "\xFF\xFEh\x00i\x00=\xD8\x00\xDE", enc: "auto", want: "hi😀", detect: "utf-16le"},
		{in: "\xFE\xFF\x00h\x00i", enc: "auto", want: "hi", detect: "utf-16be"},
		{in: "", enc: "auto", want: "", detect: "utf-8"},

		{in: gbkString(t, news), enc: "utf-8", err: "invalid UTF-8 at byte 0"},
		{in: "ok \xEF\xBB\xBF\xFF", enc: "utf-8", err: "invalid UTF-8 at byte 6"},
		{in: "\xEF\xBB\xBFok\xFF", enc: "auto", err: "invalid UTF-8 (not GBK/GB18030 either) at byte 5"},
		{in: "caf\xe9 au lait", enc: "auto", err: "invalid UTF-8 (not GBK/GB18030 either) at byte 3"},
		// Latin-1 accents followed by letters are well-formed GBK, but not
		// in the GB2312 area and mostly not Chinese.
		{in: "na\xefve r\xe9sum\xe9s", enc: "auto", err: "invalid UTF-8 (not GBK/GB18030 either) at byte 2"},
		// Valid GB18030 with control characters is binary, not text.
		{in: gbkString(t, "中文") + "\x01\x02", enc: "auto", err: "invalid UTF-8 (not GBK/GB18030 either) at byte 0"},
		{in: "ab\xFF" + gbkString(t, "中"), enc: "gbk", err: "invalid GBK at byte 2"},
		{in: gbkString(t, "中") + "\x81\x30\x81\x30", enc: "gbk", err: "invalid GBK at byte 2"},
		{in: "\x81\x30\x81\x30", enc: "gb18030", want: "\u0080", detect: "gb18030"},
		{in: "\xA1\x40", enc: "gb18030", err: "invalid GB18030 at byte 0"}, // unmapped
		{in: "x\x81", enc: "gb18030", err: "invalid GB18030 at byte 1"},
		{in: "\xFF\xFEh\x00i", enc: "auto", err: "invalid UTF-16 (odd number of bytes) at byte 4"},
		{in: "\xFF\xFE\x00\xD8h\x00", enc: "auto", err: "invalid UTF-16 (unpaired surrogate) at byte 2"},
		{in: "x", enc: "latin1", err: `unknown encoding "latin1" (want auto, utf-8, gbk or gb18030)`},
	}
	for _, tt := range tests {
		got, detected, err := DecodeText([]byte(tt.in), tt.enc)
		if inputErrString(err) != tt.err || got != tt.want || detected != tt.detect {
			t.Errorf("DecodeText(%q, %q) = %q, %q, %v; want %q, %q, %q", tt.in, tt.enc, got, detected, err, tt.want, tt.detect, tt.err)
		}
	}
}

// TestGBNextMatchesDecoder checks that gbNext splits every two-byte and
// four-byte sequence the way the x/text decoder does, which the error
// offsets rely on.
func TestGBNextMatchesDecoder(t *testing.T) {
	for _, gb := range []bool{false, true} {
		dec := simplifiedchinese.GBK.NewDecoder()
		if gb {
			dec = simplifiedchinese.GB18030.NewDecoder()
		}
		for c0 := 0x80; c0 <= 0xFF; c0++ {
			for c1 := 0; c1 <= 0xFF; c1++ {
				for _, tail := range []string{"", "\x81\x30", "\xFE\x39", "\x80\x30", "\x81\x3A", "A"} {
					src := append([]byte{byte(c0), byte(c1)}, tail...)
					out, err := dec.Bytes(src)
					if err != nil {
						t.Fatal(err)
					}
					size, _ := gbNext(src, gb)
					// The decoder is stateless: split at the end of the
					// first character, the two parts decode to one rune
					// and the rest of the whole.
					first, err1 := dec.Bytes(src[:size])
					rest, err2 := dec.Bytes(src[size:])
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if string(first)+string(rest) != string(out) || utf8.RuneCount(first) != 1 {
						t.Fatalf("gb18030=%v % x: size %d, decoded %q + %q, whole %q", gb, src, size, first, rest, out)
					}
				}
			}
		}
	}
}

func ExampleDecodeText() {
	gbkBytes := []byte{0xD6, 0xD0, 0xCE, 0xC4, 0xD0, 0xC2, 0xCE, 0xC5} // "中文新闻" in GBK
	text, enc, err := DecodeText(gbkBytes, "auto")
	fmt.Println(text, enc, err)
	_, _, err = DecodeText([]byte("caf\xe9 au lait"), "auto")
	fmt.Println(err)
	// Output:
	// 中文新闻 gb18030 <nil>
	// invalid UTF-8 (not GBK/GB18030 either) at byte 3
}

// FuzzDecodeText checks that DecodeText never panics, returns valid UTF-8
// or an error with an offset inside the input, and keeps valid UTF-8 as it
// is.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("hello"), uint8(0))
	f.Add([]byte("\xEF\xBB\xBF中文"), uint8(0))
	f.Add([]byte{0xD6, 0xD0, 0xCE, 0xC4}, uint8(0))
	f.Add([]byte{0x81, 0x30, 0x81, 0x30, 0x95, 0x32, 0x82, 0x36}, uint8(3))
	f.Add([]byte("\xFF\xFEh\x00"), uint8(0))
	f.Add([]byte("caf\xe9"), uint8(2))
	encs := []string{"auto", "utf-8", "gbk", "gb18030"}
	f.Fuzz(func(t *testing.T, b []byte, e uint8) {
		enc := encs[int(e)%len(encs)]
		s, detected, err := DecodeText(b, enc)
		if err != nil {
			ee, ok := err.(*encodingError)
			if !ok || ee.Offset < 0 || ee.Offset >= len(b) {
				t.Fatalf("DecodeText(%q, %s): error %v (offset outside the input)", b, enc, err)
			}
			if s != "" || detected != "" {
				t.Fatalf("DecodeText(%q, %s) = %q, %q with error %v", b, enc, s, detected, err)
			}
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("DecodeText(%q, %s) = %q: invalid UTF-8", b, enc, s)
		}
		utf16 := len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF)
		if (enc == "auto" && !utf16 || enc == "utf-8") && utf8.Valid(b) {
			if want := string(bytes.TrimPrefix(b, utf8BOM)); s != want || detected != "utf-8" {
				t.Fatalf("DecodeText(%q, %s) = %q, %q; want it unchanged", b, enc, s, detected)
			}
		}
		if enc == "gbk" || enc == "gb18030" {
			// What decodes without error re-encodes to a string that
			// decodes to the same text.
			var e = simplifiedchinese.GBK.NewEncoder()
			if enc == "gb18030" {
				e = simplifiedchinese.GB18030.NewEncoder()
			}
			again, err := e.String(s)
			if err != nil {
				return // e.g. GBK has no encoding for some characters the euro byte decodes to
			}
			s2, _, err := DecodeText([]byte(again), enc)
			if err != nil || s2 != s {
				t.Fatalf("%q decodes to %q, re-encoded %q decodes to %q, %v", b, s, again, s2, err)
			}
		}
	})
}

func BenchmarkDecodeText(b *testing.B) {
	text := strings.Repeat("新京报讯（记者 刘玮）10月30日，据香港媒体报道，武侠小说泰斗金庸逝世，享年94岁。\n", 2000)
	for _, bm := range []struct{ name, in string }{
		{"utf-8", text},
		{"gbk-auto", gbkString(b, text)},
	} {
		b.Run(bm.name, func(b *testing.B) {
			in := []byte(bm.in)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, _, err := DecodeText(in, "auto"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
