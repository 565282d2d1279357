package segment

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestGseBinarySize builds testdata/gsebin, a small program using only the
// gse backend and text/template, without cgo, and checks that it does not
// carry gse's embedded dictionaries (24 MB Japanese, 9 MB Chinese): it holds
// our 5 MB jieba dictionary and its code, about 10.5 MB in all.
func TestGseBinarySize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to build with")
		}
	}
	bin := filepath.Join(t.TempDir(), "gsebin")
	cmd := exec.Command(goTool, "build", "-o", bin, "./testdata/gsebin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 16 << 20
	if fi.Size() > limit {
		t.Errorf("gse-only binary is %.1f MB, over %d MB: gse's embedded dictionaries are probably linked in", float64(fi.Size())/(1<<20), limit>>20)
	}
	t.Logf("gse-only binary (CGO_ENABLED=0): %d bytes", fi.Size())
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil || string(out) != "[北京 abc]\n*segment.Gse\n" {
		t.Errorf("gsebin: %v, output %q", err, out)
	}
}
