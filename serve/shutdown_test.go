package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeShutdown cancels Serve's context while a request is in
// flight (its body still arriving): Serve stops accepting, lets the
// request finish and returns nil; a request that outlasts the grace
// period makes Serve return an error saying so.
func TestServeShutdown(t *testing.T) {
	s := newTestServer(t, Options{})
	text := js(t, map[string]any{"text": fixture(t, "a.txt")})
	for _, tt := range []struct {
		name    string
		grace   time.Duration
		finish  bool // send the rest of the body after the cancel
		wantErr string
	}{
		{"finishes", 30 * time.Second, true, ""},
		{"deadline", 200 * time.Millisecond, false, "serve: requests still running after 200ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			served := make(chan error, 1)
			go func() { served <- s.Serve(ctx, ln, tt.grace) }()
			pr, pw := io.Pipe()
			answered := make(chan int, 1)
			go func() {
				resp, err := http.Post("http://"+ln.Addr().String()+"/v1/check", "application/json", pr)
				if err != nil {
					answered <- 0
					return
				}
				resp.Body.Close()
				answered <- resp.StatusCode
			}()
			half := len(text) / 2
			if _, err := pw.Write([]byte(text[:half])); err != nil { // the request is in flight
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			cancel()
			time.Sleep(100 * time.Millisecond)
			if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
				c.Close()
				t.Error("Serve still accepts connections after its context is done")
			}
			if tt.finish {
				pw.Write([]byte(text[half:]))
				pw.Close()
			}
			err = <-served
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Serve: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Serve: %v, want %q", err, tt.wantErr)
			}
			pw.Close() // the client's body writer waits for it
			code := <-answered
			if tt.finish && code != 200 {
				t.Errorf("the request in flight got %d, want 200", code)
			}
		})
	}
}
