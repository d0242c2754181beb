package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
)

// The exit statuses of the program.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
)

// UsageError is a mistake in the command line: exit status 2. Sub names
// the subcommand whose help the message points to ("" for the count).
type UsageError struct {
	Msg string
	Sub string
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError of the counting command.
func Usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// Interrupted is the error of a command stopped by a signal (or by a
// cancelled context): exit status 128 + the signal's number. Hint, if not
// "", is a second line to print after the message (how to resume).
type Interrupted struct {
	Signal os.Signal // nil when no signal stopped it
	Msg    string
	Hint   string
}

func (e *Interrupted) Error() string { return e.Msg }

// OutputError is a failed write of the results to stdout: exit status 1.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return "writing output: " + e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// SignalCause is the cause of the cancellation of a run's context when a
// signal stopped it (context.CancelCauseFunc).
type SignalCause struct{ Signal os.Signal }

func (s SignalCause) Error() string { return "interrupted by " + SignalName(s.Signal) }

// SignalName is "SIGINT", "SIGTERM" or the signal's own name.
func SignalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// interrupted returns the *Interrupted of a command whose ctx was
// cancelled, with the message format and a (" by SIGNAME" goes where
// format has its first %s).
func interrupted(ctx context.Context, format string, a ...any) *Interrupted {
	var sc SignalCause
	by := ""
	var sig os.Signal
	if errors.As(context.Cause(ctx), &sc) {
		sig, by = sc.Signal, " by "+SignalName(sc.Signal)
	}
	return &Interrupted{Signal: sig, Msg: fmt.Sprintf(format, append([]any{by}, a...)...)}
}

// ExitCode is the exit status for err: 0 for nil, 2 for a usage error,
// 128 + the signal's number for an interruption (130 for SIGINT, or
// without a signal), 1 for anything else.
func ExitCode(err error) int {
	var ue *UsageError
	var de *device.UsageError
	var in *Interrupted
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue), errors.As(err, &de):
		return ExitUsage
	case errors.As(err, &in):
		if s, ok := in.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 128 + int(syscall.SIGINT)
	}
	return ExitRuntime
}

// hinted is an error with a second line for the user (what was saved, how
// to resume), printed after its message.
type hinted struct {
	error
	hint string
}

func (h *hinted) Unwrap() error { return h.error }

// Hint is the second line of err for the user, or "".
func Hint(err error) string {
	var h *hinted
	var in *Interrupted
	switch {
	case errors.As(err, &in):
		return in.Hint
	case errors.As(err, &h):
		return h.hint
	}
	return ""
}
