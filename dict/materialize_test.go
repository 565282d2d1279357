package dict

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// checkFiles fails unless the seven files of p hold the embedded data and
// the directory holds nothing else (no temporary files left behind).
func checkFiles(t *testing.T, p JiebaPaths, extra ...string) {
	t.Helper()
	want := map[string]string{p.Dict: jiebaDict, p.HMM: hmmModel, p.IDF: zhIDF, p.StopWords: zhStopWords,
		p.StubIDF: "的 1\n", p.StubStopWords: "的\n"}
	if filepath.Base(p.User) == userFile {
		want[p.User] = ""
	}
	for path, data := range want {
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(have) != data {
			t.Errorf("%s: content differs from the embedded file (%d bytes, want %d)", path, len(have), len(data))
		}
	}
	ents, err := os.ReadDir(filepath.Dir(p.Dict))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	wantNames := append([]string{dictFile, hmmFile, idfFile, stopWordsFile, stubIDFFile, stubStopFile, userFile}, extra...)
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Errorf("directory holds %q, want %q", names, wantNames)
	}
}

func TestMaterializeJieba(t *testing.T) {
	root := t.TempDir()
	p, err := MaterializeJieba(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p.Dict)
	if filepath.Dir(dir) != root || !regexp.MustCompile(`^jieba-[0-9a-f]{16}$`).MatchString(filepath.Base(dir)) {
		t.Errorf("directory %s is not <root>/jieba-<16 hex digits>", dir)
	}
	for _, path := range []string{p.Dict, p.HMM, p.User, p.IDF, p.StopWords} {
		if !filepath.IsAbs(path) || filepath.Dir(path) != dir {
			t.Errorf("path %s is not absolute in %s", path, dir)
		}
	}
	checkFiles(t, p)

	// Idempotent: a second call reuses the files (same inodes, no rewrite).
	before := statAll(t, p)
	p2, err := MaterializeJieba(root)
	if err != nil {
		t.Fatal(err)
	}
	if p2 != p {
		t.Errorf("second call returned %+v, want %+v", p2, p)
	}
	after := statAll(t, p)
	for i := range before {
		if !os.SameFile(before[i], after[i]) {
			t.Errorf("%s was rewritten although intact", before[i].Name())
		}
	}
}

func statAll(t *testing.T, p JiebaPaths) []os.FileInfo {
	t.Helper()
	var out []os.FileInfo
	for _, path := range []string{p.Dict, p.HMM, p.User, p.IDF, p.StopWords} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fi)
	}
	return out
}

// The content-addressed name depends on the content: it is stable across
// roots, and differs from the name a different content would get.
func TestMaterializeJiebaContentAddressed(t *testing.T) {
	a, err := MaterializeJieba(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := MaterializeJieba(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(filepath.Dir(a.Dict)) != filepath.Base(filepath.Dir(b.Dict)) {
		t.Errorf("same content, different names: %s %s", a.Dict, b.Dict)
	}
	u1, err := MaterializeJiebaUser(t.TempDir(), []byte("云计算\n"))
	if err != nil {
		t.Fatal(err)
	}
	u2, err := MaterializeJiebaUser(filepath.Dir(filepath.Dir(u1.Dict)), []byte("韩玉鉴赏 3 n\n"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^user-[0-9a-f]{16}\.utf8$`)
	if !re.MatchString(filepath.Base(u1.User)) || !re.MatchString(filepath.Base(u2.User)) || u1.User == u2.User {
		t.Errorf("user dictionaries not content-addressed: %s %s", u1.User, u2.User)
	}
	if got, _ := os.ReadFile(u1.User); string(got) != "云计算\n" {
		t.Errorf("user dictionary holds %q", got)
	}
	if u1.Dict != u2.Dict {
		t.Errorf("the main files moved with the user dictionary: %s %s", u1.Dict, u2.Dict)
	}
	checkFiles(t, u2, filepath.Base(u1.User), filepath.Base(u2.User))
}

// A corrupted, truncated or missing file is rewritten, by replacing it (a
// reader that opened the bad file keeps reading the bad file: the good one
// was never written in place).
func TestMaterializeJiebaRepairs(t *testing.T) {
	root := t.TempDir()
	p, err := MaterializeJieba(root)
	if err != nil {
		t.Fatal(err)
	}
	// Same size, one byte changed.
	data, _ := os.ReadFile(p.Dict)
	data[len(data)/2] ^= 1
	if err := os.WriteFile(p.Dict, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(p.Dict)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := os.Truncate(p.HMM, 100); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p.IDF); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.User, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MaterializeJieba(root); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, p)
	fi, _ := old.Stat()
	if fi.Size() != int64(len(jiebaDict)) {
		t.Fatalf("old file size %d", fi.Size())
	}
	buf := make([]byte, 1)
	if _, err := old.ReadAt(buf, int64(len(data)/2)); err != nil || buf[0] != data[len(data)/2] {
		t.Errorf("the corrupted file was overwritten in place, not replaced")
	}
}

// Concurrent callers on an empty root all succeed and agree.
func TestMaterializeJiebaConcurrent(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	res := make([]JiebaPaths, 4)
	errs := make([]error, 4)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = MaterializeJieba(root)
		}()
	}
	wg.Wait()
	for i := range res {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if res[i] != res[0] {
			t.Errorf("caller %d got %+v, caller 0 %+v", i, res[i], res[0])
		}
	}
	checkFiles(t, res[0])
}

func TestMaterializeJiebaDefaultDirs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("os.UserCacheDir's environment variables are those of Linux")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	p, err := MaterializeJieba("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".cache", "neardup") + string(filepath.Separator); !strings.HasPrefix(p.Dict, want) {
		t.Errorf("with HOME set: %s is not under %s", p.Dict, want)
	}

	// No HOME and no XDG_CACHE_HOME: a private directory under TMPDIR.
	tmp := t.TempDir()
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", tmp)
	p, err = MaterializeJieba("")
	if err != nil {
		t.Fatal(err)
	}
	fallback := filepath.Join(tmp, "neardup-"+strconv.Itoa(os.Getuid()))
	if !strings.HasPrefix(p.Dict, fallback+string(filepath.Separator)) {
		t.Errorf("without HOME: %s is not under %s", p.Dict, fallback)
	}
	checkFiles(t, p)
	fi, err := os.Stat(fallback)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("fallback directory mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	// A fallback directory others can write to is refused.
	if err := os.Chmod(fallback, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := MaterializeJieba(""); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("world-writable fallback: error %v", err)
	}
}

func TestMaterializeJiebaErrors(t *testing.T) {
	root := t.TempDir()
	bad := filepath.Join(root, "a;b")
	if _, err := MaterializeJieba(bad); err == nil || !strings.Contains(err.Error(), "contains '|' or ';'") {
		t.Errorf("cache dir with ';': error %v", err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MaterializeJieba(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("cache dir is a file: error %v, want one naming %s", err, file)
	}
}

// BenchmarkMaterializeJieba measures a call that finds the files intact
// (the usual case: hash the embedded data, read and compare the files).
func BenchmarkMaterializeJieba(b *testing.B) {
	root := b.TempDir()
	if _, err := MaterializeJieba(root); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(jiebaDict) + len(hmmModel) + len(zhIDF) + len(zhStopWords)))
	for b.Loop() {
		if _, err := MaterializeJieba(root); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoCacheDirectory: with neither the user's cache directory nor the
// temporary one usable, MaterializeJieba fails with ErrNoCache, whose
// message says to set XDG_CACHE_HOME.
func TestNoCacheDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Directories below a regular file cannot be made, even by root.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(file, "cache"))
	t.Setenv("HOME", filepath.Join(file, "home"))
	t.Setenv("TMPDIR", filepath.Join(file, "tmp"))
	_, err := MaterializeJieba("")
	if !errors.Is(err, ErrNoCache) || !strings.Contains(err.Error(), "set XDG_CACHE_HOME to a writable directory") {
		t.Fatalf("MaterializeJieba without a cache directory: %v, want ErrNoCache naming XDG_CACHE_HOME", err)
	}
}
