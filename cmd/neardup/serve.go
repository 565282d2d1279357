package main

import (
	"fmt"
	"net"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/serve"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "serve the archive over HTTP: a JSON API and the editors' web page",
		Description: description("serve"),
		Flags: flags([]cli.Flag{
			indexFlag("archive `DIR|URL` to serve (a Badger directory, or redis://HOST:PORT[,HOST:PORT...]/NAME on a Redis Cluster; created when missing)"),
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Category: catIndex, Usage: "listen on `HOST:PORT` (port 0: any free port)"},
			&cli.StringFlag{Name: "token-file", Category: catIndex, TakesFile: true,
				Usage: "`FILE` holding the bearer token that write routes require (white space around it is ignored)"},
			&cli.BoolFlag{DisableDefaultText: true, Name: "insecure", Category: catIndex,
				Usage: "allow listening on a non-loopback address without --token-file: anyone who reaches it can change the archive"},
			&cli.BoolFlag{Name: "keep-text", Value: true, Category: catIndex,
				Usage: "keep each added article's text in the archive (compressed), for the page's shared-passage view; --keep-text=false keeps keywords only"},
			leanFlag(false),
			&cli.Int64Flag{Name: "max-bytes", Value: serve.DefaultMaxBytes, DefaultText: "16 MiB", Category: catInput,
				Usage: "answer 413 to request bodies larger than `N` bytes"},
			&cli.StringFlag{Name: "cors-origin", Category: catIndex,
				Usage: "send Access-Control-Allow-Origin: `ORIGIN` and let its pages write (no CORS headers without it; '*' needs --token-file or --insecure)"},
			&cli.StringSliceFlag{Name: "allow-host", Category: catIndex,
				Usage: "accept requests whose Host header is `NAME` (besides localhost and the listening address; repeat for more)"},
			&cli.Int64Flag{Name: "memory-budget", Value: serve.DefaultMemoryBudget, DefaultText: "4 GiB", Category: catInput,
				Usage: "answer 503 to a request whose analysis would take the memory of those under way past `N` bytes (each takes 160 times its body's size)"},
			&cli.DurationFlag{Name: "grace", Value: serve.DefaultGrace, Category: catIndex,
				Usage: "on SIGTERM, wait up to `D` for requests in flight before closing the archive"},
			reuseFlag("partial reuse: file added articles under their passage fingerprints and answer check?reuse=true (the archive needs a reuse index: made when it is created with --reuse)"),
		}, analyzerFlags(), matchFlags(), reuseFlags()),
		Action: runServe,
	}
}

// serveAccess reads the token and checks who may write through the
// address the flags name: a server that anyone, or any site's pages,
// can reach must have a token, or be --insecure (and say so on stderr).
func serveAccess(c *cli.Context) (token, addr string, err error) {
	if f := c.String("token-file"); f != "" {
		if token, err = serve.ReadToken(f); err != nil {
			return "", "", fmt.Errorf("--token-file: %w", err)
		}
	}
	addr = c.String("addr")
	loopback, err := serve.IsLoopback(addr)
	if err != nil {
		return "", "", usagef(c, "--addr %s: %v", addr, err)
	}
	ew := c.App.ErrWriter
	if !loopback && token == "" {
		if !c.Bool("insecure") {
			return "", "", usagef(c, "--addr %s is not a loopback address: give --token-file FILE so that only holders of the token can write (or --insecure to let anyone who reaches it change the archive)", addr)
		}
		fmt.Fprintf(ew, "neardup serve: WARNING: --insecure: listening on %s without a token: anyone who reaches it can add and delete documents\n", addr)
	}
	if c.String("cors-origin") == "*" && token == "" {
		if !c.Bool("insecure") {
			return "", "", usagef(c, "--cors-origin '*' without --token-file lets the pages of every site change the archive: give --token-file FILE (or --insecure)")
		}
		fmt.Fprintf(ew, "neardup serve: WARNING: --insecure: --cors-origin '*' without a token: the pages of every site can add and delete documents\n")
	}
	return token, addr, nil
}

func runServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef(c, "unexpected argument %q", c.Args().First())
	}
	s := newSetup(c)
	defer s.close()
	dir, k, minJ := s.index(), s.indexDistance(), s.minContent()
	if c.Int64("max-bytes") < 1 {
		s.fail("--max-bytes %d: want at least 1", c.Int64("max-bytes"))
	}
	if s.err != nil {
		return s.err
	}
	token, addr, err := serveAccess(c)
	if err != nil {
		return err
	}
	ew := c.App.ErrWriter
	a := s.analyzer()
	x := s.open(dir, a, k, minJ, false)
	ri := s.openReuse(dir, x, a, c.Bool("reuse"))
	if ri != nil && !c.Bool("keep-text") {
		s.fail("the archive has a reuse index, which needs the texts kept: drop --keep-text=false")
	}
	if s.err != nil {
		return s.err
	}
	srv, err := serve.New(serve.Options{Index: x, Analyzer: a, MaxDistance: k, MinContent: minJ, Token: token, Reuse: ri,
		KeepText: c.Bool("keep-text"), MaxBytes: c.Int64("max-bytes"), Keywords: storedKeywords, CORSOrigin: c.String("cors-origin"),
		AllowHosts: c.StringSlice("allow-host"), MemoryBudget: c.Int64("memory-budget"),
		Logf: func(format string, args ...any) { fmt.Fprintf(ew, "neardup serve: "+format+"\n", args...) }})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	st, err := x.Stats(c.Context)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(ew, "neardup serve: listening on http://%s/ (archive %s, %s)\n", ln.Addr(), archive.Redact(dir), plural(st.Docs, "document", "documents"))
	grace := c.Duration("grace")
	if grace <= 0 {
		grace = time.Nanosecond
	}
	err = srv.Serve(c.Context, ln, grace)
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		fmt.Fprintf(ew, "neardup serve: stopped; archive %s closed\n", archive.Redact(dir))
	}
	return err
}
