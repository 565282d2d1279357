package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/tfidf"
)

// Doc is one indexed document.
type Doc struct {
	ID          string              // unique, 1 to MaxIDLen bytes
	Fingerprint simhash.Fingerprint // SimHash of the keywords
	ContentHash uint64              // hash of the normalised text; equal hashes mean identical content
	Title       string
	Keywords    []tfidf.Keyword
	Sketch      minhash.Sketch // MinHash of the content; zero when unknown
	// Shingles is the number of distinct character 5-grams the Sketch
	// is of (minhash.NewCount); 0 when unknown (a record written before
	// it was kept), which leaves containment unestimated.
	Shingles int
	// Long is the confirmation sketch of the same content
	// (minhash.NewAll), in the record's optional field 4; the zero Long
	// when unknown (a record written before it was kept), when Similar
	// and Confirmed fall back to the Sketch.
	Long minhash.Long
	// Original, Via and Hops place a duplicate that dedup archived (see
	// dedup.Run): Original is the original of the cluster it joined, Via
	// the archived document it matched (Original itself or another
	// member), Hops the number of matches from Original to it (1 when
	// Via is Original), and More the archived documents it matched in
	// other clusters (one each). Empty and 0 for an original.
	Original string
	Via      string
	Hops     int
	More     []string
	// RecordOnly files the document under its content hash alone, not
	// in the SimHash tables or sketch bands: an exact duplicate adds no
	// candidate its cluster does not have (queries with its content hash
	// still return it, as an exact match). Only for a duplicate
	// (Original set).
	RecordOnly bool
	Added      time.Time
	// Passages are the document's passage fingerprints (package reuse:
	// the archive's reuse index), filed under KindPassage keys and kept
	// in the record's optional field 5, so that replacing or deleting
	// the document removes their postings. nil for a document of an
	// archive without a reuse index, or for a RecordOnly one (which
	// files none).
	Passages []uint64
	// Job and Seq say what added the document: a batch job's name and
	// the record's position in its input (see dedup.Run, which uses
	// them to resume an interrupted job). Empty and 0 otherwise.
	Job string
	Seq int64
	// Text is the article's text, kept only when a caller sets it (the
	// HTTP service does, to show what two articles share): compressed
	// with zstd in the record's optional field 1 (fieldText). A record
	// without it is byte for byte what it was before the field
	// existed. Get returns it; Similar does not decompress it, so its
	// matches never carry it.
	Text string
}

// Tags of the optional record fields (see encodeDoc), and the flags of
// the cluster field.
const (
	fieldText       = 1
	fieldShingles   = 2
	fieldCluster    = 3
	fieldLong       = 4
	fieldPassages   = 5
	fieldPassages32 = 6

	flagRecordOnly = 1
)

// maxText is the largest kept text a record's field may decompress to
// (a corrupt field cannot make a reader allocate more).
const maxText = 1 << 30

// textCodec compresses and decompresses kept texts. Its encoder and
// decoder are safe for concurrent use (EncodeAll, DecodeAll) and hold no
// state between calls that changes what they produce; they are made on
// first use, so that a program that keeps no text never allocates them.
//
// Making them fails only for invalid options, which these are not; the
// error is returned all the same (by checkDocs before a write, and as a
// decoding error), and encodeDoc, which runs after checkDocs, leaves the
// text out if it happens.
var textCodec = sync.OnceValues(func() (*codec, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("index: text compressor: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxText))
	if err != nil {
		return nil, fmt.Errorf("index: text decompressor: %w", err)
	}
	return &codec{enc, dec}, nil
})

type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// TextSize is the kept text of one record: its length and the bytes it
// takes compressed (see RecordText).
type TextSize struct {
	Bytes, Stored int64
}

// recordVersion is the first byte of every encoded record.
const recordVersion = 1

// encodeDoc appends the record of d (everything but the ID, which is in
// the key) to dst:
//
//	version      1 byte, recordVersion
//	fingerprint  8 bytes big-endian
//	content hash 8 bytes big-endian
//	added        varint seconds since 1970 UTC, uvarint nanoseconds
//	title        uvarint length, UTF-8 bytes
//	keywords     uvarint count, then each: uvarint length, bytes, 8-byte little-endian IEEE 754 weight
//	sketch       uvarint count (0 or minhash.Size), then count 2-byte little-endian values;
//	             or, in a batch record (BatchRecord), count Bands and each
//	             band's 8-bit digest (see digested)
//	job          uvarint length, bytes
//	seq          uvarint
//	text         optional field 1 (fieldText), when d.Text is not empty:
//	             a zstd frame (with its content size and checksum)
//	fields       optional, to the end of the record: each a uvarint tag,
//	             a uvarint length and that many bytes, tags ascending; a
//	             reader skips the tags it does not know, so a field can be
//	             added without a new version (records without one are
//	             byte for byte what they were). Known tags:
//	  1          the kept text (Doc.Text), zstd-compressed; only when it is
//	             not empty
//	  2          content-set size: a uvarint, Doc.Shingles; only when it is
//	             not 0
//	  3          cluster, only for a duplicate (Doc.Original set): uvarint
//	             hops, uvarint flags (1: record only), uvarint length and
//	             bytes of the original's ID, then of Via, then of each of
//	             More
//	  4          confirmation sketch (Doc.Long): minhash.LongEncodedSize
//	             bytes, its values in order; only when it is not zero
//	  5          passage fingerprints (Doc.Passages): 8 bytes each,
//	             big-endian, in order; only when there are some and one
//	             is at least 2^32
//	  6          passage fingerprints (Doc.Passages) all below 2^32 (the
//	             32-bit keys of package reuse): 4 bytes each, big-endian,
//	             in order; only when there are some
func encodeDoc(dst []byte, d *Doc) []byte {
	dst = append(dst, recordVersion)
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.Fingerprint))
	dst = binary.BigEndian.AppendUint64(dst, d.ContentHash)
	dst = binary.AppendVarint(dst, d.Added.Unix())
	dst = binary.AppendUvarint(dst, uint64(d.Added.Nanosecond()))
	dst = binary.AppendUvarint(dst, uint64(len(d.Title)))
	dst = append(dst, d.Title...)
	dst = binary.AppendUvarint(dst, uint64(len(d.Keywords)))
	for _, k := range d.Keywords {
		dst = binary.AppendUvarint(dst, uint64(len(k.Word)))
		dst = append(dst, k.Word...)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(k.Weight))
	}
	switch {
	case d.Sketch.IsZero():
		dst = binary.AppendUvarint(dst, 0)
	case digested(&d.Sketch):
		dst = binary.AppendUvarint(dst, Bands)
		for b := range Bands {
			dst = append(dst, byte(d.Sketch[b*BandRows]))
		}
	default:
		dst = binary.AppendUvarint(dst, minhash.Size)
		for _, v := range d.Sketch {
			dst = binary.LittleEndian.AppendUint16(dst, v)
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(d.Job)))
	dst = append(dst, d.Job...)
	dst = binary.AppendUvarint(dst, uint64(d.Seq))
	if d.Text != "" {
		if c, err := textCodec(); err == nil {
			dst = appendField(dst, fieldText, c.enc.EncodeAll([]byte(d.Text), nil))
		}
	}
	if d.Shingles > 0 {
		dst = appendField(dst, fieldShingles, binary.AppendUvarint(nil, uint64(d.Shingles)))
	}
	if d.Original != "" {
		f := binary.AppendUvarint(nil, uint64(d.Hops))
		flags := uint64(0)
		if d.RecordOnly {
			flags |= flagRecordOnly
		}
		f = binary.AppendUvarint(f, flags)
		f = binary.AppendUvarint(f, uint64(len(d.Original)))
		f = append(f, d.Original...)
		for _, id := range append([]string{d.Via}, d.More...) {
			f = binary.AppendUvarint(f, uint64(len(id)))
			f = append(f, id...)
		}
		dst = appendField(dst, fieldCluster, f)
	}
	if !d.Long.IsZero() {
		dst = appendField(dst, fieldLong, d.Long[:])
	}
	if len(d.Passages) > 0 {
		if slices.ContainsFunc(d.Passages, func(p uint64) bool { return p > math.MaxUint32 }) {
			f := make([]byte, 0, 8*len(d.Passages))
			for _, p := range d.Passages {
				f = binary.BigEndian.AppendUint64(f, p)
			}
			dst = appendField(dst, fieldPassages, f)
		} else {
			f := make([]byte, 0, 4*len(d.Passages))
			for _, p := range d.Passages {
				f = binary.BigEndian.AppendUint32(f, uint32(p))
			}
			dst = appendField(dst, fieldPassages32, f)
		}
	}
	return dst
}

// appendField appends an optional field: its tag, length and bytes.
func appendField(dst []byte, tag uint64, b []byte) []byte {
	dst = binary.AppendUvarint(dst, tag)
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// decoder reads a record, remembering the first error.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("byte %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail("%s: need %d bytes, have %d", what, n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("%s: bad uvarint", what)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.fail("%s: bad varint", what)
		return 0
	}
	d.off += n
	return v
}

// length reads a uvarint count of items each at least min bytes long,
// rejecting counts the rest of the record cannot hold.
func (d *decoder) length(what string, min int) int {
	v := d.uvarint(what)
	if d.err != nil {
		return 0
	}
	if rest := uint64(len(d.b) - d.off); v > rest/uint64(min) {
		d.fail("%s: %d does not fit in the %d bytes left", what, v, rest)
		return 0
	}
	return int(v)
}

// decodeDoc decodes a record written by encodeDoc, with its text. The
// error says what is wrong and where; callers add the key.
func decodeDoc(b []byte, id string) (Doc, error) {
	return decodeRecord(b, id, true)
}

// decodeRecord decodes a record, decompressing its text only when
// withText is set (a corrupt text is an error then, and unseen
// otherwise).
func decodeRecord(b []byte, id string, withText bool) (Doc, error) {
	doc, _, err := decodeFields(b, id, withText)
	return doc, err
}

// decodeFields is decodeRecord that also returns the bytes of the text
// field (nil when there is none).
func decodeFields(b []byte, id string, withText bool) (Doc, []byte, error) {
	d := decoder{b: b}
	var text []byte
	doc := Doc{ID: id}
	if v := d.bytes(1, "version"); v != nil && v[0] != recordVersion {
		return Doc{}, nil, fmt.Errorf("record version %d: want %d", v[0], recordVersion)
	}
	d.head(&doc)
	d.fields(func(tag uint64, p []byte, start int) {
		if tag != fieldText {
			d.field(&doc, tag, p, start)
			return
		}
		text = p
		if withText {
			d.text(&doc, p, start)
		}
	})
	if d.err != nil {
		return Doc{}, nil, d.err
	}
	return doc, text, nil
}

// fields reads the optional fields that follow a record's head, each a
// tag, a length and its bytes, in ascending order of tag, and calls fn
// with each field's tag, bytes and offset, until the end of the record
// or the first error.
func (d *decoder) fields(fn func(tag uint64, p []byte, start int)) {
	for last := uint64(0); d.err == nil && d.off < len(d.b); {
		tag := d.uvarint("field tag")
		n := d.length("field length", 1)
		start := d.off
		p := d.bytes(n, "field")
		switch {
		case d.err != nil:
		case tag <= last:
			d.fail("field tag %d after %d: want ascending tags above 0", tag, last)
		default:
			fn(tag, p, start)
		}
		last = tag
	}
}

// head decodes the fields every record has, after its version: the
// hashes, when it was added, the title, keywords and sketch, the job
// and the position in it.
func (d *decoder) head(doc *Doc) {
	if p := d.bytes(16, "hashes"); p != nil {
		doc.Fingerprint = simhash.Fingerprint(binary.BigEndian.Uint64(p))
		doc.ContentHash = binary.BigEndian.Uint64(p[8:])
	}
	sec := d.varint("added seconds")
	nsec := d.uvarint("added nanoseconds")
	if d.err == nil && nsec >= 1e9 {
		d.fail("added nanoseconds %d: want below 1e9", nsec)
	}
	doc.Added = time.Unix(sec, int64(nsec)).UTC()
	doc.Title = string(d.bytes(d.length("title length", 1), "title"))
	if n := d.length("keyword count", 9); n > 0 {
		doc.Keywords = make([]tfidf.Keyword, n)
		for i := range doc.Keywords {
			w := d.bytes(d.length("keyword length", 1), "keyword")
			p := d.bytes(8, "keyword weight")
			if d.err != nil {
				break
			}
			doc.Keywords[i] = tfidf.Keyword{Word: string(w), Weight: math.Float64frombits(binary.LittleEndian.Uint64(p))}
		}
	}
	switch n := d.uvarint("sketch size"); {
	case d.err != nil:
	case n == minhash.Size:
		p := d.bytes(2*minhash.Size, "sketch")
		for i := 0; p != nil && i < minhash.Size; i++ {
			doc.Sketch[i] = binary.LittleEndian.Uint16(p[2*i:])
		}
	case n == Bands:
		p := d.bytes(Bands, "band digests")
		for b := 0; p != nil && b < Bands; b++ {
			if p[b] == 0 {
				d.off -= Bands - b
				d.fail("band digest %d is 0", b)
				return
			}
			doc.Sketch[b*BandRows] = uint16(p[b])
		}
	case n != 0:
		d.fail("sketch size %d: want 0, %d or %d", n, Bands, minhash.Size)
	}
	doc.Job = string(d.bytes(d.length("job length", 1), "job"))
	if seq := d.uvarint("seq"); seq > math.MaxInt64 {
		d.fail("seq %d: out of range", seq)
	} else {
		doc.Seq = int64(seq)
	}
}

// text decompresses the text field p, which starts at offset start.
func (d *decoder) text(doc *Doc, p []byte, start int) {
	c, err := textCodec()
	var t []byte
	if err == nil {
		t, err = c.dec.DecodeAll(p, nil)
	}
	if err != nil {
		d.off = start
		d.fail("text: %v", err)
	}
	doc.Text = string(t)
}

// field decodes the tagged field p (not the text), which starts at
// offset start; an unknown tag is skipped.
func (d *decoder) field(doc *Doc, tag uint64, p []byte, start int) {
	switch tag {
	case fieldShingles:
		v, k := binary.Uvarint(p)
		if k != len(p) || v == 0 || v > math.MaxInt32 {
			d.fail("content-set size field %x: want one uvarint from 1 to %d", p, math.MaxInt32)
		}
		doc.Shingles = int(v)
	case fieldCluster:
		d.cluster(doc, p)
	case fieldLong:
		if err := doc.Long.UnmarshalBinary(p); err != nil {
			d.off = start
			d.fail("confirmation sketch field: %v", err)
		}
	case fieldPassages:
		if len(p)%8 != 0 {
			d.off = start
			d.fail("passage field: %d bytes, want a multiple of 8", len(p))
			return
		}
		doc.Passages = make([]uint64, len(p)/8)
		for i := range doc.Passages {
			doc.Passages[i] = binary.BigEndian.Uint64(p[8*i:])
		}
	case fieldPassages32:
		if doc.Passages != nil {
			d.off = start
			d.fail("32-bit passage field after the 64-bit one: want one of them")
			return
		}
		if len(p)%4 != 0 {
			d.off = start
			d.fail("32-bit passage field: %d bytes, want a multiple of 4", len(p))
			return
		}
		doc.Passages = make([]uint64, len(p)/4)
		for i := range doc.Passages {
			doc.Passages[i] = uint64(binary.BigEndian.Uint32(p[4*i:]))
		}
	}
}

// cluster decodes the cluster field p: the hops to the original, the
// flags, the original, the member matched (via) and more members.
func (d *decoder) cluster(doc *Doc, p []byte) {
	f := decoder{b: p}
	hops := f.uvarint("hops")
	flags := f.uvarint("flags")
	orig := f.bytes(f.length("original length", 1), "original")
	via := f.bytes(f.length("via length", 1), "via")
	var more []string
	for f.err == nil && f.off < len(p) {
		id := f.bytes(f.length("more length", 1), "more")
		if f.err == nil && len(id) == 0 {
			f.fail("empty id in more")
		}
		more = append(more, string(id))
	}
	switch {
	case f.err != nil:
		d.fail("cluster field: %v", f.err)
	case f.off != len(p) || hops == 0 || hops > math.MaxInt32 || flags&^flagRecordOnly != 0 || len(orig) == 0 || len(via) == 0:
		d.fail("cluster field %x: want hops from 1, flags 0 or 1, an original and a via", p)
	default:
		doc.Hops, doc.RecordOnly = int(hops), flags&flagRecordOnly != 0
		doc.Original, doc.Via, doc.More = string(orig), string(via), more
	}
}

// textSize returns the length and compressed size of the kept text of a
// record, or zeros when it keeps none. The length is read from the zstd
// frame header, without decompressing the text, when the header has it
// (the encoder leaves it out of some frames of very short texts, which
// are decompressed).
func textSize(rec []byte, id string) (n, stored int64, err error) {
	_, field, err := decodeFields(rec, id, false)
	if err != nil || field == nil {
		return 0, 0, err
	}
	var h zstd.Header
	if err := h.Decode(field); err != nil {
		return 0, 0, fmt.Errorf("text: %v", err)
	}
	if h.HasFCS {
		return int64(h.FrameContentSize), int64(len(field)), nil
	}
	c, err := textCodec()
	if err != nil {
		return 0, 0, err
	}
	t, err := c.dec.DecodeAll(field, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("text: %v", err)
	}
	return int64(len(t)), int64(len(field)), nil
}

// DecodeRecord decodes the record of the document id as a Store keeps
// it (see Store.Records). Its error wraps ErrCorrupt. It is for tools
// that read a store's records without an Index (badgerstore.Verify and
// Salvage).
func DecodeRecord(id string, rec []byte) (Doc, error) {
	d, err := decodeDoc(rec, id)
	if err != nil {
		return Doc{}, fmt.Errorf("record of %q: %w: %w", id, ErrCorrupt, err)
	}
	return d, nil
}

// DecodeRecordHead is DecodeRecord without the kept text (Doc.Text
// stays empty, the text is not decompressed): for readers that look at
// a record's other fields first (package reuse).
func DecodeRecordHead(id string, rec []byte) (Doc, error) {
	d, err := decodeRecord(rec, id, false)
	if err != nil {
		return Doc{}, fmt.Errorf("record of %q: %w: %w", id, ErrCorrupt, err)
	}
	return d, nil
}

// LeanRecord appends to dst the record rec of the document id without
// what only explains a match to a person: its title, keywords and kept
// text (the fields a batch run, which explains no match, never reads
// back). The rest is as in rec. Its error wraps ErrCorrupt. A store
// kept for one batch run may keep these in place of the records it is
// given (see memstore.NewLean).
func LeanRecord(dst, rec []byte, id string) ([]byte, error) {
	d, err := decodeRecord(rec, id, false)
	if err != nil {
		return nil, fmt.Errorf("record of %q: %w: %w", id, ErrCorrupt, err)
	}
	d.Title, d.Keywords, d.Text = "", nil, ""
	return encodeDoc(dst, &d), nil
}

// BatchRecord is LeanRecord for a store that never needs a document's
// band keys to remove its postings (memstore.NewLean, kept for one batch
// run; a lean badgerstore or redisstore, which give a replaced document
// a new number): when the record keeps a
// confirmation sketch (Doc.Long), its 64-value sketch, 128 bytes, is
// replaced by an 8-bit digest of each of its bands, 16 bytes (see
// digested). A batch record decodes to a Doc whose Sketch holds the
// digests: it tells whether a candidate shares a band with a query (a
// chance agreement of the digests, about 1/256 a band, changes nothing
// for the candidates the engine confirms, see digested) and that the
// document has a sketch,
// while Content, Containment and Confirmed use the Long, as they do
// for any two documents that both have one. Against a query without a
// Long (a document of a record written before Longs were kept), its
// estimate is meaningless: a store of batch records is for documents
// analysed by one run. Band keys made from a batch record (Index's
// keys and oldKeys) are none: such a store must not need them to
// remove its postings (memstore skips the postings of a replaced or
// deleted document by its slot, a lean badgerstore or redisstore by its
// number); a
// store rebuilt from such records needs their band keys' values
// (RestoreSketch).
func BatchRecord(dst, rec []byte, id string) ([]byte, error) {
	// It copies the fields it keeps as they are, checked as
	// decodeRecord checks them, without making a Doc: it runs once for
	// every document a batch run archives.
	d := decoder{b: rec}
	if v := d.bytes(1, "version"); v != nil && v[0] != recordVersion {
		return nil, fmt.Errorf("record of %q: %w: record version %d: want %d", id, ErrCorrupt, v[0], recordVersion)
	}
	hashes := d.bytes(16, "hashes")
	at := d.off
	d.varint("added seconds")
	if nsec := d.uvarint("added nanoseconds"); d.err == nil && nsec >= 1e9 {
		d.fail("added nanoseconds %d: want below 1e9", nsec)
	}
	added := rec[at:d.off]
	d.bytes(d.length("title length", 1), "title")
	for range d.length("keyword count", 9) {
		d.bytes(d.length("keyword length", 1), "keyword")
		d.bytes(8, "keyword weight")
	}
	var sk minhash.Sketch
	var digests []byte
	switch n := d.uvarint("sketch size"); {
	case d.err != nil:
	case n == minhash.Size:
		p := d.bytes(2*minhash.Size, "sketch")
		for i := 0; p != nil && i < minhash.Size; i++ {
			sk[i] = binary.LittleEndian.Uint16(p[2*i:])
		}
	case n == Bands:
		digests = d.bytes(Bands, "band digests")
		for b := 0; digests != nil && b < Bands; b++ {
			if digests[b] == 0 {
				d.off -= Bands - b
				d.fail("band digest %d is 0", b)
				break
			}
		}
	case n != 0:
		d.fail("sketch size %d: want 0, %d or %d", n, Bands, minhash.Size)
	}
	at = d.off
	d.bytes(d.length("job length", 1), "job")
	if seq := d.uvarint("seq"); seq > math.MaxInt64 {
		d.fail("seq %d: out of range", seq)
	}
	jobSeq := rec[at:d.off]
	// The optional fields but the text, checked by decoding them into
	// a scratch Doc (which allocates only for a cluster or passages).
	type field struct {
		tag uint64
		p   []byte
	}
	var buf [4]field
	fields := buf[:0]
	var scratch Doc
	d.fields(func(tag uint64, p []byte, start int) {
		if tag == fieldText {
			return
		}
		d.field(&scratch, tag, p, start)
		if tag >= fieldShingles && tag <= fieldPassages32 && (tag != fieldLong || !scratch.Long.IsZero()) {
			fields = append(fields, field{tag, p})
		}
	})
	if d.err != nil {
		return nil, fmt.Errorf("record of %q: %w: %w", id, ErrCorrupt, d.err)
	}
	dst = append(dst, recordVersion)
	dst = append(dst, hashes...)
	dst = append(dst, added...)
	dst = append(dst, 0, 0) // no title, no keywords
	switch {
	case digests != nil:
		dst = binary.AppendUvarint(dst, Bands)
		dst = append(dst, digests...)
	case sk.IsZero():
		dst = binary.AppendUvarint(dst, 0)
	case !scratch.Long.IsZero() || digested(&sk):
		dst = binary.AppendUvarint(dst, Bands)
		for b := range Bands {
			dst = append(dst, byte(bandDigest(&sk, digested(&sk), b)))
		}
	default:
		dst = binary.AppendUvarint(dst, minhash.Size)
		dst, _ = sk.AppendBinary(dst)
	}
	dst = append(dst, jobSeq...)
	for _, f := range fields {
		dst = appendField(dst, f.tag, f.p)
	}
	return dst, nil
}

// RestoreSketch sets the 64-value sketch of d, a document decoded from
// a batch record (BatchRecord: its Sketch holds band digests), from the
// values of its band keys (bands[b] is the Value of its KindBand key of
// band b), and reports whether it did: only when d holds digests and
// every band's value has d's digest. It is for rebuilding a store of
// batch records from its records and band postings
// (badgerstore.Salvage), whose keys the digests cannot name.
func RestoreSketch(d *Doc, bands *[Bands]uint64) bool {
	if !digested(&d.Sketch) {
		return false
	}
	var s minhash.Sketch
	for b, v := range bands {
		if digestOf(v) != d.Sketch[b*BandRows] {
			return false
		}
		for i := range BandRows {
			s[b*BandRows+i] = uint16(v >> (16 * (BandRows - 1 - i)))
		}
	}
	if slices.Contains(s[:], 0) {
		return false // not a sketch of minhash.New, whose values are never 0
	}
	d.Sketch = s
	return true
}
