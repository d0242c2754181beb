package main

// Kernel is what the registry says of a kernel beyond its declaration.
// Each field but Name and Preferred is Go source that kernelgen writes
// into the kernel's line of gpu's kernelTable as it is.
type Kernel struct {
	Name    string // the PTX entry: NQ_KERNEL(Name) in a kernels/*.cu
	Algo    string // the nq.Algo it counts, e.g. "nq.Symmetry"
	Variant string // its gpu Variant: "Static", "Dynamic" or "SharedStacks"
	Layout  string // its tasks' gpu taskLayout, e.g. "boardLayout"
	// Shared names the gpu function of its dynamic shared memory per
	// block (func(n, depth, threads int) int); "" for none.
	Shared string
	// Preferred marks the kernel of its algorithm that runs when no
	// variant is asked for (else the algorithm's Static one).
	Preferred bool
}

// registry is the policy of gpu's kernel registry, in gpu's kernelTable
// order: an algorithm's first kernel is its Static one. kernelgen joins it
// by name with the declarations (kernels.Decls), which give each kernel's
// parameters and, with a parameter named next, its fetching of tasks.
//
// It is a Go table, not annotations beside the declarations in the .cu
// files, because it speaks of Go (nq's algorithms, gpu's layouts and
// functions), and because editing it must not change the kernel sources,
// whose hashes kernels/ptx/BUILD.txt records: a change here needs go
// generate, never nvcc.
var registry = []Kernel{
	{Name: "nq_symmetry_boards", Algo: "nq.Symmetry", Variant: "Static", Layout: "boardLayout"},
	{Name: "nq_symmetry_boards_dyn", Algo: "nq.Symmetry", Variant: "Dynamic", Layout: "boardLayout"},
	{Name: "nq_symmetry_boards_smem", Algo: "nq.Symmetry", Variant: "SharedStacks", Layout: "boardLayout", Shared: "symStackBytes"},
	{Name: "nq_carry_frames", Algo: "nq.CarryChain", Variant: "Static", Layout: "frameLayout"},
	{Name: "nq_eightfold_static", Algo: "nq.Eightfold", Variant: "Static", Layout: "eightfoldLayout", Shared: "efStackBytes"},
	{Name: "nq_eightfold", Algo: "nq.Eightfold", Variant: "Dynamic", Layout: "eightfoldLayout", Shared: "efStackBytes", Preferred: true},
}
