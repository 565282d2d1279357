package index

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/tfidf"
)

func TestRecordGolden(t *testing.T) {
	d := Doc{
		ID:          "a",
		Fingerprint: 0x0123456789abcdef,
		ContentHash: 0xfedcba9876543210,
		Title:       "Hi",
		Keywords:    []tfidf.Keyword{{Word: "x", Weight: 1.5}},
		Added:       time.Unix(300, 5).UTC(),
		Job:         "j",
		Seq:         300,
	}
	want := "01" + // version
		"0123456789abcdef" + "fedcba9876543210" +
		"d804" + "05" + // varint 300 (zigzag 600), uvarint 5
		"02" + "4869" + // "Hi"
		"01" + "01" + "78" + "000000000000f83f" + // one keyword "x" weight 1.5 (little-endian)
		"00" + // zero sketch
		"01" + "6a" + // job "j"
		"ac02" // seq 300
	got := hex.EncodeToString(encodeDoc(nil, &d))
	if got != want {
		t.Fatalf("record %s\nwant   %s", got, want)
	}
	back, err := decodeDoc(mustHex(t, want), "a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("decoded %+v, want %+v", back, d)
	}

	// The content-set size is optional field 2; without it (above) the
	// record is what it was before the field existed.
	d.Shingles = 300
	want += "02" + "02" + "ac02" // tag 2, 2 bytes, uvarint 300
	if got := hex.EncodeToString(encodeDoc(nil, &d)); got != want {
		t.Fatalf("record with shingles %s\nwant                %s", got, want)
	}
	if back, err = decodeDoc(mustHex(t, want), "a"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("decoded %+v, want %+v", back, d)
	}

	// A duplicate's cluster is optional field 3.
	d.Original, d.Via, d.Hops, d.RecordOnly = "o", "vv", 2, true
	want += "03" + "07" + "02" + "01" + "01" + "6f" + "02" + "7676" // tag 3, 7 bytes: hops 2, flags 1, "o", "vv"
	if got := hex.EncodeToString(encodeDoc(nil, &d)); got != want {
		t.Fatalf("record with a cluster %s\nwant                 %s", got, want)
	}
	if back, err = decodeDoc(mustHex(t, want), "a"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("decoded %+v, want %+v", back, d)
	}

	// The confirmation sketch is optional field 4: its 256 values.
	for i := range d.Long {
		d.Long[i] = uint8(i)
	}
	want += "04" + "8002" // tag 4, 256 bytes
	for i := range 256 {
		want += hex.EncodeToString([]byte{byte(i)})
	}
	if got := hex.EncodeToString(encodeDoc(nil, &d)); got != want {
		t.Fatalf("record with a long sketch %s\nwant                      %s", got, want)
	}
	if back, err = decodeDoc(mustHex(t, want), "a"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("decoded %+v, want %+v", back, d)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	docs := []Doc{
		{ID: "zero"},
		{ID: "full", Fingerprint: 1, ContentHash: 2, Title: "标题 title", Keywords: []tfidf.Keyword{{Word: "新闻", Weight: 0.25}, {Word: "", Weight: -1}},
			Sketch: minhash.New("the quick brown fox jumps over the lazy dog"), Added: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
			Job: "job-1", Seq: 1<<40 + 3, Shingles: 39},
		{ID: "member", Title: "copy", Sketch: minhash.New("the quick brown fox jumps over the lazy cat"), Added: time.Unix(7, 0).UTC(),
			Shingles: 39, Original: "full", Via: "other member", Hops: 3, More: []string{"x", "y"}},
		{ID: "old", Added: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)},
	}
	s, l, n := minhash.NewAll("正文 the text of a record with a confirmation sketch")
	docs = append(docs, Doc{ID: "long", Sketch: s, Long: l, Shingles: n, Added: time.Unix(9, 0).UTC(), Original: "full", Via: "full", Hops: 1})
	for _, d := range docs {
		got, err := decodeDoc(encodeDoc(nil, &d), d.ID)
		if err != nil {
			t.Fatalf("%s: %v", d.ID, err)
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("%s: decoded %+v, want %+v", d.ID, got, d)
		}
	}
}

// TestDecodeDocUnknownFields checks that a record with optional fields a
// reader does not know decodes to the document without them.
func TestDecodeDocUnknownFields(t *testing.T) {
	d := Doc{ID: "x", Title: "Hi", Added: time.Unix(5, 0).UTC(), Sketch: minhash.New("hello world")}
	rec := append(encodeDoc(nil, &d), 7, 3, 'a', 'b', 'c', 9, 0)
	got, err := decodeDoc(rec, "x")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("decoded %+v, want %+v", got, d)
	}
}

func TestDecodeDocErrors(t *testing.T) {
	epoch := encodeDoc(nil, &Doc{Added: time.Unix(0, 0)}) // 19 header bytes, then title, keywords, sketch
	good := encodeDoc(nil, &Doc{Title: "Hi", Keywords: []tfidf.Keyword{{Word: "x", Weight: 1}}, Sketch: minhash.New("hello world")})
	tests := []struct {
		name string
		rec  []byte
		want string
	}{
		{"empty", nil, "version: need 1 bytes, have 0"},
		{"version", append([]byte{2}, good[1:]...), "record version 2: want 1"},
		{"short hashes", good[:10], "hashes: need 16 bytes, have 9"},
		{"field without length", append(append([]byte(nil), good...), 1), "field length: bad uvarint"},
		{"field too long", append(append([]byte(nil), good...), 1, 5, 'a'), "field length: 5 does not fit in the 1 bytes left"},
		{"field tag 0", append(append([]byte(nil), good...), 0, 0), "field tag 0 after 0"},
		{"fields out of order", append(append([]byte(nil), good...), 7, 1, 'a', 4, 0), "field tag 4 after 7"},
		{"passages, a short one", append(append([]byte(nil), good...), 5, 9, 0, 0, 0, 0, 0, 0, 0, 1, 2), "passage field: 9 bytes, want a multiple of 8"},
		{"cluster without via", append(append([]byte(nil), good...), 3, 4, 1, 0, 1, 'o'), "cluster field: byte 4: via length: bad uvarint"},
		{"cluster hops 0", append(append([]byte(nil), good...), 3, 6, 0, 0, 1, 'o', 1, 'v'), "cluster field 0000016f0176: want hops from 1"},
		{"cluster flags", append(append([]byte(nil), good...), 3, 6, 1, 2, 1, 'o', 1, 'v'), "cluster field 010201"},
		{"cluster, an empty more", append(append([]byte(nil), good...), 3, 7, 1, 0, 1, 'o', 1, 'v', 0), "cluster field: byte 7: empty id in more"},
		{"cluster, a short more", append(append([]byte(nil), good...), 3, 7, 1, 0, 1, 'o', 1, 'v', 2), "cluster field: byte 7: more length: 2 does not fit"},
		{"empty set size", append(append([]byte(nil), good...), 2, 0), "content-set size field : want one uvarint from 1"},
		{"set size 0", append(append([]byte(nil), good...), 2, 1, 0), "content-set size field 00: want one uvarint"},
		{"set size and more", append(append([]byte(nil), good...), 2, 2, 5, 5), "content-set size field 0505: want one uvarint"},
		{"set size too large", append(append([]byte(nil), good...), 2, 5, 0xff, 0xff, 0xff, 0xff, 0x0f), "content-set size field ffffffff0f"},
		{"short long sketch", append(append([]byte(nil), good...), 4, 3, 1, 2, 3), "confirmation sketch field: minhash: invalid sketch encoding: long sketch of 3 bytes, want 256"},
		{"long sketch of zeros", append(append(append([]byte(nil), good...), 4, 0x80, 2), make([]byte, 256)...), "confirmation sketch field: minhash: invalid sketch encoding: long sketch of zeros only"},
		{"title too long", append(epoch[:19:19], 0x7f, 'H'), "title length: 127 does not fit"},
		{"sketch size", append(epoch[:19:19], 0, 0, 3), "sketch size 3: want 0, 16 or 64"},
		{"truncated sketch", good[:len(good)-3], "sketch: need 128 bytes, have 127"},
		{"truncated seq", good[:len(good)-1], "seq: bad uvarint"},
		{"job too long", append(good[:len(good)-2:len(good)-2], 5, 'j'), "job length: 5 does not fit"},
		{"nanoseconds", []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0, 0, 0}, "added nanoseconds 1000000000"},
		{"bad uvarint", append(epoch[:18:18], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "added nanoseconds: bad uvarint"},
	}
	for _, tt := range tests {
		_, err := decodeDoc(tt.rec, "x")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// FuzzDecodeDoc checks that decoding never panics and that whatever
// decodes re-encodes to a record that decodes to the same bytes again.
func FuzzDecodeDoc(f *testing.F) {
	f.Add(encodeDoc(nil, &Doc{}))
	f.Add(encodeDoc(nil, &Doc{Fingerprint: 7, ContentHash: 9, Title: "t", Keywords: []tfidf.Keyword{{Word: "w", Weight: math.NaN()}},
		Sketch: minhash.New("some text here"), Added: time.Unix(1e9, 1), Shingles: 10}))
	f.Add(encodeDoc(nil, &Doc{Title: "t", Added: time.Unix(1e9, 1), Shingles: 10, Original: "o", Via: "v", Hops: 1, RecordOnly: true}))
	f.Add(encodeDoc(nil, &Doc{Title: "t", Text: "正文 text kept with the record", Shingles: 7, Original: "o", Via: "v", Hops: 2}))
	s, l, n := minhash.NewAll("a text with both sketches")
	f.Add(encodeDoc(nil, &Doc{Title: "t", Sketch: s, Long: l, Shingles: n, Original: "o", Via: "v", Hops: 1}))
	if b, err := BatchRecord(nil, encodeDoc(nil, &Doc{Sketch: s, Long: l, Shingles: n}), "id"); err == nil {
		f.Add(b)
	}
	f.Add([]byte{1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, rec []byte) {
		// BatchRecord checks a record as decodeRecord does without
		// its text.
		_, errHead := decodeRecord(rec, "id", false)
		if _, err := BatchRecord(nil, rec, "id"); (err == nil) != (errHead == nil) || err != nil && !strings.HasSuffix(err.Error(), errHead.Error()) {
			t.Fatalf("BatchRecord: %v; decodeRecord without the text: %v", err, errHead)
		}
		d, err := decodeDoc(rec, "id")
		if err != nil {
			return
		}
		enc := encodeDoc(nil, &d)
		d2, err := decodeDoc(enc, "id")
		if err != nil {
			t.Fatalf("re-encoded record %x does not decode: %v", enc, err)
		}
		if enc2 := encodeDoc(nil, &d2); !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encoding changed the record:\n%x\n%x", enc, enc2)
		}
		// A record that decodes has a lean record, which decodes to it
		// without title, keywords and text.
		lean, err := LeanRecord(nil, rec, "id")
		if err != nil {
			t.Fatalf("LeanRecord of a record that decodes: %v", err)
		}
		dl, err := decodeDoc(lean, "id")
		if err != nil {
			t.Fatalf("lean record %x does not decode: %v", lean, err)
		}
		d.Title, d.Keywords, d.Text = "", nil, ""
		if !bytes.Equal(encodeDoc(nil, &dl), encodeDoc(nil, &d)) {
			t.Fatalf("lean record decodes to\n%+v\nwant\n%+v", dl, d)
		}
		// And a batch record: the lean one, with band digests for the
		// sketch when there is a Long.
		batch, err := BatchRecord(nil, rec, "id")
		if err != nil {
			t.Fatalf("BatchRecord of a record that decodes: %v", err)
		}
		db, err := decodeDoc(batch, "id")
		if err != nil {
			t.Fatalf("batch record %x does not decode: %v", batch, err)
		}
		if !d.Long.IsZero() && !d.Sketch.IsZero() && !digested(&d.Sketch) {
			d.Sketch = digestBands(&d.Sketch)
		}
		if !bytes.Equal(encodeDoc(nil, &db), encodeDoc(nil, &d)) || sharesBand(&db.Sketch, &dl.Sketch) != !d.Sketch.IsZero() {
			t.Fatalf("batch record decodes to\n%+v\nwant\n%+v", db, d)
		}
	})
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordText checks the kept text: field 1 after the fields of a
// record without it (which are unchanged), a zstd frame of the text;
// decoded with the text or without it; a corrupt frame is an error only
// when the text is asked for.
func TestRecordText(t *testing.T) {
	text := strings.Repeat("金庸先生的武侠小说影响了几代读者。The text is kept. ", 20)
	d := Doc{ID: "a", Title: "Hi", Added: time.Unix(300, 5).UTC(), Sketch: minhash.New(text)}
	bare := encodeDoc(nil, &d)
	d.Text = text
	rec := encodeDoc(nil, &d)
	if !bytes.HasPrefix(rec, bare) {
		t.Fatalf("record with text %x does not start with the record without it %x", rec, bare)
	}
	field := rec[len(bare):]
	n, w := binary.Uvarint(field[1:])
	if field[0] != 1 || w <= 0 || int(n) != len(field)-1-w {
		t.Fatalf("text field %x: want tag 1, then the length of the rest", field[:min(len(field), 8)])
	}
	frame := field[1+w:]
	if !bytes.HasPrefix(frame, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Errorf("text field %x…: want a zstd frame", frame[:4])
	}
	if len(frame) >= len(text)/4 {
		t.Errorf("text of %d bytes (a sentence repeated) takes %d bytes compressed", len(text), len(frame))
	}
	got, err := decodeDoc(rec, "a")
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, d)
	}
	noText, err := decodeRecord(rec, "a", false)
	want := d
	want.Text = ""
	if err != nil || !reflect.DeepEqual(noText, want) {
		t.Errorf("decoded without text: %+v, %v; want %+v", noText, err, want)
	}
	bad := bytes.Clone(rec)
	bad[len(bad)-5] ^= 0xff // inside the frame's last block or checksum
	if _, err := decodeDoc(bad, "a"); err == nil || !strings.Contains(err.Error(), "text: ") {
		t.Errorf("corrupt text: error %v, want one about the text", err)
	}
	if _, err := decodeRecord(bad, "a", false); err != nil {
		t.Errorf("corrupt text not asked for: %v", err)
	}
}

// LeanRecord drops the title, keywords and kept text and keeps every
// other field byte for byte.
func TestLeanRecord(t *testing.T) {
	d := Doc{
		ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 0xfedcba9876543210,
		Title: "Hi", Keywords: []tfidf.Keyword{{Word: "x", Weight: 1.5}},
		Added: time.Unix(300, 5).UTC(), Job: "j", Seq: 300, Shingles: 3,
		Original: "o", Via: "v", Hops: 2, Text: "some text",
	}
	d.Sketch[0], d.Long[0] = 7, 9
	got, err := LeanRecord([]byte("x"), encodeDoc(nil, &d), "a")
	if err != nil {
		t.Fatal(err)
	}
	want := "78" + // dst's byte
		"01" + "0123456789abcdef" + "fedcba9876543210" + "d804" + "05" +
		"00" + // no title
		"00" + // no keywords
		"40" + "0700" + strings.Repeat("00", 2*minhash.Size-2) + // sketch: 64 values
		"01" + "6a" + "ac02" +
		"02" + "01" + "03" + // field 2, shingles 3
		"03" + "06" + "02" + "00" + "01" + "6f" + "01" + "76" + // field 3, 6 bytes: hops 2, flags 0, "o", "v"
		"04" + "8002" + "09" + strings.Repeat("00", minhash.LongSize-1) // field 4: the Long
	if h := hex.EncodeToString(got); h != want {
		t.Errorf("LeanRecord = %s\nwant          %s", h, want)
	}
	if _, err := LeanRecord(nil, []byte{9}, "bad"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("LeanRecord of a bad record: %v", err)
	}
}

// BatchRecord is LeanRecord with the 64-value sketch replaced by an
// 8-bit digest of each band when the record keeps a Long; without one
// it is LeanRecord. The digests (the top 8 bits of the band value
// times 0x9e3779b97f4a7c15) were worked out apart from the code.
func TestBatchRecord(t *testing.T) {
	d := Doc{
		ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 0xfedcba9876543210,
		Title: "Hi", Keywords: []tfidf.Keyword{{Word: "x", Weight: 1.5}},
		Added: time.Unix(300, 5).UTC(), Job: "j", Seq: 300, Shingles: 3, Text: "some text",
	}
	for i := range d.Sketch {
		d.Sketch[i] = uint16(3*i + 1)
	}
	d.Long[0] = 9
	got, err := BatchRecord([]byte("x"), encodeDoc(nil, &d), "a")
	if err != nil {
		t.Fatal(err)
	}
	want := "78" + // dst's byte
		"01" + "0123456789abcdef" + "fedcba9876543210" + "d804" + "05" +
		"00" + // no title
		"00" + // no keywords
		"10" + // 16 band digests
		"fbe3cbb29a826a51392109f0d8c0a890" +
		"01" + "6a" + "ac02" +
		"02" + "01" + "03" + // field 2, shingles 3
		"04" + "8002" + "09" + strings.Repeat("00", minhash.LongSize-1) // field 4: the Long
	if h := hex.EncodeToString(got); h != want {
		t.Errorf("BatchRecord = %s\nwant          %s", h, want)
	}
	back, err := decodeDoc(got[1:], "a")
	if err != nil {
		t.Fatal(err)
	}
	var sk minhash.Sketch
	for b, v := range []uint16{0xfb, 0xe3, 0xcb, 0xb2, 0x9a, 0x82, 0x6a, 0x51, 0x39, 0x21, 0x09, 0xf0, 0xd8, 0xc0, 0xa8, 0x90} {
		sk[b*BandRows] = v
	}
	if back.Sketch != sk {
		t.Errorf("decoded sketch %v, want the digests at every fourth value: %v", back.Sketch, sk)
	}
	// Made again from itself, a batch record is unchanged.
	again, err := BatchRecord(nil, got[1:], "a")
	if err != nil || !bytes.Equal(again, got[1:]) {
		t.Errorf("BatchRecord of a batch record = %x, %v; want it unchanged", again, err)
	}
	// Without a Long, the sketch stays: LeanRecord's record.
	d.Long = minhash.Long{}
	rec := encodeDoc(nil, &d)
	lean, _ := LeanRecord(nil, rec, "a")
	if got, err := BatchRecord(nil, rec, "a"); err != nil || !bytes.Equal(got, lean) {
		t.Errorf("BatchRecord without a Long = %x, %v; want LeanRecord's %x", got, err, lean)
	}
	if _, err := BatchRecord(nil, []byte{9}, "bad"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("BatchRecord of a bad record: %v", err)
	}
	// A digest of 0 is refused: no band digest is 0.
	bad := bytes.Clone(got[1:])
	bad[22+1+2] = 0 // the third digest
	if _, err := decodeDoc(bad, "a"); err == nil || !strings.Contains(err.Error(), "byte 25: band digest 2 is 0") {
		t.Errorf("a zero band digest: error %v", err)
	}
}

// sharesBand compares band values, or their digests when either sketch
// holds only those.
func TestSharesBand(t *testing.T) {
	var a minhash.Sketch
	for i := range a {
		a[i] = uint16(3*i + 1)
	}
	oneBand := a // band 5 agrees, every other band differs in one value
	for b := range Bands {
		if b != 5 {
			oneBand[b*BandRows+2]++
		}
	}
	none := oneBand
	none[5*BandRows+3]++
	partial := minhash.Sketch{0: 1} // a sketch with a value 0: not digested
	for _, c := range []struct {
		name string
		a, b minhash.Sketch
		want bool
	}{
		{"same", a, a, true},
		{"one band", a, oneBand, true},
		{"none", a, none, false},
		{"zero", a, minhash.Sketch{}, false},
		{"digests of the same", a, digestBands(&a), true},
		{"digests, one band", digestBands(&oneBand), a, true},
		{"digests, none", a, digestBands(&none), false},
		{"both digested, one band", digestBands(&a), digestBands(&oneBand), true},
		{"not digested: compared by value", partial, partial, true},
		{"not digested, against another", partial, a, false},
	} {
		if got := sharesBand(&c.a, &c.b); got != c.want {
			t.Errorf("%s: sharesBand = %v, want %v", c.name, got, c.want)
		}
		if got := sharesBand(&c.b, &c.a); got != c.want {
			t.Errorf("%s, swapped: sharesBand = %v, want %v", c.name, got, c.want)
		}
	}
}

// A batch record's band digests give no band keys: the document is
// filed, and its postings removed, under its table, content and
// passage keys alone, while the record it was made from gives all.
func TestBatchRecordKeys(t *testing.T) {
	l, err := newLayout(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := &Index{layout: l}
	d := Doc{ID: "a", Fingerprint: 0x0123456789abcdef, ContentHash: 7, Passages: []uint64{9}}
	for i := range d.Sketch {
		d.Sketch[i] = uint16(3*i + 1)
	}
	d.Long[0] = 1
	batch, err := BatchRecord(nil, encodeDoc(nil, &d), "a")
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeDoc(batch, "a")
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(keys []Key) map[Kind]int {
		n := map[Kind]int{}
		for _, k := range keys {
			n[k.Kind]++
		}
		return n
	}
	if got, want := kinds(x.keys(nil, &d)), map[Kind]int{KindTable: 4, KindContent: 1, KindBand: Bands, KindPassage: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys of the document: %v, want %v", got, want)
	}
	if got, want := kinds(x.oldKeys(&back)), map[Kind]int{KindTable: 4, KindContent: 1, KindPassage: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys of its batch record: %v, want %v", got, want)
	}
}

// RestoreSketch gives a batch record's document its sketch back from
// its band keys' values, and refuses values whose digests differ, a
// document without digests, and values that are not a sketch's.
func TestRestoreSketch(t *testing.T) {
	var sk minhash.Sketch
	for i := range sk {
		sk[i] = uint16(3*i + 1)
	}
	var bands [Bands]uint64
	for b := range Bands {
		bands[b] = bandValue(&sk, b)
	}
	if bands[1] != 0x000d_0010_0013_0016 {
		t.Fatalf("band 1's value %x, want d, 10, 13, 16", bands[1])
	}
	d := Doc{Sketch: digestBands(&sk)}
	if !RestoreSketch(&d, &bands) || d.Sketch != sk {
		t.Errorf("RestoreSketch: %v, want %v", d.Sketch, sk)
	}
	// Now whole: nothing to restore.
	if RestoreSketch(&d, &bands) {
		t.Errorf("RestoreSketch of a whole sketch: true")
	}
	d = Doc{Sketch: digestBands(&sk)}
	wrong := bands
	wrong[7]++
	if RestoreSketch(&d, &wrong) || d.Sketch != digestBands(&sk) {
		t.Errorf("RestoreSketch with band 7 changed: true or sketch changed: %v", d.Sketch)
	}
	var zero [Bands]uint64
	var zeroSk minhash.Sketch
	z := Doc{Sketch: digestBands(&zeroSk)}
	if RestoreSketch(&z, &zero) {
		t.Errorf("RestoreSketch of all-zero values: true")
	}
}
