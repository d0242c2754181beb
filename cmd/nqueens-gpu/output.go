package main

import (
	"fmt"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
)

// Every command writes its standard output through an *fsutil.ErrWriter,
// so that output lost to a full disk (> /dev/full), a closed pipe or a
// failing terminal is a runtime error (exit 1, "writing output: ..."),
// never a silent exit 0. A command that writes as it goes (the table of a
// count, of bench, of check) stops its work at the first failed write.

// checkedOutput wraps stdout in an *fsutil.ErrWriter, unless it is one.
func checkedOutput(stdout io.Writer) *fsutil.ErrWriter {
	if e, ok := stdout.(*fsutil.ErrWriter); ok {
		return e
	}
	return &fsutil.ErrWriter{W: stdout}
}

// outputErr returns the first failed write to w when w remembers it (an
// *fsutil.ErrWriter), else nil.
func outputErr(w io.Writer) error {
	if e, ok := w.(*fsutil.ErrWriter); ok {
		return e.Err()
	}
	return nil
}

// outputFailed reports a failed write to stdout on stderr and returns the
// exit status of a runtime error.
func outputFailed(stderr io.Writer, err error) int {
	printError(stderr, "writing output: "+err.Error())
	return exitRuntime
}

// outputDone is the exit status of a command that ended with code and
// wrote its output through out: a command that succeeded fails when a
// write to out failed. A command that failed already said why.
func outputDone(code int, out *fsutil.ErrWriter, stderr io.Writer) int {
	if err := out.Err(); err != nil && code == exitOK {
		return outputFailed(stderr, err)
	}
	return code
}

// checkOutputFiles checks, before any work, that each output file a flag
// names can be written the way it will be (fsutil.WriteAtomic: replaced
// through its links, keeping its mode and owner): a missing directory, a
// read-only file, a directory or a FIFO in its place fails now, not after
// hours of work. flagFiles holds pairs of a flag name and its file ("" for
// none). It prints the error and returns exitRuntime, or exitOK.
func checkOutputFiles(stderr io.Writer, flagFiles ...string) int {
	for i := 0; i+1 < len(flagFiles); i += 2 {
		name, path := flagFiles[i], flagFiles[i+1]
		if path == "" {
			continue
		}
		if err := fsutil.CheckWritable(path); err != nil {
			printError(stderr, fmt.Sprintf("%s: %v; stopped before any work", name, err))
			return exitRuntime
		}
	}
	return exitOK
}
