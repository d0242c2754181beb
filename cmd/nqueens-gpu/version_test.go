package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
)

// testBuild is the build the tests' hooks claim.
var testBuild = buildinfo.Info{Version: "v1.0.0", Commit: "0123456789abcdef0123456789abcdef01234567", Go: "go1.26.8", CUDA: "none"}

// -version and `version` print the module version, the commit, Go and
// the CUDA build on one line and exit 0; the real binary says the same
// for either.
func TestVersion(t *testing.T) {
	want := "nqueens-gpu v1.0.0, commit 0123456789abcdef0123456789abcdef01234567, go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH + ", CUDA: none\n"
	h := noCUDA().hooks()
	h.Build = testBuild
	for _, args := range [][]string{{"-version"}, {"-n", "8", "-version"}} {
		var out, errOut bytes.Buffer
		if code := runWith(context.Background(), args, &out, &errOut, h); code != 0 || out.String() != want || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out.String(), errOut.String(), want)
		}
	}
	var out, errOut bytes.Buffer
	if code := runVersionWith(context.Background(), nil, &out, &errOut, h); code != 0 || out.String() != want || errOut.Len() != 0 {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want %q", code, out.String(), errOut.String(), want)
	}
	if code := runVersionWith(context.Background(), []string{"x"}, &out, &errOut, h); code != exitUsage {
		t.Errorf("version x: exit %d", code)
	}
	line := regexp.MustCompile(`^nqueens-gpu \S+, commit [^,]+, go\S+ \S+/\S+, CUDA: [^\n]+\n$`)
	a, err1 := program("-version").Output()
	b, err2 := program("version").Output()
	if err1 != nil || err2 != nil || string(a) != string(b) || !line.Match(a) {
		t.Errorf("-version: %q, %v; version: %q, %v", a, err1, b, err2)
	}
}

// Every JSON record names the build that wrote it: a count's records,
// shard results, the merged record, and the bench and check documents.
func TestRecordsCarryBuild(t *testing.T) {
	h := noCUDA().hooks()
	h.Build = testBuild
	run := func(f func(stdout, stderr *bytes.Buffer) int) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := f(&out, &errOut); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, errOut.String())
		}
		return out.String()
	}
	type build struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
		Env     *build `json:"env"`
	}
	check := func(what, text, version string) {
		t.Helper()
		var b build
		if err := json.Unmarshal([]byte(text), &b); err != nil {
			t.Fatalf("%s: %v in %q", what, err, text)
		}
		if b.Env != nil {
			b = *b.Env
		}
		if b.Version != version || b.Commit != testBuild.Commit {
			t.Errorf("%s: version %q commit %q, want %q and %q", what, b.Version, b.Commit, version, testBuild.Commit)
		}
	}
	check("a count's record", run(func(o, e *bytes.Buffer) int {
		return runWith(context.Background(), []string{"-n", "6", "-json"}, o, e, h)
	}), "v1.0.0")
	sh := run(func(o, e *bytes.Buffer) int {
		return runWith(context.Background(), []string{"-n", "6", "-json", "-shard", "0/1"}, o, e, h)
	})
	check("a shard result", sh, testBuild.Short())
	file := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(file, []byte(sh), 0o644); err != nil {
		t.Fatal(err)
	}
	check("the merged record", run(func(o, e *bytes.Buffer) int {
		return runMergeWith(context.Background(), []string{"-json", file}, o, e, h)
	}), "v1.0.0")
	f := &solverFake{}
	fh := f.hooks()
	fh.Build = testBuild
	check("bench", run(func(o, e *bytes.Buffer) int {
		return runBenchWith(context.Background(), []string{"-n", "6", "-runs", "1", "-json"}, o, e, fh)
	}), "v1.0.0")
	check("check", run(func(o, e *bytes.Buffer) int {
		return runCheckWith(context.Background(), []string{"-n", "6", "-json"}, o, e, fh)
	}), "v1.0.0")
	if strings.Contains(sh, `"commit":""`) {
		t.Errorf("empty commit written: %s", sh)
	}
}
