package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeNVCC writes an nvcc of release rel into dir: --version prints its
// version, a compile writes its arguments and the source to the -o file.
func fakeNVCC(t *testing.T, dir, rel string) nvcc {
	t.Helper()
	script := `#!/bin/sh
if [ "$1" = --version ]; then
	echo "nvcc: NVIDIA (R) Cuda compiler driver (fake)"
	echo "Cuda compilation tools, release ` + rel + `, V` + rel + `.1"
	echo "Build cuda_` + rel + `.fake"
	exit 0
fi
out= src=
prev=
for a in "$@"; do
	[ "$prev" = -o ] && out=$a
	prev=$a
	src=$a
done
{ echo "// $*" | sed "s|$out|OUT|"; cat "$src"; } >"$out"
`
	path := filepath.Join(dir, "nvcc-"+rel)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	nv, err := findNVCC(path, "", "-O3")
	if err != nil {
		t.Fatal(err)
	}
	nv.name = "nvcc"
	return nv
}

// tree makes a repository with kernels/a.cu, b.cu and x.h.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{"a.cu": "kernel a\n", "b.cu": "kernel b\n", "x.h": "header\n"} {
		write(t, filepath.Join(root, "kernels", name), text)
	}
	return root
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestBuild(t *testing.T) {
	root := tree(t)
	nv := fakeNVCC(t, t.TempDir(), "11.8")
	dir := filepath.Join(root, "kernels", "ptx")
	write(t, filepath.Join(dir, "gone_nodes.ptx"), "old")
	var out strings.Builder
	if err := build(root, dir, nv, &out); err != nil {
		t.Fatal(err)
	}
	flags := "-ptx -arch=compute_70 -O3 -Ikernels"
	want := "nvcc: release 11.8, V11.8.1 (Build cuda_11.8.fake)\n" +
		"flags: " + flags + "\n" +
		"# Written by make ptx (go generate ./kernels); make ptx-check builds the\n" +
		"# folder again and compares every file. Each module and its command:\n" +
		"a.ptx: nvcc " + flags + " -o a.ptx kernels/a.cu\n" +
		"a_nodes.ptx: nvcc " + flags + " -DNQ_NODES=1 -o a_nodes.ptx kernels/a.cu\n" +
		"b.ptx: nvcc " + flags + " -o b.ptx kernels/b.cu\n" +
		"b_nodes.ptx: nvcc " + flags + " -DNQ_NODES=1 -o b_nodes.ptx kernels/b.cu\n" +
		"# The sources (kernels/), which go test ./kernels compares with the files at hand:\n" +
		"sha256: " + hash("kernel a\n") + "  a.cu\n" +
		"sha256: " + hash("kernel b\n") + "  b.cu\n" +
		"sha256: " + hash("header\n") + "  x.h\n"
	if got := read(t, filepath.Join(dir, "BUILD.txt")); got != want {
		t.Errorf("BUILD.txt:\n%s\nwant:\n%s", got, want)
	}
	if got, want := read(t, filepath.Join(dir, "b_nodes.ptx")), "// "+flags+" -DNQ_NODES=1 -o OUT kernels/b.cu\nkernel b\n"; got != want {
		t.Errorf("b_nodes.ptx = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone_nodes.ptx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gone_nodes.ptx, of no kernels/gone.cu, is still there (%v)", err)
	}
	if !strings.Contains(out.String(), "gone_nodes.ptx (no kernels/gone.cu)") {
		t.Errorf("output %q does not say that gone_nodes.ptx went", out.String())
	}
	write(t, filepath.Join(root, "kernels", "c_nodes.cu"), "")
	if err := build(root, dir, nv, &out); err == nil || !strings.Contains(err.Error(), "must not end in _nodes") {
		t.Errorf("c_nodes.cu: error %v, want one saying that the name must not end in _nodes", err)
	}
}

func TestCheck(t *testing.T) {
	bin := t.TempDir()
	nv11, nv13 := fakeNVCC(t, bin, "11.8"), fakeNVCC(t, bin, "13.0")
	root := tree(t)
	committed := filepath.Join(root, "kernels", "ptx")
	if err := build(root, committed, nv11, new(strings.Builder)); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := check(root, nv11, &out); err != nil || !strings.Contains(out.String(), "ptx-check: kernels/ptx is what nvcc makes of kernels/ now (5 files: the PTX and BUILD.txt)") {
		t.Errorf("same nvcc, same files: %v, %q", err, out.String())
	}

	out.Reset()
	err := check(root, nv13, &out)
	if err != nil || !strings.HasPrefix(out.String(), "ptx-check: byte comparison with kernels/ptx skipped: nvcc release 13.0, V13.0.1 (nvcc) differs from the recorded nvcc release 11.8, V11.8.1 (kernels/ptx/BUILD.txt)") ||
		!strings.Contains(out.String(), "ptx-check: what was checked: 4 modules of kernels/ compile with nvcc (-ptx -arch=compute_75 -O3 -Ikernels)") {
		t.Errorf("another nvcc: %v, %q", err, out.String())
	}

	write(t, filepath.Join(committed, "a.ptx"), read(t, filepath.Join(committed, "a.ptx"))+"edited\n")
	err = check(root, nv11, &out)
	if err == nil || !strings.Contains(err.Error(), "a.ptx: line 3\n< edited\n> \n") {
		t.Errorf("an edited module: %v", err)
	}

	write(t, filepath.Join(root, "kernels", "x.h"), "changed\n")
	err = check(root, nv13, &out)
	if err == nil || !strings.Contains(err.Error(), "< "+hash("header\n")+"  x.h\n> "+hash("changed\n")+"  x.h\n") {
		t.Errorf("another nvcc, a changed source: %v", err)
	}
}

func TestVersionAndArch(t *testing.T) {
	line, rel := versionLine("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2022 NVIDIA Corporation\n" +
		"Built on Wed_Sep_21_10:33:58_PDT_2022\nCuda compilation tools, release 11.8, V11.8.89\nBuild cuda_11.8.r11.8/compiler.31833905_0\n")
	if want := "release 11.8, V11.8.89 (Build cuda_11.8.r11.8/compiler.31833905_0)"; line != want || rel != "11.8" {
		t.Errorf("versionLine = %q, %q; want %q, 11.8", line, rel, want)
	}
	for rel, want := range map[string]string{"11.8": "compute_70", "12.9": "compute_70", "13.0": "compute_75", "14.1": "compute_75", "": "compute_70"} {
		if got := defaultArch(rel); got != want {
			t.Errorf("defaultArch(%q) = %s, want %s", rel, got, want)
		}
	}
	var u usageError
	if err := run([]string{"make"}, new(strings.Builder)); !errors.As(err, &u) {
		t.Errorf("run(make) = %v, want a usage error", err)
	}
}
