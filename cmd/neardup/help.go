package main

import (
	"embed"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpTexts are the long descriptions "neardup COMMAND --help" prints,
// one plain-text file a command (help/COMMAND.txt, help/COMMAND-SUB.txt
// for a subcommand), readable without building the command.
//
//go:embed help/*.txt
var helpTexts embed.FS

// description returns the text of help/name.txt without its final
// newline ("" when there is none: TestHelpTexts checks every command
// has one).
func description(name string) string {
	b, _ := helpTexts.ReadFile("help/" + name + ".txt")
	return strings.TrimSuffix(string(b), "\n")
}

// helpCommand is "neardup help [COMMAND [SUBCOMMAND]]": the same text as
// "neardup COMMAND [SUBCOMMAND] --help". (urfave/cli's own help command
// shows a command that has subcommands, "idf" or "url", without its
// description, and "help idf build" as "help idf".)
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the help of neardup or of a command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			// Only known names: the run below must not do anything else.
			cmds := c.App.Commands
			for _, name := range c.Args().Slice() {
				var next *cli.Command
				for _, k := range cmds {
					if k.HasName(name) {
						next = k
					}
				}
				if next == nil {
					return usagef(c, "no command %q", name)
				}
				cmds = next.Subcommands
			}
			args := append(append([]string{c.App.Name}, c.Args().Slice()...), "--help")
			return c.App.RunContext(c.Context, args)
		},
	}
}
