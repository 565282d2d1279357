// Package tablecheck owns the badgerstore's reading of Badger's files
// behind Badger's back: it is the one place that knows Badger's on-disk
// table format and its log text, so that badgerstore itself uses
// Badger's public API only.
//
// What it reads of Badger (github.com/dgraph-io/badger/v4):
//
//   - the table files (NNNNNN.sst): their footer (the index's length,
//     its checksum and the checksum's length), their index (a
//     flatbuffer: block offsets and first keys, Bloom filter; package fb)
//     and their blocks' checksums (protocol buffers; package pb), read
//     with Badger's table reader (package table) and key helpers
//     (package y), compressed as options.CompressionType says;
//   - the MANIFEST, through badger.ReplayManifestFile, for each table's
//     compression;
//   - Badger's log line about a value it could not read from a value log
//     (NNNNNN.vlog): "Unable to read: Key: […], … Fid:N" (ValueLog).
//
// Why: Badger drops damaged blocks silently. A table iterator that
// cannot read a block stops, and both its iterators and Get then skip
// the table; a value it cannot read from the value log is logged and
// read as empty; a table whose index is damaged panics in a goroutine of
// Badger's own when it opens. So the store reads the tables once before
// Badger opens them (Open), verifies a second time the checksums of the
// blocks every read went through (Shadows.View, Shadows.CheckRead), and
// names the value log of a value Badger read as empty (ValueLog). Files
// and Walk read every entry of every table for Verify and Salvage.
//
// Pinned version: this reads the format and log text of Badger v4.9.6
// (pinnedBadger, TestBadgerPinned): an upgrade must check this package
// against the new version's table/ and iterator.go first, since a
// format change would switch the checks off unnoticed.
package tablecheck
