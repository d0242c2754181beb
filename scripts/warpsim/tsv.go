//go:build cgo

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// KernelInfo is one kernel of the kernel-report TSV
// (scripts/kernelreport): resources, step-loop paths and fixed costs.
type KernelInfo struct {
	Name, Source                         string
	Regs, Stack, SpillStores, SpillLoads int
	Smem                                 int // static shared memory, bytes
	Mode                                 string
	LoopInsts, Prologue, Next, Epilogue  int
	Reconverge                           bool
	// Steps is the steps one iteration of the step loop takes (a loop
	// unrolled by hand; its paths cost whole iterations): 1 unless the
	// TSV's 15th kernel field says otherwise.
	Steps     int
	Blocks    map[int]BlockInfo
	Paths     map[string]PathInfo
	pathOrder []string
}

// BlockInfo is one basic block of a path: its instructions, and those of
// them that run on the ALU pipe and on the FMA pipe (IMAD).
type BlockInfo struct {
	Insts, ALU, IMAD int
}

// PathInfo is one path class of a kernel's step loop.
type PathInfo struct {
	Insts  int
	Mem    string
	Blocks []int
	Absent bool
}

// readKernelsFile reads the kernel-report TSV at path (ReadKernels).
func readKernelsFile(path string) (map[string]*KernelInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run scripts/kernel-report.sh first)", err)
	}
	defer f.Close()
	return ReadKernels(f)
}

// ReadKernels parses the kernel-report TSV.
func ReadKernels(r io.Reader) (map[string]*KernelInfo, error) {
	out := map[string]*KernelInfo{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Split(t, "\t")
		bad := func(what string) error { return fmt.Errorf("kernel TSV line %d: %s: %q", line, what, t) }
		atoi := func(s string) (int, error) { return strconv.Atoi(s) }
		switch f[0] {
		case "kernel":
			if len(f) != 14 && len(f) != 15 {
				return nil, bad("want 14 or 15 fields")
			}
			k := &KernelInfo{Name: f[1], Source: f[2], Mode: f[8], Steps: 1, Blocks: map[int]BlockInfo{}, Paths: map[string]PathInfo{}}
			if len(f) == 15 {
				v, err := atoi(f[14])
				if err != nil || v < 1 {
					return nil, bad("steps")
				}
				k.Steps = v
			}
			nums := []*int{&k.Regs, &k.Stack, &k.SpillStores, &k.SpillLoads, &k.Smem}
			for i, p := range nums {
				v, err := atoi(f[3+i])
				if err != nil {
					return nil, bad("number")
				}
				*p = v
			}
			nums = []*int{&k.LoopInsts, &k.Prologue, &k.Next, &k.Epilogue}
			for i, p := range nums {
				v, err := atoi(f[9+i])
				if err != nil {
					return nil, bad("number")
				}
				*p = v
			}
			k.Reconverge = f[13] == "1"
			out[k.Name] = k
		case "block":
			if len(f) != 6 || out[f[1]] == nil {
				return nil, bad("block of an unknown kernel or wrong fields")
			}
			var v [4]int
			for i := range v {
				n, err := atoi(f[2+i])
				if err != nil {
					return nil, bad("number")
				}
				v[i] = n
			}
			out[f[1]].Blocks[v[0]] = BlockInfo{Insts: v[1], ALU: v[2], IMAD: v[3]}
		case "path":
			if len(f) != 6 || out[f[1]] == nil {
				return nil, bad("path of an unknown kernel or wrong fields")
			}
			p := PathInfo{Mem: f[4]}
			if f[3] == "absent" {
				p.Absent = true
			} else {
				n, err := atoi(f[3])
				if err != nil {
					return nil, bad("number")
				}
				p.Insts = n
			}
			if f[5] != "-" {
				for _, s := range strings.Split(f[5], ",") {
					b, err := atoi(s)
					if err != nil {
						return nil, bad("block id")
					}
					p.Blocks = append(p.Blocks, b)
				}
			}
			k := out[f[1]]
			k.Paths[f[2]] = p
			k.pathOrder = append(k.pathOrder, f[2])
		default:
			return nil, bad("unknown row kind")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kernel TSV: %w", err)
	}
	return out, nil
}
