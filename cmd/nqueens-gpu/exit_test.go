package main

import (
	"syscall"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// The exit statuses the tests expect (app.ExitCode decides them).
const (
	exitOK          = app.ExitOK
	exitRuntime     = app.ExitRuntime
	exitUsage       = app.ExitUsage
	exitHangup      = 128 + int(syscall.SIGHUP)
	exitInterrupted = 128 + int(syscall.SIGINT)
	exitTerminated  = 128 + int(syscall.SIGTERM)
)
