package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup/index/badgerstore"
)

// TestVerifyDamagedArchive is issue 19's damaged archive: a table cut
// short makes every command exit 2 with a message naming the directory,
// the file and what to do; verify names the damage; --salvage copies
// what is readable (here nothing: the one table is lost, so salvage
// says the metadata is gone) and a whole archive verifies clean.
func TestVerifyDamagedArchive(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "idx")
	if r := runCLI(t, "add", "--index", idx, "testdata/articles.jsonl"); r.code != 0 {
		t.Fatalf("add: exit %d\n%s", r.code, r.stderr)
	}
	r := runCLI(t, "verify", "--index", idx)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "no damage found\n") {
		t.Fatalf("verify of a whole archive: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var j verifyJSON
	r = runCLI(t, "verify", "--json", "--index", idx)
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 0 || j.Records == 0 || len(j.Damage) != 0 {
		t.Fatalf("verify --json: exit %d, %+v, %v\n%s", r.code, j, err, r.stderr)
	}
	records := j.Records

	// A copy with its table cut to 60%.
	bad := filepath.Join(t.TempDir(), "bad")
	copyDir(t, idx, bad)
	ssts, _ := filepath.Glob(filepath.Join(bad, "*.sst"))
	if len(ssts) != 1 {
		t.Fatalf("tables %v; want one", ssts)
	}
	fi, err := os.Stat(ssts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(ssts[0], fi.Size()*6/10); err != nil {
		t.Fatal(err)
	}
	sst := filepath.Base(ssts[0])
	for _, args := range [][]string{
		{"stats", "--index", bad},
		{"check", "--index", bad, "testdata/a.txt"},
		{"add", "--index", bad, "testdata/c.txt"},
		{"dedup", "--index", bad, "--pairs", filepath.Join(t.TempDir(), "p.jsonl"), "testdata/a.txt"},
	} {
		r := runCLI(t, args...)
		want := "neardup: index: " + bad + ": corrupt index: " + sst + ": its footer or index does not parse (the file is truncated or overwritten)\n" +
			"neardup: the index is damaged: 'neardup verify --index DIR' lists what is damaged, 'neardup verify --index DIR --salvage NEWDIR' copies what is readable into a new index\n"
		if r.code != 2 || !strings.HasSuffix(r.stderr, want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("%s on a damaged archive: exit %d\nstderr: %s\nwant it to end with: %s", args[0], r.code, r.stderr, want)
		}
	}
	r = runCLI(t, "verify", "--index", bad)
	want := bad + ": 1 table, 0 entries, records not decoded\n  damaged: " + sst + ": its footer or index does not parse (the file is truncated or overwritten)\n" +
		bad + " damaged; copy what is readable with: neardup verify --index " + bad + " --salvage NEWDIR\n"
	if r.code != 2 || r.stdout != want {
		t.Errorf("verify: exit %d\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	r = runCLI(t, "verify", "--index", bad, "--salvage", filepath.Join(t.TempDir(), "new"))
	if r.code != 2 || !strings.Contains(r.stderr, "its format and layout metadata cannot be read") {
		t.Errorf("verify --salvage of a lost table: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A scribbled MANIFEST: the tables are whole, so everything is
	// salvaged and the new archive answers as the old one did.
	bad2 := filepath.Join(t.TempDir(), "bad2")
	copyDir(t, idx, bad2)
	if err := os.WriteFile(filepath.Join(bad2, "MANIFEST"), []byte("garbage, not a manifest at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "stats", "--index", bad2); r.code != 2 || !strings.Contains(r.stderr, "corrupt index: MANIFEST: manifest has bad magic") {
		t.Errorf("stats with a bad MANIFEST: exit %d\n%s", r.code, r.stderr)
	}
	salvaged := filepath.Join(t.TempDir(), "salvaged")
	r = runCLI(t, "verify", "--json", "--index", bad2, "--salvage", salvaged)
	j = verifyJSON{}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 0 || j.Salvaged == nil || int64(*j.Salvaged) != records {
		t.Fatalf("verify --salvage: exit %d, %+v, %v; want %d salvaged\n%s", r.code, j, err, records, r.stderr)
	}
	old := runCLI(t, "check", "--json", "--index", idx, "testdata/a.txt", "testdata/b.txt")
	got := runCLI(t, "check", "--json", "--index", salvaged, "testdata/a.txt", "testdata/b.txt")
	if got.code != old.code || got.stdout != old.stdout {
		t.Errorf("check against the salvaged archive: exit %d\n%s\nwant exit %d\n%s", got.code, got.stdout, old.code, old.stdout)
	}
}

// copyDir copies the files of directory src into a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// TestCheckDamagedBlocks: blocks of the archive's table overwritten
// (the table's index whole, so the archive opens) make check fail with
// exit 2 naming the table's block and what to do, instead of reading
// them as missing keys and answering without the documents in them.
func TestCheckDamagedBlocks(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "idx")
	if r := runCLI(t, "add", "--index", idx, "testdata/articles.jsonl"); r.code != 0 {
		t.Fatalf("add: exit %d\n%s", r.code, r.stderr)
	}
	// Every article checked against its own archive matches itself.
	if r := runCLI(t, "check", "--index", idx, "testdata/articles.jsonl"); r.code != 1 {
		t.Fatalf("check of the archived articles: exit %d; want 1\n%s", r.code, r.stderr)
	}
	ssts, _ := filepath.Glob(filepath.Join(idx, "*.sst"))
	if len(ssts) != 1 {
		t.Fatalf("tables %v; want one", ssts)
	}
	f, err := os.OpenFile(ssts[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// 8 bytes every KiB of the first half: every block there (the
	// index is at the end).
	for off := int64(512); off < fi.Size()/2; off += 1024 {
		if _, err := f.WriteAt([]byte("scribble"), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	r := runCLI(t, "check", "--index", idx, "testdata/articles.jsonl")
	want := regexp.MustCompile(`neardup: index: .*: corrupt index: ` + filepath.Base(ssts[0]) + ` block [0-9]+( record "[^"]*")?: unreadable \(a checksum or its structure does not match\)\n` +
		`neardup: the index is damaged: 'neardup verify --index DIR' lists what is damaged, 'neardup verify --index DIR --salvage NEWDIR' copies what is readable into a new index\n$`)
	if r.code != 2 || !want.MatchString(r.stderr) || strings.Contains(r.stderr, "panic") {
		t.Errorf("check of a damaged archive: exit %d\nstderr: %s\nwant exit 2 and the damaged block named", r.code, r.stderr)
	}
}

// TestWriteVerify: what neardup verify prints of a report (less its
// salvage hint).
func TestWriteVerify(t *testing.T) {
	two := 2
	none := 0
	damage := []badgerstore.Damage{
		{File: "000001.sst", Block: 3, Err: errors.New("unreadable (a checksum or its structure does not match)")},
		{File: "value log", Block: -1, ID: "a/b", Err: errors.New("record kept in the value log: not salvaged")},
	}
	for _, tt := range []struct {
		name string
		r    badgerstore.Report
		text string
	}{
		{"whole", badgerstore.Report{Dir: "/x/idx", Tables: 1, Entries: 1234, Records: 1, Damage: []badgerstore.Damage{}},
			"/x/idx: 1 table, 1,234 entries, 1 record\nno damage found\n"},
		{"damaged", badgerstore.Report{Dir: "/x/idx", Tables: 2, Entries: 1, Records: 5, Damage: damage[:1]},
			"/x/idx: 2 tables, 1 entry, records not decoded\n  damaged: 000001.sst block 3: unreadable (a checksum or its structure does not match)\n"},
		{"salvaged", badgerstore.Report{Dir: "/x/idx", Tables: 0, Entries: 0, Records: 2, Damage: damage, Salvaged: &two, Into: "/x/new"},
			"/x/idx: 0 tables, 0 entries, 2 records\n  damaged: 000001.sst block 3: unreadable (a checksum or its structure does not match)\n" +
				"  damaged: value log record \"a/b\": record kept in the value log: not salvaged\nsalvaged 2 documents into /x/new\n"},
		{"salvaged nothing", badgerstore.Report{Dir: "d", Damage: []badgerstore.Damage{}, Salvaged: &none, Into: "n"},
			"d: 0 tables, 0 entries, 0 records\nsalvaged 0 documents into n\n"},
	} {
		var b strings.Builder
		if err := writeVerify(&b, &tt.r); err != nil || b.String() != tt.text {
			t.Errorf("%s: writeVerify = %v\n%s\nwant\n%s", tt.name, err, b.String(), tt.text)
		}
	}
}
