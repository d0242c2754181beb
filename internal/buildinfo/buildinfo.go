// Package buildinfo says which build of the program is running: the
// module version, the commit, the Go toolchain and the CUDA build, for
// `nqueens-gpu version` and for the JSON records the program writes.
//
// The commit comes from the linker when the build stamps it, as the
// Makefile does:
//
//	go build -ldflags "-X github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo.commit=HASH
//	    -X github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo.modified=true" ./cmd/nqueens-gpu
//
// else from Go's own VCS stamp (debug.ReadBuildInfo's vcs.revision and
// vcs.modified), which a plain go build in a git checkout writes. The
// package imports nothing of the program's, so the caller passes what it
// knows of the CUDA build (see CUDA).
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// commit and modified are set by the linker (-X): the git commit the
// binary was built from and "true" when the tree had uncommitted changes
// to tracked files.
var commit, modified string

// Info describes one build.
type Info struct {
	// Version is the main module's version: a release tag, a Go
	// pseudo-version (v0.0.0-DATE-COMMIT, "+dirty" for a modified
	// tree), or "devel" where the build recorded none.
	Version string
	// Commit is the full git hash, "" when unknown; Modified says that
	// the tree had uncommitted changes; CommitTime is the commit's time
	// (RFC 3339) where Go stamped it.
	Commit     string
	Modified   bool
	CommitTime string
	// Go is the toolchain's version, such as "go1.26.8".
	Go string
	// CUDA is the CUDA build as the caller gave it to Read: "none" for a
	// CPU-only build.
	CUDA string
}

// Read describes the running binary; cuda is Info.CUDA ("" reads as
// "none").
func Read(cuda string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return fromBuild(bi, commit, modified == "true", cuda)
}

// fromBuild is Read for the build information bi (nil: none) and the
// linker's stamp.
func fromBuild(bi *debug.BuildInfo, stamped string, stampedModified bool, cuda string) Info {
	i := Info{Version: "devel", Go: runtime.Version(), CUDA: cuda}
	if i.CUDA == "" {
		i.CUDA = "none"
	}
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			i.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Commit = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			case "vcs.time":
				i.CommitTime = s.Value
			}
		}
	}
	if stamped != "" {
		// The linker's stamp wins; Go's time is of another commit.
		if stamped != i.Commit {
			i.CommitTime = ""
		}
		i.Commit, i.Modified = stamped, stampedModified
	}
	return i
}

// Short is the build as checkpoints and shard results name it: the
// commit's first 12 digits, with "+dirty" for a modified tree, else the
// module version.
func (i Info) Short() string {
	if i.Commit == "" {
		return i.Version
	}
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "+dirty"
	}
	return c
}

// String is the line of `nqueens-gpu version` after the program's name:
//
//	v0.0.0-20261201093000-0123456789ab, commit 0123456789abcdef0123456789abcdef01234567, go1.26.8 linux/amd64, CUDA: PTX of nvcc 11.8 for compute_70
func (i Info) String() string {
	c := "commit unknown"
	if i.Commit != "" {
		c = "commit " + i.Commit
		if i.Modified {
			c += " with uncommitted changes"
		}
	}
	return fmt.Sprintf("%s, %s, %s %s/%s, CUDA: %s", i.Version, c, i.Go, runtime.GOOS, runtime.GOARCH, i.CUDA)
}

// CUDA writes the CUDA build for Read from what the gpu package says of
// it (gpu.CUDABuild): "none" without the cuda tag, else the nvcc release
// and target of the embedded PTX, read from ptxBuild's "nvcc: release
// 11.8, ..." and "flags: ... -arch=compute_70 ..." lines: "PTX of nvcc
// 11.8 for compute_70".
func CUDA(cudaBuild bool, ptxBuild string) string {
	if !cudaBuild {
		return "none"
	}
	release, arch := "unknown", ""
	for _, line := range strings.Split(ptxBuild, "\n") {
		if rest, ok := strings.CutPrefix(line, "nvcc: release "); ok {
			if v, _, _ := strings.Cut(rest, ","); v != "" {
				release = strings.TrimSpace(v)
			}
		}
		if rest, ok := strings.CutPrefix(line, "flags: "); ok {
			for _, f := range strings.Fields(rest) {
				if a, ok := strings.CutPrefix(f, "-arch="); ok {
					arch = a
				}
			}
		}
	}
	s := "PTX of nvcc " + release
	if arch != "" {
		s += " for " + arch
	}
	return s
}
