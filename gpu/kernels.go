package gpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The kernel registry, kernelTable: which kernel counts which algorithm,
// in which variant, how it is launched, and the adapter that launches it.
// It and the launch glue are generated into kernels_gen.go by the line
// below, from the kernels' declarations and kernelgen's registry table.
//
// To add a kernel over an existing task layout: declare it in a
// kernels/*.cu as extern "C" __global__ void NQ_KERNEL(nq_name)(...), its
// parameters named as fields of groupArgs; run make ptx (nvcc); add its
// line to gpu/internal/kernelgen/registry.go; run go generate ./gpu; test
// its search in kernels/host. The tests fail until all is done: kernels'
// TestCommittedPTX without make ptx, kernelgen's without go generate, and
// TestRegistryMatchesPTX unless each kernel and twin is in the PTX with
// the adapter passing each parameter. A new layout also needs its fields
// in groupArgs, its packing in slot.launch and its enumeration in produce.

//go:generate go run ./internal/kernelgen

// The kernel variants of the table.
const (
	// Static is one task per thread, over a grid of one thread per task
	// (a grid-stride loop).
	Static Variant = "static"
	// Dynamic is persistent threads, as many as stay resident, that take
	// tasks from a device counter until none is left.
	Dynamic Variant = "dynamic"
	// SharedStacks is Dynamic with the search stacks in dynamic shared
	// memory.
	SharedStacks Variant = "smem"
)

// taskLayout is how a kernel's tasks lie in device memory, and so which
// fields of groupArgs its wrapper takes.
type taskLayout int

const (
	// boardLayout is tasks.Boards: rows (depth words per task), left,
	// down, right; n, depth, count, out (and next for a fetching kernel).
	boardLayout taskLayout = iota + 1
	// frameLayout is tasks.Frames: rows (n words per task), weight,
	// sym180; n, count, out.
	frameLayout
	// eightfoldLayout is tasks.Eightfold: left and right (64-bit words),
	// down, meta; count, out (and next for a fetching kernel).
	// Its kernels add Total alone, to out[2] (the orbit-8 slot).
	eightfoldLayout
)

// kernelSpec is one line of the registry.
type kernelSpec struct {
	algo    nq.Algo
	variant Variant
	// name is the kernel's PTX entry; name + "_nodes" is its twin that
	// also counts search nodes into out[3] (Tuning.Nodes).
	name   string
	layout taskLayout
	// fetch: the kernel takes its tasks from the 32-bit device counter
	// next (zeroed before the launch), and its grid is at most as many
	// blocks as the GPU keeps resident.
	fetch bool
	// sharedBytes, if not nil, is the dynamic shared memory a block of
	// threads threads needs at n and depth.
	sharedBytes func(n, depth, threads int) int
	// launch is the kernel's adapter (kernels_gen.go).
	launch func(l launcher, f kernelFunc, shape launchShape, a *groupArgs)
	// preferred marks the kernel that runs when no variant is asked for;
	// without one, the algorithm's first (Static) line runs.
	preferred bool
}

// efLevels is the most levels of the eightfold tasks this package sends
// to a GPU for n and split (tasks.SplitLevelsFor: produce splits the
// longest, efSplit).
func efLevels(n, split int) int { return tasks.SplitLevelsFor(n, split) }

// efFrames is the stack frames per thread of the eightfold kernels for
// tasks of n with split rows filled below the border: NQ_EF_FRAMES of
// efLevels, one fewer than the levels, at least 1 (kernels/eightfold.cu).
func efFrames(n, split int) int { return max(1, efLevels(n, split)-1) }

// efStackBytes is the dynamic shared memory of the eightfold kernels: 16
// bytes per frame and thread.
func efStackBytes(n, split, threads int) int { return 16 * efFrames(n, split) * threads }

// symStackBytes is the shared memory of nq_symmetry_boards_smem: the
// stacks of a block's threads, SymWords 32-bit words each.
func symStackBytes(n, depth, threads int) int { return 4 * SymWords(n, depth) * threads }

// variantOf is the kernel variant t asks for: Variant when set, else
// SharedStacks or Dynamic from the shortcuts, else "" for the algorithm's
// preferred kernel.
func variantOf(t Tuning) (v Variant, explicit bool) {
	switch {
	case t.Variant != "":
		return t.Variant, true
	case t.SharedStack:
		return SharedStacks, false
	case t.Dynamic:
		return Dynamic, false
	}
	return "", false
}

// lookupKernel returns the kernel of algo in variant v ("" for its
// preferred kernel). When the algorithm has no such variant, an explicit
// request (Variant) is an error, and the Dynamic and SharedStack shortcuts
// fall back to the algorithm's preferred kernel, or its Static one (the
// carry chain has only that one).
func lookupKernel(algo nq.Algo, v Variant, explicit bool) (*kernelSpec, error) {
	var first *kernelSpec
	for i := range kernelTable {
		if k := &kernelTable[i]; k.algo == algo && k.preferred && (v == "" || !explicit) {
			if v == "" || !slices.Contains(Variants(algo), v) {
				return k, nil
			}
		}
	}
	if v == "" {
		v = Static
	}
	var have []string
	for i := range kernelTable {
		k := &kernelTable[i]
		if k.algo != algo {
			continue
		}
		if k.variant == v {
			return k, nil
		}
		if first == nil {
			first = k
		}
		have = append(have, string(k.variant))
	}
	switch {
	case first == nil:
		return nil, fmt.Errorf("algorithm %s has no GPU kernel (GPU kernels: %s)", algo, algoList())
	case explicit:
		return nil, fmt.Errorf("algorithm %s has no %s GPU kernel (variants: %s)", algo, v, strings.Join(have, ", "))
	}
	return first, nil
}

// Variants lists the kernel variants of algo in table order (Static
// first); none when it has no GPU kernel.
func Variants(algo nq.Algo) []Variant {
	var vs []Variant
	for _, k := range kernelTable {
		if k.algo == algo {
			vs = append(vs, k.variant)
		}
	}
	return vs
}

// Algos lists the algorithms that have a GPU kernel, in table order.
func Algos() []nq.Algo {
	var as []nq.Algo
	for _, k := range kernelTable {
		if !slices.Contains(as, k.algo) {
			as = append(as, k.algo)
		}
	}
	return as
}

// algoList is Algos as text.
func algoList() string {
	var s []string
	for _, a := range Algos() {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

// Supports reports whether algo has a GPU kernel.
func Supports(algo nq.Algo) bool {
	for _, k := range kernelTable {
		if k.algo == algo {
			return true
		}
	}
	return false
}

// taskBytes is the bytes of one task of spec in a slot.
func taskBytes(layout taskLayout, spec nq.Spec) int {
	switch layout {
	case frameLayout:
		return 4*spec.N + 2
	case eightfoldLayout:
		return 8 + 8 + 4 + 4 // left, right, down, meta
	}
	return 4 * (spec.Depth + 3)
}
