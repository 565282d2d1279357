package serve

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
		err  bool
	}{
		{"127.0.0.1:8080", true, false},
		{"127.1.2.3:0", true, false},
		{"[::1]:80", true, false},
		{"localhost:8080", true, false},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"192.168.1.5:80", false, false},
		{"example.org:80", false, false},
		{"127.0.0.1", false, true},
		// Spellings of loopback that other parsers take (#31: refused
		// without a token, and kept so).
		{"127.1:8080", false, false},
		{"2130706433:8080", false, false},
		{"0x7f000001:8080", false, false},
		{"[::]:8080", false, false},
		{"[::ffff:127.0.0.1]:8080", true, false},
	}
	for _, tt := range tests {
		got, err := IsLoopback(tt.addr)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("IsLoopback(%q) = %t, %v; want %t, error %t", tt.addr, got, err, tt.want, tt.err)
		}
	}
}

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	tok, blank := filepath.Join(dir, "tok"), filepath.Join(dir, "blank")
	if err := os.WriteFile(tok, []byte("  s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blank, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadToken(tok); got != "s3cret" || err != nil {
		t.Errorf("ReadToken(tok) = %q, %v; want s3cret", got, err)
	}
	if _, err := ReadToken(blank); err == nil || err.Error() != blank+": empty file: want the token" {
		t.Errorf("ReadToken(blank): %v", err)
	}
	if _, err := ReadToken(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("ReadToken(missing): %v, want not exist", err)
	}
}
