package app

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
)

// Program is the program's name, as its messages start.
const Program = "nqueens-gpu"

// maxErrorLine bounds an error line: whatever the user typed or a file
// held, a message is one line of at most this many bytes.
const maxErrorLine = 1000

// PrintError writes msg as one line on w, prefixed with the program's
// name and cut to maxErrorLine bytes (clip.Line keeps its head and tail).
func PrintError(w io.Writer, msg string) {
	fmt.Fprintf(w, "%s\n", clip.Line(Program+": "+OneLine(msg), maxErrorLine))
}

// OneLine escapes line breaks so that a message never spans lines,
// whatever the user typed or a driver returned.
func OneLine(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

var shellPlain = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// CommandLine writes the command name ("" for Program) with args, each
// quoted for a POSIX shell where needed.
func CommandLine(name string, args []string) string {
	if name == "" {
		name = Program
	}
	var parts []string
	for _, a := range append([]string{name}, args...) {
		if !shellPlain.MatchString(a) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
