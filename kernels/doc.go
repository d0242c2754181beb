// Package kernels holds the CUDA kernels of nqueens-gpu and the C search
// they share with the host.
//
// Its Go code embeds files and reads them: Sources holds the sources
// below, Decls the kernels they declare, Entries the kernels of a PTX
// text, and in builds with the cuda tag PTX returns the compiled kernels
// (ptx_cuda.go).
//
//   - nqsearch.h is the per-task search in C that both nvcc and a host C
//     compiler build: nq_symmetry_board completes one symmetry-elimination
//     partial board (tasks.Boards of kind Symmetry), nq_carry_frame one
//     carry-chain frame (tasks.Frames).
//   - nqtotal.h is the eightfold search (Total only) in the same C: a task
//     is a canonical border pre-placement (tasks.Eightfold), searched by a
//     start/step API (nq_ef_start, nq_ef_step: one predicated iteration
//     per node, its stack addressed by strides so that it can live in
//     shared memory) or to the end by nq_eightfold_task.
//   - boards.cu (kernels nq_symmetry_boards and nq_symmetry_boards_dyn),
//     frames.cu (kernel nq_carry_frames) and eightfold.cu (kernels
//     nq_eightfold, dynamic, and nq_eightfold_static; stacks in shared
//     memory, one output counter) run those searches over a batch,
//     one task per thread at a time (the dynamic kernels: threads take
//     tasks from a shared counter until none is left), and add 64-bit
//     counters to their output with one atomicAdd per block per counter
//     (nqreduce.cuh). Each file's header gives the kernel's exact
//     parameters, memory layout and launch shape.
//   - host (package kernels/host) runs nqsearch.h and nqtotal.h on the CPU
//     through cgo, so that tests check the very C code the GPU runs
//     against the Go solvers without a GPU.
//
// The .cu files are compiled to PTX by `make ptx` (go generate, which
// runs internal/ptxgen: nvcc -ptx -arch=compute_70) into ptx/: NAME.ptx,
// and NAME_nodes.ptx built with NQ_NODES=1, whose kernels also count
// search nodes (NQ_KERNEL in nqreduce.cuh names them name_nodes). ptx/ is committed, with
// ptx/BUILD.txt recording nvcc's version, the flags, each module's command
// and each source's SHA-256, so that the cuda build needs no nvcc; the
// tests of this package fail when a source no longer has the recorded
// hash, and `make ptx-check` compares the PTX with a fresh nvcc build. The
// Go build itself ignores the .cu files.
package kernels
