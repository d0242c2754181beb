package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

const hash = "b7b7392d0294d3f4623207f439f9465d6da5fbfc"

func vcs(rev, modified, time string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/nqueens-gpu/nqueens-gpu", Version: "(devel)"}}
	for _, s := range [][2]string{{"vcs.revision", rev}, {"vcs.modified", modified}, {"vcs.time", time}} {
		if s[1] != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: s[0], Value: s[1]})
		}
	}
	return bi
}

// The linker's stamp wins over Go's VCS stamp, which wins over nothing;
// the module version is Go's, "devel" where it recorded none.
func TestFromBuild(t *testing.T) {
	pseudo := vcs(hash, "true", "2026-11-30T10:00:00Z")
	pseudo.Main.Version = "v0.0.0-20261130100000-b7b7392d0294+dirty"
	tests := []struct {
		name     string
		bi       *debug.BuildInfo
		stamp    string
		modified bool
		want     Info
		short    string
	}{
		{"no build information", nil, "", false,
			Info{Version: "devel", CUDA: "none"}, "devel"},
		{"go build outside git", vcs("", "", ""), "", false,
			Info{Version: "devel", CUDA: "none"}, "devel"},
		{"go build in a modified checkout", pseudo, "", false,
			Info{Version: "v0.0.0-20261130100000-b7b7392d0294+dirty", Commit: hash, Modified: true, CommitTime: "2026-11-30T10:00:00Z", CUDA: "none"},
			"b7b7392d0294+dirty"},
		{"make, VCS stamp off", vcs("", "", ""), hash, false,
			Info{Version: "devel", Commit: hash, CUDA: "none"}, "b7b7392d0294"},
		{"make, the same commit", vcs(hash, "false", "2026-11-30T10:00:00Z"), hash, true,
			Info{Version: "devel", Commit: hash, Modified: true, CommitTime: "2026-11-30T10:00:00Z", CUDA: "none"}, "b7b7392d0294+dirty"},
		{"make, another commit", vcs("0123456789abcdef0123456789abcdef01234567", "true", "2026-01-01T00:00:00Z"), hash, false,
			Info{Version: "devel", Commit: hash, CUDA: "none"}, "b7b7392d0294"},
		{"a release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "", false,
			Info{Version: "v1.2.0", CUDA: "none"}, "v1.2.0"},
	}
	for _, tt := range tests {
		got := fromBuild(tt.bi, tt.stamp, tt.modified, "")
		tt.want.Go = runtime.Version()
		if got != tt.want {
			t.Errorf("%s:\n got  %+v\n want %+v", tt.name, got, tt.want)
		}
		if s := got.Short(); s != tt.short {
			t.Errorf("%s: Short %q, want %q", tt.name, s, tt.short)
		}
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v0.0.0-20261130100000-b7b7392d0294+dirty", Commit: hash, Modified: true, Go: "go1.26.8", CUDA: "PTX of nvcc 11.8 for compute_70"}
	want := "v0.0.0-20261130100000-b7b7392d0294+dirty, commit " + hash + " with uncommitted changes, go1.26.8 " +
		runtime.GOOS + "/" + runtime.GOARCH + ", CUDA: PTX of nvcc 11.8 for compute_70"
	if got := i.String(); got != want {
		t.Errorf("String:\n got  %q\n want %q", got, want)
	}
	i = Info{Version: "devel", Go: "go1.24.0", CUDA: "none"}
	if got := i.String(); got != "devel, commit unknown, go1.24.0 "+runtime.GOOS+"/"+runtime.GOARCH+", CUDA: none" {
		t.Errorf("String of an unstamped build: %q", got)
	}
}

func TestCUDA(t *testing.T) {
	build := "nvcc: release 11.8, V11.8.89 (Build cuda_11.8.r11.8/compiler.31833905_0)\nflags: -ptx -arch=compute_70 -O3 -std=c++14 -Ikernels"
	tests := []struct {
		cuda bool
		ptx  string
		want string
	}{
		{false, "", "none"},
		{false, build, "none"},
		{true, build, "PTX of nvcc 11.8 for compute_70"},
		{true, "nvcc: release 13.0, V13.0.88\nflags: -ptx -arch=compute_75 -O3", "PTX of nvcc 13.0 for compute_75"},
		{true, "", "PTX of nvcc unknown"},
	}
	for _, tt := range tests {
		if got := CUDA(tt.cuda, tt.ptx); got != tt.want {
			t.Errorf("CUDA(%v, %q) = %q, want %q", tt.cuda, tt.ptx, got, tt.want)
		}
	}
	if got := Read("PTX of nvcc 11.8 for compute_70").CUDA; got != "PTX of nvcc 11.8 for compute_70" {
		t.Errorf("Read kept the CUDA build as %q", got)
	}
	if got := Read("").CUDA; got != "none" {
		t.Errorf("Read(\"\").CUDA = %q, want none", got)
	}
}

// The Makefile's -X flags set the variables Read reads: a binary built
// with its LDFLAGS_BUILD reports the commit they name.
func TestLinkerStamp(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	// The flags as make would pass them for a modified tree at hash.
	mk := exec.Command("make", "-s", "-C", "../..", "GIT_COMMIT="+hash, "GIT_MODIFIED=true",
		"--eval", "print-ldflags: ; @echo '$(LDFLAGS_BUILD)'", "print-ldflags")
	flags, err := mk.Output()
	if err != nil {
		t.Fatalf("make print-ldflags: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "stamp")
	build := exec.Command(goTool, "build", "-o", bin, "-ldflags", strings.TrimSpace(string(flags)), "./testdata/stamp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags %q: %v\n%s", flags, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), hash+" true b7b7392d0294+dirty"; got != want {
		t.Errorf("built with the Makefile's flags %q, the binary says %q, want %q", flags, got, want)
	}
}
