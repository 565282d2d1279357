// Package redistest runs real Redis Clusters on loopback for tests, with
// the repository's scripts/redis-cluster and Debian's redis-server. There
// is no mock: a test that needs Redis gets a real cluster or is skipped.
//
// Without redis-server on the PATH, Shared and Start skip the test with a
// message saying how to install it; when the environment has CI=true
// they fail it instead, so that CI cannot pass without running them.
//
// A test package shares one 3-master cluster between its tests (Shared),
// started on first use and stopped by Main, and isolates its tests by
// archive name (Name). Tests that kill or restart nodes start a cluster
// of their own (Start), stopped when the test ends.
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestX(t *testing.T) {
//		c := redistest.Shared(t)
//		url := c.URL(redistest.Name(t))
//		...
//	}
package redistest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// InstallHint says how to get the server the tests need.
const InstallHint = "apt-get install -y redis-server redis-tools"

// Options configure Start.
type Options struct {
	// Replicas is the number of replicas of each of the 3 masters: 0 or 1.
	Replicas int
}

// Cluster is a running test cluster.
type Cluster struct {
	Dir   string   // the nodes' directories (DIR/PORT)
	Addrs []string // every node's HOST:PORT, masters first
	Ports []int

	script  string
	stopped bool
	mu      sync.Mutex
}

// URL returns the store URL of the archive name in c:
// redis://HOST:PORT,HOST:PORT,.../NAME.
func (c *Cluster) URL(name string) string {
	return "redis://" + strings.Join(c.Addrs, ",") + "/" + name
}

// Seeds returns the addresses as a comma-separated list.
func (c *Cluster) Seeds() string { return strings.Join(c.Addrs, ",") }

var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
	sharedDir  string
)

// Main runs the tests of a package that uses Shared and stops the shared
// cluster afterwards; call it from TestMain. It exits the process.
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		if err := shared.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "redistest:", err)
			code = 1
		}
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// Shared returns the package's shared 3-master cluster, starting it on
// first use. Isolate tests on it by archive name. It skips t when
// redis-server is missing (fails it when CI=true).
func Shared(t testing.TB) *Cluster {
	t.Helper()
	skipIfMissing(t)
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "neardup-redistest-")
		if sharedErr != nil {
			return
		}
		shared, sharedErr = start(sharedDir, Options{})
	})
	if sharedErr != nil {
		t.Fatalf("redistest: starting the shared cluster: %v", sharedErr)
	}
	return shared
}

// Start starts a cluster of t's own, stopped when t ends. It skips t
// when redis-server is missing (fails it when CI=true).
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	skipIfMissing(t)
	dir, err := os.MkdirTemp("", "neardup-redistest-")
	if err != nil {
		t.Fatal(err)
	}
	c, err := start(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Errorf("redistest: %v", err)
		}
		os.RemoveAll(dir)
	})
	return c
}

// Run starts a cluster outside a test (the bench programs), in a new
// temporary directory on free ports; Close stops it by its pidfiles and
// removes the directory.
func Run(opts Options) (*Cluster, error) {
	if !Available() {
		return nil, fmt.Errorf("redistest: redis-server or redis-cli not on the PATH (%s)", InstallHint)
	}
	dir, err := os.MkdirTemp("", "neardup-redistest-")
	if err != nil {
		return nil, err
	}
	c, err := start(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("redistest: %w", err)
	}
	return c, nil
}

// Close stops a cluster that Run started and removes its directory.
func (c *Cluster) Close() error {
	err := c.stop()
	if rerr := os.RemoveAll(c.Dir); err == nil {
		err = rerr
	}
	return err
}

// Available reports whether redis-server and redis-cli are on the PATH.
func Available() bool {
	_, err1 := exec.LookPath("redis-server")
	_, err2 := exec.LookPath("redis-cli")
	return err1 == nil && err2 == nil
}

// Require skips t when redis-server or redis-cli is missing, saying how
// to install them, and fails it instead when CI=true.
func Require(t testing.TB) { t.Helper(); skipIfMissing(t) }

// FreePorts returns n loopback ports for a cluster's nodes: each free,
// and its cluster bus port (port+10000) free too.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

func skipIfMissing(t testing.TB) {
	t.Helper()
	if Available() {
		return
	}
	msg := "redis-server or redis-cli not found; install them with: " + InstallHint
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: the Redis tests must run)")
	}
	t.Skip(msg)
}

var nameRE = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Name returns an archive name for t, unique in the process: its name
// with unsafe characters replaced, and a counter.
func Name(t testing.TB) string {
	n := nameRE.ReplaceAllString(t.Name(), "_")
	if len(n) > 40 {
		n = n[len(n)-40:]
	}
	nameMu.Lock()
	nameSeq++
	s := nameSeq
	nameMu.Unlock()
	return fmt.Sprintf("%s.%d", strings.Trim(n, "_."), s)
}

var (
	nameMu  sync.Mutex
	nameSeq int
)

// Script returns the path of scripts/redis-cluster, found by walking up
// from the working directory (a test's is its package directory) to the
// module root.
func Script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "scripts", "redis-cluster")
			if _, err := os.Stat(p); err != nil {
				return "", err
			}
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("redistest: no go.mod above the working directory")
		}
		dir = up
	}
}

// start runs the script in dir on free ports.
func start(dir string, opts Options) (*Cluster, error) {
	if opts.Replicas < 0 || opts.Replicas > 1 {
		return nil, fmt.Errorf("replicas %d: want 0 or 1", opts.Replicas)
	}
	script, err := Script()
	if err != nil {
		return nil, err
	}
	reap(script, dir)
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	n := 3 * (1 + opts.Replicas)
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		ports, err := freePorts(n)
		if err != nil {
			return nil, err
		}
		args := []string{"start", dir}
		if opts.Replicas > 0 {
			args = append(args, "-r", strconv.Itoa(opts.Replicas))
		}
		for _, p := range ports {
			args = append(args, strconv.Itoa(p))
		}
		out, err := exec.Command(script, args...).CombinedOutput()
		if err != nil {
			// A port taken between the check and the start: try others.
			last = fmt.Errorf("%s %s: %v: %s", script, strings.Join(args, " "), err, out)
			exec.Command(script, "stop", dir).Run()
			continue
		}
		c := &Cluster{Dir: dir, Ports: ports, script: script}
		for _, p := range ports {
			c.Addrs = append(c.Addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		}
		return c, nil
	}
	return nil, last
}

// reap stops the clusters that test processes which have died (a
// timeout, a kill) left behind: their nodes are daemons. It looks only at
// the directories of this package beside dir whose owner.pid names a
// process that no longer exists, and stops them with the script, by their
// pidfiles.
func reap(script, dir string) {
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "neardup-redistest-*"))
	for _, d := range dirs {
		if d == dir {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil || !errors.Is(err, os.ErrNotExist) {
			continue // alive, or no /proc to tell
		}
		if exec.Command(script, "stop", d).Run() == nil {
			os.RemoveAll(d)
		}
	}
}

// freePorts returns n ports below 55536 that are free on loopback, and
// whose cluster bus ports (port+10000) are free too.
func freePorts(n int) ([]int, error) {
	var ports []int
	seen := map[int]bool{}
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, errors.New("no free loopback ports found")
		}
		p := 20000 + rand.IntN(35000)
		if seen[p] || seen[p+10000] || seen[p-10000] || !portFree(p) || !portFree(p+10000) {
			continue
		}
		seen[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

func portFree(p int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func (c *Cluster) run(args ...string) error {
	out, err := exec.Command(c.script, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", c.script, strings.Join(args, " "), err, out)
	}
	return nil
}

func (c *Cluster) stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	return c.run("stop", c.Dir)
}

// StopNode stops the node at addr (by its pidfile); its directory and
// nodes.conf stay, for RestartNode.
func (c *Cluster) StopNode(t testing.TB, addr string) {
	t.Helper()
	if err := c.run("stop-node", c.Dir, port(t, addr)); err != nil {
		t.Fatal(err)
	}
}

// RestartNode kills the node at addr if it runs (SIGKILL, as a crash)
// and starts it again: empty, since nodes keep nothing on disk, but with
// its nodes.conf, so that it takes its old slots or role back.
func (c *Cluster) RestartNode(t testing.TB, addr string) {
	t.Helper()
	if err := c.run("restart-node", c.Dir, port(t, addr)); err != nil {
		t.Fatal(err)
	}
}

// Wait waits until every running node reports cluster_state:ok.
func (c *Cluster) Wait(t testing.TB) {
	t.Helper()
	if err := c.run("wait", c.Dir); err != nil {
		t.Fatal(err)
	}
}

// CLI runs redis-cli against the node at addr and returns its output.
func (c *Cluster) CLI(t testing.TB, addr string, args ...string) string {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("redis-cli", append([]string{"-h", h, "-p", p}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// WaitFor polls cond every 50 ms until it holds or timeout passes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("redistest: %s: not after %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func port(t testing.TB, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
