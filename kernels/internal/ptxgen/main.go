package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	err := run(os.Args[1:], os.Stdout)
	prefix := "ptxgen:"
	if len(os.Args) > 1 && os.Args[1] == "check" {
		prefix = "ptx-check:"
	}
	var u usageError
	switch {
	case errors.As(err, &u):
		fmt.Fprintln(os.Stderr, prefix, err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, prefix, err)
		os.Exit(1)
	}
}

type usageError string

func (u usageError) Error() string { return string(u) }

// run is the command with its arguments; it works in the repository that
// holds the working folder.
func run(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "build" && args[0] != "check" || len(args) > 1 {
		return usageError("usage: ptxgen build | check")
	}
	root, err := repository()
	if err != nil {
		return err
	}
	nv, err := findNVCC(env("NVCC", "nvcc"), os.Getenv("PTX_ARCH"), env("NVCCFLAGS", "-O3 -std=c++14"))
	if err != nil {
		return err
	}
	if args[0] == "check" {
		return check(root, nv, out)
	}
	dir := env("PTX_DIR", "kernels/ptx")
	at := dir
	if !filepath.IsAbs(at) {
		at = filepath.Join(root, dir)
	}
	if err := build(root, at, nv, out); err != nil {
		return err
	}
	msg := fmt.Sprintf("ptxgen: wrote %s with nvcc %s for %s", dir, nv.release, nv.arch)
	if filepath.Clean(dir) == "kernels/ptx" {
		msg += "; commit it with the sources"
	}
	fmt.Fprintln(out, msg)
	return nil
}

// env is the environment's value of key, or def where it is empty.
func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// repository is the folder above the working one (or it) that holds
// go.mod.
func repository() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working folder: run in the repository")
		}
		dir = up
	}
}

// nvcc is the compiler and the flags of the PTX.
type nvcc struct {
	name    string // as the environment names it, e.g. "nvcc"
	path    string
	line    string // its version, as BUILD.txt's first line names it
	release string // e.g. "11.8"
	arch    string // e.g. "compute_70"
	flags   string
}

// findNVCC asks nvcc (name) its version and chooses its flags: arch, else
// the default for that version, and extra.
func findNVCC(name, arch, extra string) (nvcc, error) {
	nv := nvcc{name: name}
	var err error
	if nv.path, err = exec.LookPath(name); err != nil {
		return nv, fmt.Errorf("%s not found: make cuda-deps installs it (Debian's nvidia-cuda-toolkit); building the CUDA variant needs only cuda.h", name)
	}
	v, err := exec.Command(nv.path, "--version").Output()
	if err != nil {
		return nv, fmt.Errorf("%s --version: %v", name, err)
	}
	nv.line, nv.release = versionLine(string(v))
	nv.arch = arch
	if nv.arch == "" {
		nv.arch = defaultArch(nv.release)
	}
	nv.flags = "-ptx -arch=" + nv.arch + " " + extra + " -Ikernels"
	return nv, nil
}

// versionLine reads nvcc --version: its "release ..." line and its last
// line (the build) as "release 11.8, V11.8.89 (Build ...)", and the
// release number.
func versionLine(out string) (line, release string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var version string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "Cuda compilation tools, "); ok {
			version = v
		}
	}
	if rest, ok := strings.CutPrefix(version, "release "); ok {
		release, _, _ = strings.Cut(rest, ",")
	}
	return version + " (" + lines[len(lines)-1] + ")", release
}

// defaultArch is the PTX target for an nvcc release: compute_70 (Volta,
// every GPU from V100 on), or compute_75 from release 13 on, which
// refuses the targets below 7.5.
func defaultArch(release string) string {
	major, _, _ := strings.Cut(release, ".")
	if m, err := strconv.Atoi(major); err == nil && m >= 13 {
		return "compute_75"
	}
	return "compute_70"
}

// sources lists the kernel sources below root as BUILD.txt does: kernels/
// *.cu, then *.h, then *.cuh, each in name order.
func sources(root string) ([]string, error) {
	var all []string
	for _, pat := range []string{"*.cu", "*.h", "*.cuh"} {
		m, err := filepath.Glob(filepath.Join(root, "kernels", pat))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			all = append(all, filepath.Base(f))
		}
	}
	return all, nil
}

// build writes the PTX of every kernels/NAME.cu of root and BUILD.txt to
// dir, and removes dir's modules whose .cu is gone.
func build(root, dir string, nv nvcc, out io.Writer) error {
	files, err := sources(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "nvcc: %s\nflags: %s\n", nv.line, nv.flags)
	b.WriteString("# Written by make ptx (go generate ./kernels); make ptx-check builds the\n")
	b.WriteString("# folder again and compares every file. Each module and its command:\n")
	var cus []string
	for _, f := range files {
		name, ok := strings.CutSuffix(f, ".cu")
		if !ok {
			continue
		}
		if strings.HasSuffix(name, "_nodes") {
			return fmt.Errorf("kernels/%s: a kernel file name must not end in _nodes (make ptx makes NAME_nodes.ptx of every NAME.cu)", f)
		}
		cus = append(cus, name)
		for _, m := range []struct{ module, define string }{{name, ""}, {name + "_nodes", "-DNQ_NODES=1 "}} {
			args := append(strings.Fields(nv.flags+" "+m.define), "-o", filepath.Join(dir, m.module+".ptx"), "kernels/"+f)
			cmd := exec.Command(nv.path, args...)
			cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s kernels/%s: %v", nv.name, f, err)
			}
			fmt.Fprintf(&b, "%s.ptx: nvcc %s %s-o %s.ptx kernels/%s\n", m.module, nv.flags, m.define, m.module, f)
		}
	}
	b.WriteString("# The sources (kernels/), which go test ./kernels compares with the files at hand:\n")
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, "kernels", f))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(text)
		fmt.Fprintf(&b, "sha256: %s  %s\n", hex.EncodeToString(sum[:]), f)
	}
	tmp := filepath.Join(dir, "BUILD.txt.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "BUILD.txt")); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
	for _, f := range old {
		if base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".ptx"), "_nodes"); !slices.Contains(cus, base) {
			fmt.Fprintf(out, "rm %s (no kernels/%s.cu)\n", f, base)
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// check builds the PTX of root into a temporary folder and compares it
// with root's kernels/ptx (see the package doc).
func check(root string, nv nvcc, out io.Writer) error {
	fresh, err := os.MkdirTemp("", "nqueens-ptx.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(fresh)
	if err := build(root, fresh, nv, io.Discard); err != nil {
		return err
	}
	committed := filepath.Join(root, "kernels", "ptx")
	recordedBuild, err := os.ReadFile(filepath.Join(committed, "BUILD.txt"))
	if err != nil {
		return err
	}
	freshBuild, err := os.ReadFile(filepath.Join(fresh, "BUILD.txt"))
	if err != nil {
		return err
	}
	if recorded := field(string(recordedBuild), "nvcc: "); recorded != nv.line {
		if d := diffLines(field(string(recordedBuild), "sha256: "), field(string(freshBuild), "sha256: ")); d != "" {
			return fmt.Errorf("the kernel sources differ from the ones kernels/ptx was made from (<: kernels/ptx/BUILD.txt, >: now):\n%sptx-check: run make ptx and commit kernels/ptx", d)
		}
		modules, _ := filepath.Glob(filepath.Join(fresh, "*.ptx"))
		fmt.Fprintf(out, "ptx-check: byte comparison with kernels/ptx skipped: nvcc %s (%s) differs from the recorded nvcc %s (kernels/ptx/BUILD.txt), and only the recorded one makes the committed bytes\n",
			short(nv.line), nv.name, short(recorded))
		fmt.Fprintf(out, "ptx-check: what was checked: %d modules of kernels/ compile with %s (%s), and the source hashes equal the recorded ones\n",
			len(modules), nv.name, nv.flags)
		return nil
	}
	d, n, err := diffDirs(committed, fresh)
	if err != nil {
		return err
	}
	if d != "" {
		return fmt.Errorf("the committed kernels/ptx differs from a fresh build of kernels/ (<: committed, >: fresh):\n%sptx-check: run make ptx and commit kernels/ptx", d)
	}
	fmt.Fprintf(out, "ptx-check: kernels/ptx is what %s makes of kernels/ now (%d files: the PTX and BUILD.txt)\n", nv.name, n)
	return nil
}

// short is an nvcc version line without its build: "release 11.8, V11.8.89".
func short(line string) string {
	s, _, _ := strings.Cut(line, " (")
	return s
}

// field returns the rest of every line of text that starts with prefix,
// one a line.
func field(text, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			b.WriteString(rest + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// diffLines lists the lines of a and b that the other lacks ("< " of a,
// "> " of b), or "" where both hold the same lines in the same order.
func diffLines(a, b string) string {
	if a == b {
		return ""
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var d strings.Builder
	for _, l := range la {
		if !slices.Contains(lb, l) {
			d.WriteString("< " + l + "\n")
		}
	}
	for _, l := range lb {
		if !slices.Contains(la, l) {
			d.WriteString("> " + l + "\n")
		}
	}
	if d.Len() == 0 {
		d.WriteString("(the same lines in another order)\n")
	}
	return d.String()
}

// diffDirs compares the files of folders a and b: it says which are on one
// side only, and for each that differs its first differing line, or ""
// where all are equal; n is how many files a holds.
func diffDirs(a, b string) (diff string, n int, err error) {
	names := func(dir string) ([]string, error) {
		es, err := os.ReadDir(dir)
		var s []string
		for _, e := range es {
			s = append(s, e.Name())
		}
		return s, err
	}
	na, err := names(a)
	if err != nil {
		return "", 0, err
	}
	nb, err := names(b)
	if err != nil {
		return "", 0, err
	}
	var d strings.Builder
	for _, f := range nb {
		if !slices.Contains(na, f) {
			fmt.Fprintf(&d, "only in the fresh build: %s\n", f)
		}
	}
	for _, f := range na {
		if !slices.Contains(nb, f) {
			fmt.Fprintf(&d, "only in kernels/ptx: %s\n", f)
			continue
		}
		ta, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			return "", 0, err
		}
		tb, err := os.ReadFile(filepath.Join(b, f))
		if err != nil {
			return "", 0, err
		}
		if !bytes.Equal(ta, tb) {
			d.WriteString(firstDifference(f, string(ta), string(tb)))
		}
	}
	return d.String(), len(na), nil
}

// firstDifference says where texts a and b of file first differ.
func firstDifference(file, a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(la) || i >= len(lb):
			return fmt.Sprintf("%s: %d lines, fresh %d\n", file, len(la), len(lb))
		case la[i] != lb[i]:
			return fmt.Sprintf("%s: line %d\n< %s\n> %s\n", file, i+1, la[i], lb[i])
		}
	}
}
