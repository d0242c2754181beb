// Command ptxgen makes and checks the committed PTX of the CUDA kernels,
// kernels/ptx, with nvcc. make ptx runs it through go generate:
//
//	go generate ./kernels         ptxgen build: kernels/ptx
//	go run ./kernels/internal/ptxgen check
//
// build compiles every kernels/NAME.cu into DIR/NAME.ptx and, with
// -DNQ_NODES=1, DIR/NAME_nodes.ptx (the node-counting twins), writes
// DIR/BUILD.txt and removes any .ptx of DIR without its .cu. DIR is
// $PTX_DIR, else kernels/ptx, relative to the repository. BUILD.txt records
// nvcc's version, the flags, each module's command and the SHA-256 of every
// kernels/*.cu, *.h and *.cuh, and names no folder of this machine, so that
// the same sources and nvcc make the same bytes in every checkout.
//
// check builds into a temporary folder and compares every file with
// kernels/ptx, byte by byte; it fails on any difference. Only the nvcc that
// made kernels/ptx makes its bytes: with another (a host with CUDA 12.x or
// 13.x where the PTX was made with 11.8) check proves that the kernels
// compile with it, checks the source hashes against BUILD.txt, and says
// that it skipped the byte comparison (exit 0).
//
// The environment chooses nvcc and its flags: $NVCC (else nvcc),
// $PTX_ARCH (else compute_70, or compute_75 for nvcc 13 or newer, which
// refuses every target below 7.5; see the Makefile) and $NVCCFLAGS (else
// -O3 -std=c++14).
package main
