package dict

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The embedded OpenCC files are those README.md names, byte for byte, and
// each of their lines is one entry.
func TestOpenCCFiles(t *testing.T) {
	want := map[string]struct {
		sha   string
		lines int
	}{
		OpenCCTWPhrasesRev:         {"379241d79e784a0488c9f75a20ea4203218a6bc8dfb487fe836102f6bcf3e11d", 518},
		OpenCCTWVariantsRevPhrases: {"bef60ceb4e57b6b062351406cb5d4644875574231d64787e03711317b7e773f3", 68},
		OpenCCTWVariantsRev:        {"aed256cd515db700cbd96fae5d2158d6a98c9628ee51e14ac1e1c182f6041c90", 39},
		OpenCCHKVariantsRevPhrases: {"c2da309afa7fdd9061f204664039d33b000a4dca0ecae4e7480dcbf9e20f658e", 156},
		OpenCCHKVariantsRev:        {"cedc067fc4ace0ae857084e99503302e287f47ee6f1934c08b8f9af9d4597b34", 69},
		OpenCCTSPhrases:            {"b2ef895dd4953b4bb77fc8ef8d26a2a9ca6d43a760ed9a1d767672cfafa6324f", 277},
		OpenCCTSCharacters:         {"6b5a0a799bea2bb22c001f635eaa3fc2904310f0c08addbff275477a80ecf09a", 4113},
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	names := OpenCCNames()
	if len(names) != len(want) {
		t.Fatalf("%d files, want %d", len(names), len(want))
	}
	for _, name := range names {
		text, ok := OpenCCText(name)
		if !ok {
			t.Fatalf("%s not embedded", name)
		}
		sum := sha256.Sum256([]byte(text))
		if got := hex.EncodeToString(sum[:]); got != want[name].sha {
			t.Errorf("%s: SHA-256 %s, want %s", name, got, want[name].sha)
		}
		if !strings.Contains(string(readme), want[name].sha) {
			t.Errorf("README.md does not give %s's SHA-256 %s", name, want[name].sha)
		}
		disk, err := os.ReadFile(filepath.Join("data", "opencc", name))
		if err != nil || string(disk) != text {
			t.Errorf("%s: not data/opencc/%s (%v)", name, name, err)
		}
		es, err := ParseOpenCC(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(es) != want[name].lines || strings.Count(text, "\n") != want[name].lines {
			t.Errorf("%s: %d entries, %d lines, want %d of each", name, len(es), strings.Count(text, "\n"), want[name].lines)
		}
		for _, e := range es {
			if e.Key == "" || e.Value == "" || strings.ContainsAny(e.Key+e.Value, " \t\r\n") {
				t.Errorf("%s: entry %q → %q", name, e.Key, e.Value)
			}
		}
	}
	if _, ok := OpenCCText("STCharacters.txt"); ok {
		t.Error("STCharacters.txt is embedded: the fold does not use it")
	}
}

func TestParseOpenCC(t *testing.T) {
	text := "軟體\t软件\n" + // one value
		"乾\t干 乾 幹\n" + // the first of several
		"  後\t后  \r\n" + // trimmed
		"no value here\n\n" + // fewer than two fields: skipped
		"著\t着\n" +
		"著\t著\n" + // a key again: its last line
		"甲\t乙\t丙\n" + // tab-separated values: the second field
		"A\tb" // no newline at the end: read
	got, err := ParseOpenCC(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []OpenCCEntry{{"A", "b"}, {"乾", "干"}, {"後", "后"}, {"甲", "乙"}, {"著", "著"}, {"軟體", "软件"}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseOpenCC = %q, want %q", got, want)
	}
	if _, err := ParseOpenCC("鍵\t\t值\n"); err == nil {
		t.Error("an empty first value: no error")
	}
	if got, err := ParseOpenCC("鍵\t\n鍵\n\n"); err != nil || len(got) != 0 {
		t.Errorf("lines without a value: %q, %v; want none", got, err)
	}
}
