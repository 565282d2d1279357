package redistest

import (
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

func TestShared(t *testing.T) {
	c := Shared(t)
	if len(c.Addrs) != 3 {
		t.Fatalf("Addrs = %v, want 3", c.Addrs)
	}
	for _, a := range c.Addrs {
		if out := c.CLI(t, a, "cluster", "info"); !strings.Contains(out, "cluster_state:ok") {
			t.Errorf("%s: cluster info:\n%s", a, out)
		}
	}
	if Shared(t) != c {
		t.Error("a second Shared started another cluster")
	}
	if u := c.URL("x"); !strings.HasPrefix(u, "redis://127.0.0.1:") || !strings.HasSuffix(u, "/x") || strings.Count(u, ",") != 2 {
		t.Errorf("URL = %q", u)
	}
}

func TestRestartNode(t *testing.T) {
	c := Start(t, Options{})
	a := c.Addrs[1]
	c.CLI(t, c.Addrs[0], "-c", "set", "k", "v")
	c.RestartNode(t, a)
	c.Wait(t)
	if out := c.CLI(t, a, "cluster", "info"); !strings.Contains(out, "cluster_state:ok") {
		t.Errorf("after restart: %s", out)
	}
}

func TestName(t *testing.T) {
	a, b := Name(t), Name(t)
	if a == b || !strings.HasPrefix(a, "TestName.") {
		t.Errorf("Name = %q, %q", a, b)
	}
	t.Run("sub/x y", func(t *testing.T) {
		if n := Name(t); strings.ContainsAny(n, "/ {}") {
			t.Errorf("Name = %q", n)
		}
	})
}
