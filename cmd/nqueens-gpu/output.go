package main

import (
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
