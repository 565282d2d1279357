package index

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"
)

// The passage field (5): 8 bytes a fingerprint, big-endian, after the
// confirmation sketch's field 4; absent when a document has none.
func TestRecordPassages(t *testing.T) {
	d := Doc{ID: "a", Added: time.Unix(0, 0).UTC(), Passages: []uint64{0x0102030405060708, 0xffffffffffffffff}}
	rec := encodeDoc(nil, &d)
	bare := encodeDoc(nil, &Doc{ID: "a", Added: time.Unix(0, 0).UTC()})
	if got, want := hex.EncodeToString(rec[len(bare):]), "0510"+"0102030405060708"+"ffffffffffffffff"; got != want {
		t.Errorf("passage field = %s, want %s", got, want)
	}
	got, err := decodeDoc(rec, "a")
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Errorf("decoded %+v, %v; want %+v", got, err, d)
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
