// Command kernelreport compiles CUDA kernels for one GPU architecture and
// reports what the speed model needs from the compiler: per kernel entry
// the registers, spills, stack frame (local memory) and static shared
// memory (ptxas -v), and, for the kernels it knows (Specs), the SASS of
// the step loop: the instructions of one iteration of each kind (place a
// queen and push, pop, ...) and the memory operations among them.
//
// Usage (scripts/kernel-report.sh runs it over kernels/*.cu and the peer
// model):
//
//	go run ./scripts/kernelreport [-arch sm_90] [-nodes] [-tsv FILE] FILE.cu...
//
// It runs `nvcc -cubin -arch=ARCH -O3 -lineinfo -Xptxas -v` and
// `nvdisasm -g -c`, builds the control-flow graph of each kernel, finds
// the step loop as the smallest natural loop that holds the spec's
// marker lines (source line info), and takes for each path kind the
// cheapest path through one iteration that holds its marker lines (the
// common case: rare branches such as the symmetry edge rule cost extra).
// A loop nested in the step loop (the rotation checks of a solution)
// counts as one pass.
//
// The TSV (-tsv) is what warpsim reads: one "kernel" row per entry, one
// "block" row per basic block of a path, one "path" row per path kind.
package main
