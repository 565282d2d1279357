package index

import (
	"encoding/hex"
	"reflect"
	"slices"
	"testing"
	"time"
)

// The passage fields: 5, 8 bytes a fingerprint, big-endian, when one
// is at least 2^32; 6, 4 bytes each, when all are below (the 32-bit keys
// of package reuse); after the confirmation sketch's field 4, absent
// when a document has none.
func TestRecordPassages(t *testing.T) {
	for _, tt := range []struct {
		passages []uint64
		want     string
	}{
		{[]uint64{0x0102030405060708, 0xffffffffffffffff}, "0510" + "0102030405060708" + "ffffffffffffffff"},
		{[]uint64{1, 0xffffffff}, "0608" + "00000001" + "ffffffff"},
		{[]uint64{0xdeadbeef, 0x100000000}, "0510" + "00000000deadbeef" + "0000000100000000"},
		{[]uint64{7}, "0604" + "00000007"},
	} {
		d := Doc{ID: "a", Added: time.Unix(0, 0).UTC(), Passages: tt.passages}
		rec := encodeDoc(nil, &d)
		bare := encodeDoc(nil, &Doc{ID: "a", Added: time.Unix(0, 0).UTC()})
		if got := hex.EncodeToString(rec[len(bare):]); got != tt.want {
			t.Errorf("%x: passage field = %s, want %s", tt.passages, got, tt.want)
		}
		got, err := decodeDoc(rec, "a")
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("%x: decoded %+v, %v; want %+v", tt.passages, got, err, d)
		}
	}
	bare := encodeDoc(nil, &Doc{ID: "a", Added: time.Unix(0, 0).UTC()})
	for _, bad := range []string{
		"0605" + "0000000700",                             // not a multiple of 4
		"0508" + "0000000000000007" + "0604" + "00000007", // both fields
	} {
		tail, _ := hex.DecodeString(bad)
		if _, err := decodeDoc(append(slices.Clone(bare), tail...), "a"); err == nil {
			t.Errorf("a record ending %s: no error", bad)
		}
	}
}

// DecodeRecordHead leaves the kept text out.
func TestDecodeRecordHead(t *testing.T) {
	d := Doc{ID: "a", Added: time.Unix(0, 0).UTC(), Text: "kept text", Passages: []uint64{7}}
	got, err := DecodeRecordHead("a", encodeDoc(nil, &d))
	d.Text = ""
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Errorf("DecodeRecordHead = %+v, %v; want %+v", got, err, d)
	}
	if _, err := DecodeRecordHead("a", []byte{2}); err == nil {
		t.Error("DecodeRecordHead of a bad record: no error")
	}
}
