//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServeRefuses checks the refusals that come before serve listens.
func TestServeRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--addr", "0.0.0.0:0"},
			"neardup serve: --addr 0.0.0.0:0 is not a loopback address: give --token-file FILE so that only holders of the token can write (or --insecure to let anyone who reaches it change the archive)\n"},
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--addr", ":8080"}, "is not a loopback address"},
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--addr", "nonsense"}, "--addr nonsense: address nonsense: missing port in address"},
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--token-file", empty}, "empty file: want the token"},
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--token-file", filepath.Join(dir, "none")}, "--token-file: open"},
		{[]string{"serve"}, "no index: give --index DIR or set NEARDUP_INDEX"},
		{[]string{"serve", "--index", filepath.Join(dir, "i"), "--max-bytes", "0"}, "--max-bytes 0: want at least 1"},
	} {
		r := runCLI(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("neardup %s: exit %d, stderr %q; want 2 and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "i")); !os.IsNotExist(err) {
		t.Errorf("a refused serve created the archive: %v", err)
	}
}

// server is a neardup serve process.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	mu     *sync.Mutex
	done   chan error
}

var listening = regexp.MustCompile(`neardup serve: listening on (http://[^ ]+/) `)

// startServe starts the binary's serve on a free loopback port.
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "NEARDUP_INDEX=")
	pr, pw := io.Pipe()
	s := &server{cmd: cmd, stderr: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan error, 1)}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); <-s.done })
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatalf("serve ended before listening: %s", s.log())
		}
		s.url = u
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not listen within a minute: %s", s.log())
	}
	return s
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// wait waits for the process to end and returns its exit status.
func (s *server) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not stop within a minute: %s", s.log())
	}
	s.done <- nil // for the cleanup
	return s.cmd.ProcessState.ExitCode()
}

// serveArticle is the text of added document i: a.txt with its number,
// so that each has its own content hash.
func serveArticle(t *testing.T, i int) string {
	t.Helper()
	a, err := os.ReadFile("testdata/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("第%d篇 %s", i, a)
}

// post adds document id; it reports whether the server acknowledged it
// (201), and fails on any answer but 201 or a broken connection.
func post(t *testing.T, client *http.Client, url, id, text string) (bool, error) {
	body, _ := json.Marshal(map[string]string{"id": id, "title": "t " + id, "text": text})
	resp, err := client.Post(url+"v1/documents", "application/json", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 {
		return false, fmt.Errorf("POST %s: %d %s", id, resp.StatusCode, b)
	}
	return true, nil
}

// checkPresent restarts serve on dir and fails unless every id is there
// with its text.
func checkPresent(t *testing.T, dir string, ids []string, texts map[string]string) {
	t.Helper()
	s := startServe(t, "--index", dir)
	for _, id := range ids {
		resp, err := http.Get(s.url + "v1/documents/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ Text string }
		json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		if resp.StatusCode != 200 || d.Text != texts[id] {
			t.Errorf("acknowledged %s: after the restart GET is %d, text kept %v", id, resp.StatusCode, d.Text == texts[id])
		}
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Errorf("serve after SIGTERM: exit %d: %s", code, s.log())
	}
}

// TestServeKill9 kills the server with SIGKILL right after its last
// acknowledged add: every acknowledged document is there after a
// restart.
func TestServeKill9(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "archive")
	s := startServe(t, "--index", dir)
	var mu sync.Mutex
	texts := map[string]string{}
	var acked []string
	var wg sync.WaitGroup
	const clients, each = 4, 10
	for c := range clients {
		wg.Go(func() {
			client := &http.Client{Timeout: time.Minute}
			for i := range each {
				id := fmt.Sprintf("doc-%d-%d", c, i)
				text := serveArticle(t, c*each+i)
				ok, err := post(t, client, s.url, id, text)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					acked, texts[id] = append(acked, id), text
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.wait(t)
	if len(acked) != clients*each {
		t.Fatalf("%d adds acknowledged, want %d", len(acked), clients*each)
	}
	checkPresent(t, dir, acked, texts)
}

// TestServeSIGTERM sends SIGTERM while clients are adding: serve stops
// accepting, finishes what it took, closes the archive and exits 0; every
// add it acknowledged is there afterwards.
func TestServeSIGTERM(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "archive")
	s := startServe(t, "--index", dir, "--grace", "30s")
	var mu sync.Mutex
	texts := map[string]string{}
	var acked []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for c := range 8 {
		wg.Go(func() {
			client := &http.Client{Timeout: time.Minute}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("doc-%d-%d", c, i)
				text := serveArticle(t, c*100000+i)
				ok, err := post(t, client, s.url, id, text)
				if err != nil {
					return // the server stopped accepting
				}
				if ok {
					mu.Lock()
					acked, texts[id] = append(acked, id), text
					mu.Unlock()
				}
			}
		})
	}
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	code := s.wait(t)
	close(stop)
	wg.Wait()
	if code != 0 || !strings.Contains(s.log(), "neardup serve: stopped; archive "+dir+" closed\n") {
		t.Fatalf("serve after SIGTERM: exit %d: %s", code, s.log())
	}
	t.Logf("%d adds acknowledged before SIGTERM ended the server", len(acked))
	checkPresent(t, dir, acked, texts)
}
