//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/neardup/neardup/internal/redistest"
)

// testRedisPassword: no output of add, check, stats, delete, dedup, url
// dedup (text and --json), serve's start and stop lines, nor an error,
// holds the password of a Redis archive URL. The cluster's default user
// has no password (nopass), so it takes any: the URL
// redis://default:PASSWORD@... opens the archive as it would on a
// cluster with requirepass. Before, add, check, stats and serve printed
// the URL with its password.
func testRedisPassword(t *testing.T, c *redistest.Cluster) {
	const password = "Pa55w0rd-never-shown"
	name := redistest.Name(t)
	url := "redis://default:" + password + "@" + strings.Join(c.Addrs, ",") + "/" + name
	urlIndex := "redis://default:" + password + "@" + strings.Join(c.Addrs, ",") + "/" + redistest.Name(t)
	dir := t.TempDir()
	// Each run, and whether its output names the archive.
	runs := []struct {
		args  []string
		names bool
	}{
		{[]string{"add", "--index", url, "--keep-text", "testdata/a.txt"}, true},
		{[]string{"add", "--index", url, "--json", "testdata/c.txt"}, true},
		{[]string{"check", "--index", url, "testdata/b.txt"}, true},
		{[]string{"check", "--index", url, "--json", "testdata/b.txt"}, false},
		{[]string{"check", "--index", url, "--add", "testdata/articles.jsonl"}, true},
		{[]string{"stats", "--index", url}, true},
		{[]string{"stats", "--index", url, "--json"}, true},
		{[]string{"stats", "--index", url, "--text"}, true},
		{[]string{"delete", "--index", url, "testdata/c.txt", "no-such-id"}, true},
		{[]string{"delete", "--index", url, "--json", "no-such-id"}, true},
		{[]string{"dedup", "--index", url, "--pairs", filepath.Join(dir, "pairs"), "testdata/articles.jsonl"}, false},
		{[]string{"url", "dedup", "--index", urlIndex, "--unique", filepath.Join(dir, "urls"), "testdata/url/urls.txt"}, true},
		{[]string{"url", "dedup", "--index", urlIndex, "--json", "--unique", filepath.Join(dir, "urls"), "testdata/url/urls.txt"}, true},
		// Errors: an article archive given to url dedup; a missing one.
		{[]string{"url", "dedup", "--index", url, "--unique", filepath.Join(dir, "urls"), "testdata/url/urls.txt"}, true},
		{[]string{"stats", "--index", url + "-missing"}, true},
		{[]string{"verify", "--index", url}, true},
	}
	for _, run := range runs {
		args := run.args
		r := runCLI(t, args...)
		if strings.Contains(r.stdout+r.stderr, password) {
			t.Errorf("neardup %s (exit %d) prints the password:\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		if run.names && !strings.Contains(r.stdout+r.stderr, "default:xxxxx@") {
			t.Errorf("neardup %s (exit %d) does not name the archive (with its password hidden):\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	s := startServe(t, "--index", url)
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Errorf("serve after SIGTERM: exit %d: %s", code, s.log())
	}
	log := s.log()
	if strings.Contains(log, password) || strings.Count(log, "default:xxxxx@") != 2 {
		t.Errorf("serve's start and stop lines: want the archive named twice, its password hidden:\n%s", log)
	}
}
