package dict

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// JiebaPaths are the paths of the files gojieba.NewJieba reads, in the order
// it takes them: dictionary, HMM model, user dictionary, IDF table, stop
// words. StubIDF and StubStopWords are one-word stand-ins for IDF and
// StopWords, for a gojieba that only cuts: cppjieba always loads its
// keyword extractor's tables, which takes a fifth of a second and tens of
// megabytes, and refuses empty ones.
type JiebaPaths struct{ Dict, HMM, User, IDF, StopWords, StubIDF, StubStopWords string }

// File names inside a materialised directory.
const (
	dictFile      = "jieba.dict.utf8"
	hmmFile       = "hmm_model.utf8"
	userFile      = "user.dict.utf8"
	idfFile       = "idf.utf8"
	stopWordsFile = "stop_words.utf8"
	stubIDFFile   = "stub_idf.utf8"
	stubStopFile  = "stub_stop_words.utf8"
)

// The stub tables: cppjieba asserts that its IDF table has a line and a
// positive mean, and that its stop list has a word.
const (
	stubIDF       = "的 1\n"
	stubStopWords = "的\n"
)

// MaterializeJieba writes the embedded Chinese dictionary files (and an
// empty user dictionary) to disk for gojieba, which can only read files, and
// returns their absolute paths. It is MaterializeJiebaUser(cacheDir, nil).
func MaterializeJieba(cacheDir string) (JiebaPaths, error) {
	return MaterializeJiebaUser(cacheDir, nil)
}

// MaterializeJiebaUser is MaterializeJieba with a user dictionary: when user
// is not empty it is written, in the same directory, to
// user-<sha256 prefix>.utf8 and Paths.User names it. user must already be in
// the format cppjieba reads ("word", "word tag" or "word freq tag" lines);
// this function does not check it.
//
// The files go to <cacheDir>/jieba-<h>/, where h is the first 16 hex digits
// of a SHA-256 over the names and contents of the seven files, so a new
// dictionary never overwrites an old one in use. cacheDir "" means
// os.UserCacheDir()/neardup; if that is unknown (HOME and XDG_CACHE_HOME
// unset) or cannot be created, os.TempDir()/neardup-<uid>, which must then be
// a directory owned by the current user and writable by nobody else.
//
// Files already present with exactly the right content are reused; a missing
// file or one whose content differs in any byte is rewritten. Every file is
// written atomically, to a temporary file in the same directory renamed into
// place, so concurrent processes and readers never see a partial file. The
// returned paths never contain '|' or ';', which cppjieba would take as
// separators between several user dictionaries: such a directory is an
// error.
func MaterializeJiebaUser(cacheDir string, user []byte) (JiebaPaths, error) {
	root, err := cacheRoot(cacheDir)
	if err != nil {
		return JiebaPaths{}, err
	}
	files := []struct{ name, data string }{
		{dictFile, jiebaDict},
		{hmmFile, hmmModel},
		{userFile, ""},
		{idfFile, zhIDF},
		{stopWordsFile, zhStopWords},
		{stubIDFFile, stubIDF},
		{stubStopFile, stubStopWords},
	}
	h := sha256.New()
	var n [8]byte
	for _, f := range files {
		h.Write([]byte(f.name))
		binary.BigEndian.PutUint64(n[:], uint64(len(f.data)))
		h.Write(n[:])
		h.Write([]byte(f.data))
	}
	dir := filepath.Join(root, "jieba-"+hex.EncodeToString(h.Sum(nil))[:16])
	if strings.ContainsAny(dir, "|;") {
		return JiebaPaths{}, fmt.Errorf("dict: cache directory %q contains '|' or ';', which cppjieba splits file names at; choose another cache directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return JiebaPaths{}, fmt.Errorf("dict: create jieba cache directory: %w", err)
	}
	for _, f := range files {
		if err := ensureFile(filepath.Join(dir, f.name), f.data); err != nil {
			return JiebaPaths{}, err
		}
	}
	p := JiebaPaths{
		Dict:          filepath.Join(dir, dictFile),
		HMM:           filepath.Join(dir, hmmFile),
		User:          filepath.Join(dir, userFile),
		IDF:           filepath.Join(dir, idfFile),
		StopWords:     filepath.Join(dir, stopWordsFile),
		StubIDF:       filepath.Join(dir, stubIDFFile),
		StubStopWords: filepath.Join(dir, stubStopFile),
	}
	if len(user) > 0 {
		sum := sha256.Sum256(user)
		p.User = filepath.Join(dir, "user-"+hex.EncodeToString(sum[:])[:16]+".utf8")
		if err := ensureFile(p.User, string(user)); err != nil {
			return JiebaPaths{}, err
		}
	}
	return p, nil
}

// ErrNoCache is wrapped by the error of a jieba backend that finds no
// writable cache directory for its dictionary files: the user's cache
// directory ($XDG_CACHE_HOME, or ~/.cache) and the private fallback in
// the temporary directory both failed.
var ErrNoCache = errors.New("no writable cache directory for the jieba dictionaries (set XDG_CACHE_HOME to a writable directory)")

// cacheRoot resolves and creates the cache root directory, returning an
// absolute path.
func cacheRoot(cacheDir string) (string, error) {
	if cacheDir != "" {
		abs, err := filepath.Abs(cacheDir)
		if err != nil {
			return "", fmt.Errorf("dict: cache directory %q: %w", cacheDir, err)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", fmt.Errorf("dict: create cache directory: %w", err)
		}
		return abs, nil
	}
	var userErr error
	if base, err := os.UserCacheDir(); err != nil {
		userErr = err
	} else if abs, err := filepath.Abs(filepath.Join(base, "neardup")); err != nil {
		userErr = err
	} else if err := os.MkdirAll(abs, 0o755); err != nil {
		userErr = err
	} else {
		return abs, nil
	}
	// Fall back to a private directory under the system temporary
	// directory. It may be shared with other users, so insist that the
	// directory is ours and that nobody else can write to it.
	abs, err := filepath.Abs(filepath.Join(os.TempDir(), "neardup-"+strconv.Itoa(os.Getuid())))
	if err != nil {
		return "", fmt.Errorf("dict: %w: %v; temporary directory: %v", ErrNoCache, userErr, err)
	}
	if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("dict: %w: %v; fallback: %w", ErrNoCache, userErr, err)
	}
	if err := checkPrivateDir(abs); err != nil {
		return "", fmt.Errorf("dict: %w: %v; fallback: %w", ErrNoCache, userErr, err)
	}
	return abs, nil
}

// ensureFile makes the file at path hold exactly data: an existing file with
// that content is left alone, anything else is replaced atomically.
func ensureFile(path, data string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if have, err := os.ReadFile(path); err == nil && string(have) == data {
			return nil
		}
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temporary file next to path and renames it
// to path.
func writeAtomic(path, data string) (err error) {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("dict: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return fmt.Errorf("dict: write %s: %w", tmp, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("dict: write %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dict: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("dict: write %s: %w", path, err)
	}
	return nil
}
