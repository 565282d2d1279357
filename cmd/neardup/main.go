// Command neardup finds near-duplicate Chinese and English articles.
//
// It fingerprints articles (fingerprint), compares two (compare), keeps a
// persistent archive index (add, delete, stats, verify), answers an
// editor's question "have we published this before?" (check),
// deduplicates whole corpora (dedup), serves an archive over HTTP
// (serve), measures quality (eval), trains IDF tables (idf build) and
// compares URLs (url). Run "neardup --help" or "neardup COMMAND --help"
// for the flags of each command; help/*.txt holds the long help texts.
// The work is the library's: this package maps flags onto its options,
// prints its results and turns errors into exit statuses.
//
// Exit status, the same rule for every command (help/exit-status.txt): 0 done
// (bad records are reported and counted, and are not errors unless
// --strict), 1 check found a near-duplicate, 2 an error (usage, the
// index, an input that could not be read to its end, or with --strict a
// bad record), 130 interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/memlimit"
	"github.com/neardup/neardup/segment"
	"github.com/neardup/neardup/tfidf"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
// When empty, the module version from the build info is printed.
var version string

// Exit statuses.
const (
	exitOK          = 0
	exitFound       = 1 // check: a near-duplicate was found
	exitError       = 2 // an error, a usage error, an unreadable input; with --strict a bad record
	exitInterrupted = 130
)

func main() {
	silenceRedis()
	memlimit.Set(os.LookupEnv, os.ReadFile)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr, &environment{lookupEnv: os.LookupEnv, analyzers: newAnalyzers{exiting: true}})
	stop()
	os.Exit(code)
}

// environment is what a run takes from its process besides the command
// line and the standard streams. main passes the process's; tests pass
// their own, so that runs in one process share nothing else.
type environment struct {
	// lookupEnv reads an environment variable (NEARDUP_INDEX); nil reads
	// none.
	lookupEnv func(string) (string, bool)
	// analyzers makes the commands' analyzers and takes them back.
	analyzers analyzerPool
}

// analyzerPool makes the analyzer of a command's options (Get) and takes
// it back when the command is done with it (Put). A pool may lend one
// analyzer to several runs at once: an Analyzer is safe for concurrent
// use.
type analyzerPool interface {
	Get(*neardup.Options) (*neardup.Analyzer, error)
	Put(*neardup.Analyzer)
}

// newAnalyzers makes a new analyzer for each command and closes it
// afterwards, unless the process exits right after (main's runs):
// freeing cppjieba's dictionary takes about 0.2 s, most of it glibc's
// malloc_trim, which the exit makes pointless.
type newAnalyzers struct{ exiting bool }

func (p newAnalyzers) Get(o *neardup.Options) (*neardup.Analyzer, error) {
	return neardup.NewAnalyzer(o)
}

func (p newAnalyzers) Put(a *neardup.Analyzer) {
	if !p.exiting {
		a.Close()
	}
}

// metaEnv is the App.Metadata key of the run's *environment.
const metaEnv = "environment"

// envOf returns the environment of the run of c.
func envOf(c *cli.Context) *environment {
	return c.App.Metadata[metaEnv].(*environment)
}

// run runs the command line args (args[0] is the program name) and
// returns the exit status, reading no environment variable. Examples
// call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(context.Background(), args, stdin, stdout, stderr, &environment{analyzers: newAnalyzers{}})
}

// runEnv runs the command line args in env and returns the exit status.
func runEnv(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env *environment) int {
	app := newApp(stdin, stdout, stderr)
	app.Metadata = map[string]any{metaEnv: env}
	err := app.RunContext(ctx, interspersed(app.Commands, args))
	return exitCode(err, stderr)
}

// exitStatus is an error that carries an exit status. An exitStatus with
// a nil err has been reported already (or is not an error, as check's
// status 1) and prints nothing more.
type exitStatus struct {
	code int
	err  error
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitStatus) Unwrap() error { return e.err }

// usageError is a command-line mistake: a bad flag or argument.
type usageError struct {
	cmd string // "neardup dedup"
	err error
}

func (e *usageError) Error() string { return e.err.Error() }

// usagef returns a usage error of the command of c.
func usagef(c *cli.Context, format string, args ...any) error {
	return &usageError{cmd: c.Command.HelpName, err: fmt.Errorf(format, args...)}
}

// redisDamaged starts every error of a Redis archive (redisstore's
// errors name their store so).
const redisDamaged = "redisstore: redis"

// exitCode reports err on stderr and returns the exit status for it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var es *exitStatus
	if errors.As(err, &es) {
		if es.err != nil {
			fmt.Fprintf(stderr, "neardup: %v\n", es.err)
		}
		return es.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", ue.cmd, ue.err, ue.cmd)
		return exitError
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "neardup: interrupted")
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "neardup: %v\n", err)
	switch {
	case errors.Is(err, index.ErrCorrupt) && strings.Contains(err.Error(), redisDamaged):
		// verify reads Badger directories only.
		fmt.Fprintln(stderr, "neardup: the Redis archive is damaged (a master lost its keys; 'neardup verify' reads Badger directories only): build it again from the articles under a new name, 'neardup add --index redis://HOST:PORT/NEWNAME FILE...' (docs/redis.md, \"A damaged archive\")")
	case errors.Is(err, index.ErrCorrupt):
		fmt.Fprintln(stderr, "neardup: the index is damaged: 'neardup verify --index DIR' lists what is damaged, 'neardup verify --index DIR --salvage NEWDIR' copies what is readable into a new index")
	}
	return exitError
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "neardup",
		Usage: "find near-duplicate Chinese and English articles",
		Description: "neardup fingerprints articles with a 64-bit SimHash of their TF-IDF keywords and a MinHash sketch of\n" +
			"their text, finds candidates within a few fingerprint bits or sharing a sketch band in an index, and\n" +
			"confirms them by their content similarity.\n" +
			"Inputs are JSONL files ({\"id\",\"title\",\"text\"} per line), text or HTML files, directories of them,\n" +
			"gzip-compressed or not, or - for standard input.",
		Reader:      stdin,
		Writer:      stdout,
		ErrWriter:   stderr,
		HideVersion: true, // --version is ours: it also prints the analyzer defaults
		Flags: []cli.Flag{
			&cli.BoolFlag{DisableDefaultText: true, Name: "version", Aliases: []string{"v"}, Usage: "print the version and the analyzer defaults"},
			cli.HelpFlag, // urfave/cli adds it only along with its own help command
		},
		Commands: []*cli.Command{
			fingerprintCommand(),
			compareCommand(),
			checkCommand(),
			addCommand(),
			dedupCommand(),
			evalCommand(),
			urlCommand(),
			idfCommand(),
			statsCommand(),
			deleteCommand(),
			verifyCommand(),
			serveCommand(),
			helpCommand(), // in place of urfave/cli's own
		},
		Action:         rootAction,
		ExitErrHandler: func(*cli.Context, error) {}, // run maps errors to exit statuses; nothing calls os.Exit
		OnUsageError:   onUsageError,
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes every command report flag errors as usage errors
// on stderr instead of printing its help to stdout.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		setUsageErrors(c.Subcommands)
	}
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	name := "neardup"
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return &usageError{cmd: name, err: err}
}

func rootAction(c *cli.Context) error {
	if c.Bool("version") {
		return printVersion(c)
	}
	if c.NArg() > 0 {
		return &usageError{cmd: "neardup", err: fmt.Errorf("unknown command %q", c.Args().First())}
	}
	return cli.ShowAppHelp(c)
}

// printVersion prints the version, the build and the defaults that
// decide fingerprints.
func printVersion(c *cli.Context) error {
	w := c.App.Writer
	build := "pure Go"
	if slices.Contains(segment.Backends(), segment.BackendGojieba) {
		build = "with gojieba"
	}
	fmt.Fprintf(w, "neardup %s (%s, %s/%s, %s)\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH, build)
	fmt.Fprintf(w, "analyzer format:    v%d\n", neardup.FormatVersion)
	fmt.Fprintf(w, "segmenter:          %s (available: %s)\n", segment.DefaultBackend, strings.Join(segment.Backends(), ", "))
	fmt.Fprintf(w, "dictionaries:       embedded (jieba dictionary, Chinese and English IDF and stop words)\n")
	fmt.Fprintf(w, "keywords:           all candidates, %d to %d (adaptive); at least %d for a fingerprint\n", tfidf.MinN, tfidf.MaxN, neardup.MinKeywords)
	fmt.Fprintf(w, "max distance:       %d bits of 64\n", index.DefaultMaxDistance)
	fmt.Fprintf(w, "min content:        %.2f (estimated Jaccard of character 5-grams)\n", index.DefaultMinContent)
	return nil
}

func versionString() string {
	if version != "" {
		return version
	}
	// Go 1.24 and later stamp a build from a Git checkout with a
	// pseudo-version (v0.0.0-DATE-REVISION[+dirty]); go run and builds
	// with -buildvcs=false say (devel).
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// findCommand returns the (sub)command args name, nil when they name
// none, and the index of the first of args after its name. Global
// flags come first.
func findCommand(cmds []*cli.Command, args []string) (*cli.Command, int) {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		i++
	}
	var cmd *cli.Command
	for i < len(args) {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[i]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		i++
	}
	return cmd, i
}

// interspersed moves the flags that follow a command's arguments in
// front of them, so that "neardup dedup in.jsonl --pairs p.jsonl" works as
// well as "neardup dedup --pairs p.jsonl in.jsonl" (Go's flag package
// stops at the first argument). Everything after "--" stays an argument.
func interspersed(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmd, i := findCommand(cmds, args)
	if cmd == nil || (len(cmd.Subcommands) > 0 && cmd.Action == nil) {
		return args
	}
	takesValue := make(map[string]bool)
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	dashes := false
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			pos = append(pos, rest[j+1:]...)
			dashes = true
			j = len(rest)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(rest) {
				j++
				flags = append(flags, rest[j])
			}
		default:
			pos = append(pos, a)
		}
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	if len(pos) > 0 || dashes {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
