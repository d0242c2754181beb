# nqueens-gpu build. One program, bin/nqueens-gpu, in two variants: with
# CUDA (GPUs through the NVIDIA driver, found at run time, and the CPU) or
# CPU-only.
#
#   make, make build  bin/nqueens-gpu: the CUDA variant where cgo finds cuda.h
#                   (CUDA 11.8, 12.x or 13.x) and a C compiler and the CUDA
#                   packages compile against it, else the CPU-only one; says
#                   which in one line, and why not CUDA. CUDA=1 insists on
#                   CUDA, CUDA=0 builds the CPU one.
#   make gpu        the same as make build CUDA=1
#   make test       go vet, gofmt check and go test of the CPU-only build,
#                   a line before each step and the time it took
#   make test-cuda  go vet and go test of the CUDA build (passes without a GPU;
#                   the command's tests on a stand-in driver, internal/fakecuda)
#   make cuda-deps  install nvcc 11.8 and cuda.h (Debian; scripts/install-cuda-toolkit.sh)
#   make ptx        kernels/NAME.cu -> kernels/ptx/NAME.ptx and NAME_nodes.ptx,
#                   and kernels/ptx/BUILD.txt (needs nvcc; commit the result;
#                   PTX_DIR=DIR writes DIR instead)
#   make ptx-check  build the PTX again into a temporary folder and fail when
#                   it differs from the committed kernels/ptx (needs nvcc; with
#                   another nvcc than BUILD.txt records, only proves that the
#                   kernels compile and says that the comparison was skipped)
#   make bundle     bundle/: what a GPU host without Go needs to run the GPU checks
#                   and gpu-session.sh (with $(SHARED)/peers when present)
#   make bench-cpu  time the CPU path next to ../shared/bench/refcount.c (N=16,17)
#   make bench-json record a CPU bench JSON file into docs/bench/ (nqueens-gpu bench)
#   make bench-doc  regenerate docs/benchmarks.md and docs/bench/time.svg from docs/bench/*.json
#   make gpusim-check  the CUDA binary counting on GPGPU-Sim, a simulated GPU
#   make gpusim-speed  simulated cycles per SM, ours next to the ygch peer (N=11 12, SMS=4)
#   make gpusim-latency  the simulator's latencies and pipe rates that the
#                   latency model takes (scripts/warpsim latency; docs/performance.md)
#                   (no GPU needed; builds the simulator first, about 5 min
#                   once; scripts/gpgpu-sim/check.sh, docs/gpu.md)
#   make clean
#
# The PTX of the kernels is committed (kernels/ptx/), as mumax3 does, so
# the CUDA variant builds with plain Go wherever cuda.h is:
#   go build -tags cuda ./cmd/nqueens-gpu
#   go install -tags cuda github.com/nqueens-gpu/nqueens-gpu/cmd/nqueens-gpu@latest
# nvcc is needed only to change a kernel: edit kernels/*.cu, make ptx,
# commit kernels/ptx with the source. go test ./kernels fails when a
# source's hash differs from the one kernels/ptx/BUILD.txt records, and CI
# runs make ptx-check.
#
# The CUDA binary does not link libcuda: gpu/cudashim.c opens libcuda.so.1
# at run time, so the binary starts everywhere and falls back to the CPU
# where there is no NVIDIA driver. make build checks that with readelf.
#
# Toolkit versions (CUDA 11.8, 12.x, 13.x; docs/gpu.md): every cgo compile
# gets -I gpu/cudacompat first (CGO_CFLAGS below), whose cuda.h wraps the
# toolkit's and pins the driver functions the code calls to CUDA 11.8's
# symbols and prototypes; CUDA 13.x's header would otherwise map cuCtxCreate
# to a four-argument cuCtxCreate_v4 that the binding github.com/mumax/3/cuda/cu
# does not compile against. A plain go build -tags cuda needs the same
# CGO_CFLAGS on a 13.x toolkit.

GO       ?= go
NVCC     ?= nvcc
READELF  ?= readelf
# The shared folder beside the checkout (peer counters, refcount.c).
SHARED   ?= ../shared
GOFLAGS_BUILD ?= -trimpath
# CUDA: empty (build the CUDA variant where possible), 1 or 0.
CUDA     ?=

# The commit that -version, checkpoints, shard results, bench, check and
# the JSON records report (internal/buildinfo). Go stamps it only when VCS
# stamping is on and git works here, so the Makefile passes it too;
# outside a git checkout both stay empty and the binary says "unknown".
GIT_COMMIT   := $(shell git rev-parse HEAD 2>/dev/null)
GIT_MODIFIED := $(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true)
BUILDINFO    := github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo
LDFLAGS_BUILD ?= -X $(BUILDINFO).commit=$(GIT_COMMIT) -X $(BUILDINFO).modified=$(GIT_MODIFIED)

# The pinned driver declarations (gpu/cudacompat/cuda.h) for every cgo
# compile of every go command below, the binding's package included: first
# in CGO_CFLAGS, before the flags go would use anyway (the environment's
# CGO_CFLAGS, else go env's, else -O2 -g), so that #include <cuda.h> finds
# the wrapper and the wrapper's #include_next the toolkit's header (also one
# named by -I in those flags; make CGO_CFLAGS=... works too). A sub-make
# inherits the result unchanged.
CUDA_COMPAT := $(CURDIR)/gpu/cudacompat
CGO_CFLAGS_GO := $(if $(filter command line,$(origin CGO_CFLAGS)),$(CGO_CFLAGS),$(shell $(GO) env CGO_CFLAGS 2>/dev/null))
ifeq ($(filter -I$(CUDA_COMPAT),$(CGO_CFLAGS_GO)),)
override CGO_CFLAGS := -I$(CUDA_COMPAT) $(CGO_CFLAGS_GO)
endif
export CGO_CFLAGS

# PTX target (PTX_ARCH; empty: ptxgen chooses). The kernels ship as PTX
# for one baseline virtual architecture, and the driver JIT-compiles it for
# the GPU it runs on (once per context; the driver caches the result in
# ~/.nv/ComputeCache). nvcc 11.8 knows compute_35 to compute_90.
#
# compute_70 (Volta) is the baseline: every GPU from V100 on (T4 sm_75, A100
# sm_80, A10/L4/L40 sm_86/89, H100/H200 sm_90) runs it, and it is the first
# architecture with independent thread scheduling, so the *_sync warp
# intrinsics behave the same everywhere. The JIT generates native code for
# the actual GPU (sm_90 on Hopper) with the driver's own, newer, ptxas, so
# the baseline costs no code quality for the integer/bit-twiddling searches
# here. What it does cost: intrinsics newer than sm_70 are unavailable in
# the source (e.g. __reduce_add_sync and redux.sync from sm_80, Hopper's
# thread-block clusters and DPX from sm_90), and the first run of a process
# pays the JIT (tens to hundreds of ms for kernels of this size; cached
# afterwards). Use PTX_ARCH=compute_80 or compute_90 to trade away older GPUs
# for those. The driver must know PTX ISA 7.8 (nvcc 11.8's): R520 or newer,
# which every Hopper driver is; an older driver fails at module load with
# CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
#
# nvcc 13 refuses every target below 7.5 (CUDA 13.0 dropped offline
# compilation for Maxwell, Pascal and Volta), so with nvcc 13 or newer the
# default is compute_75 (Turing): its PTX runs on every GPU from T4 on,
# and what it drops is Volta, V100 (sm_70) and Jetson AGX Xavier (sm_72);
# nvcc 13's PTX also needs a driver that knows its PTX ISA (R580 or newer).
# The committed kernels/ptx stays nvcc 11.8's compute_70: the build embeds
# it and needs no nvcc, whatever toolkit is installed. ptxgen asks nvcc its
# version only in the targets that run nvcc. NVCCFLAGS empty: -O3 -std=c++14.
PTX_ARCH  ?=
NVCCFLAGS ?=
# make ptx writes here; another folder leaves the committed PTX alone.
PTX_DIR   ?= kernels/ptx
PTX_ENV    = NVCC='$(NVCC)' PTX_ARCH='$(PTX_ARCH)' NVCCFLAGS='$(NVCCFLAGS)' PTX_DIR='$(PTX_DIR)'

BIN      := bin/nqueens-gpu

.PHONY: all build gpu cpu test cuda-deps ptx ptx-check test-cuda bundle bench-cpu bench-json bench-doc gpusim-check gpusim-speed gpusim-latency clean FORCE

all: build

# build picks the variant with scripts/build-variant.sh (which compiles a
# probe against cuda.h with the CGO_CFLAGS above) and ends with one line
# saying which it built and, for CUDA, with which cuda.h. The readelf check of the CUDA variant guards
# the property the CPU fallback rests on: no NEEDED entry for libcuda (see
# gpu/cuda_shim.go).
build:
	@mkdir -p bin
	@v=$$(GO='$(GO)' GOFLAGS_BUILD='$(GOFLAGS_BUILD)' CUDA='$(CUDA)' sh scripts/build-variant.sh) || exit 1; \
	case $$v in cuda:*) \
		$(GO) build $(GOFLAGS_BUILD) -ldflags '$(LDFLAGS_BUILD)' -tags cuda -o $(BIN) ./cmd/nqueens-gpu || exit 1; \
		if command -v $(READELF) >/dev/null && $(READELF) -d $(BIN) | grep -i 'NEEDED.*libcuda'; then \
			echo "make: $(BIN) links libcuda: it would not start without the NVIDIA driver"; \
			rm -f $(BIN); exit 1; \
		fi; \
		echo "make: built $(BIN) with CUDA: GPUs through the NVIDIA driver at run time, else the CPU ($${v#cuda: }; kernels: committed PTX of nvcc $$(sed -n 's/^nvcc: release \([0-9.]*\).*/\1/p' kernels/ptx/BUILD.txt))"; \
		;; \
	*) \
		$(GO) build $(GOFLAGS_BUILD) -ldflags '$(LDFLAGS_BUILD)' -o $(BIN) ./cmd/nqueens-gpu || exit 1; \
		case $$v in \
		"cpu: no cuda.h"|"cpu: CUDA=0") echo "make: built $(BIN) for the CPU only ($${v#cpu: }); for the GPU variant install the CUDA toolkit (make cuda-deps: Debian's nvidia-cuda-toolkit) and run make again";; \
		*) echo "make: built $(BIN) for the CPU only ($${v#cpu: })";; \
		esac; \
	esac

gpu:
	@$(MAKE) --no-print-directory build CUDA=1

cpu:
	@$(MAKE) --no-print-directory build CUDA=0

# test says what it does before each step and how long each took: go vet
# prints nothing while it compiles (up to a minute with a cold cache), and
# go test one line per package as each passes.
test:
	@start=$$(date +%s); \
	echo "make test: 1/3 go vet ./... (compiles every package first: up to a minute)"; \
	$(GO) vet ./... || exit 1; \
	echo "make test: 2/3 gofmt check of every Go file"; \
	unformatted=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*' -not -path './bundle/*')); \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt needed on:"; echo "$$unformatted"; exit 1; \
	fi; \
	echo "make test: 3/3 go test ./... (one line per package as it passes; about 2 minutes on 2 cores)"; \
	t=$$(date +%s); \
	$(GO) test ./... || exit 1; \
	echo "make test: all passed; go test took $$(( $$(date +%s) - t )) s, make test $$(( $$(date +%s) - start )) s"

cuda-deps:
	bash scripts/install-cuda-toolkit.sh

# The PTX: go generate ./kernels runs kernels/internal/ptxgen, which
# compiles every kernels/NAME.cu into NAME.ptx and, with -DNQ_NODES=1,
# NAME_nodes.ptx (the -gpu-nodes twins), and writes BUILD.txt: nvcc's
# version, the flags, each module's command and the SHA-256 of every
# kernel source. The cuda build embeds the folder (kernels/ptx_cuda.go).
# ptx-check compares all of it, byte by byte, with a fresh build in a
# temporary folder, where the installed nvcc is the one BUILD.txt records;
# another nvcc makes other bytes, so with it ptx-check only builds the PTX
# (proving that the kernels compile with it), checks the source hashes and
# says that it skipped the comparison (exit 0).
ptx:
	@$(PTX_ENV) $(GO) generate -run ptxgen ./kernels

ptx-check:
	@$(PTX_ENV) $(GO) run ./kernels/internal/ptxgen check

test-cuda:
	$(GO) vet -tags cuda ./...
	$(GO) test -count=1 -tags cuda ./gpu/... ./kernels/...
	$(GO) test -count=1 -tags cuda -run 'FakeDriver|StandIn' ./cmd/nqueens-gpu

# bundle/ runs on a GPU host (glibc 2.34 or newer, NVIDIA driver R520 or
# newer) without Go: ./bundle/run-gpu-checks.sh [LOGDIR], e.g.
# STEPS=tests,counts bundle/run-gpu-checks.sh $OUT/logs in one device call
# (docs/gpu.md, "Checks on a GPU host"); its gpuchecks (scripts/gpuchecks,
# static: no cgo) judges what the scripts' commands leave.
# scripts/test-bundle.sh (in CI) runs it here without a GPU.
bundle: gpu
	rm -rf bundle
	mkdir -p bundle
	cp $(BIN) bundle/
	$(GO) test -c -tags cuda -o bundle/gpu.test ./gpu
	@for p in $$($(GO) list -tags cuda -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./kernels/...); do \
		echo "$(GO) test -c -tags cuda -o bundle/$${p##*/}.test $$p"; \
		$(GO) test -c -tags cuda -o "bundle/$${p##*/}.test" "$$p" || exit 1; \
	done
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_BUILD) -o bundle/gpuchecks ./scripts/gpuchecks
	cp scripts/run-gpu-checks.sh scripts/gpu-session.sh bundle/
	cp kernels/ptx/BUILD.txt bundle/ptx-build.txt
	@# The peer counters and their timing script, for gpu-session.sh: the
	@# device tool sends the checkout, not ../shared beside it.
	@if [ -x $(SHARED)/bench/peer-gpu.sh ] && [ -d $(SHARED)/peers ]; then \
		mkdir -p bundle/shared && cp -r $(SHARED)/bench $(SHARED)/peers bundle/shared/ && chmod -R u+w bundle/shared && \
		echo "bundle/shared: $(SHARED)/bench and $(SHARED)/peers"; \
	else echo "bundle: no $(SHARED)/bench/peer-gpu.sh; gpu-session.sh will skip the peers"; fi
	@ls -l bundle

# The CPU path next to the classic C counter, in one run: alternating runs,
# medians, peak memory, the ratio ours/refcount, and a check that both
# programs print the same counts.
REFCOUNT_SRC ?= $(SHARED)/bench/refcount.c
BENCH_N      ?= 16,17
BENCH_RUNS   ?= 3
#
# refcount is built with -march=native, so ours is built for this machine
# too: GOAMD64=v3 (BMI1/2 for the bit tricks of the inner loop) when the
# CPU runs such a binary, else the portable default. `make build` stays
# portable.
bench-cpu:
	@mkdir -p bin
	$(CC) -O3 -march=native -o bin/refcount $(REFCOUNT_SRC)
	GOAMD64=v3 $(GO) build $(GOFLAGS_BUILD) -o bin/nqueens-gpu-native ./cmd/nqueens-gpu
	@bin/nqueens-gpu-native -h >/dev/null 2>&1 || { echo "this CPU lacks x86-64-v3: portable build"; \
		$(GO) build $(GOFLAGS_BUILD) -o bin/nqueens-gpu-native ./cmd/nqueens-gpu; }
	$(GO) run ./scripts/cpubench -ours bin/nqueens-gpu-native -refcount bin/refcount -n $(BENCH_N) -runs $(BENCH_RUNS)

# Bench JSON files (nqueens-gpu bench -o) in docs/bench/ are the source of
# the tables in docs/benchmarks.md: record one with bench-json here, or bring
# them back from a GPU host with scripts/cloud-bench.sh, then run bench-doc.
BENCH_JSON_N    ?= 12-16
BENCH_JSON_RUNS ?= 5
BENCH_JSON_OUT  ?= docs/bench/cpu-$(shell date -u +%Y%m%d).json
bench-json: build
	@mkdir -p $(dir $(BENCH_JSON_OUT))
	./$(BIN) bench -n $(BENCH_JSON_N) -runs $(BENCH_JSON_RUNS) -o $(BENCH_JSON_OUT)

bench-doc:
	@mkdir -p docs/bench
	$(GO) run ./scripts/benchdoc -doc docs/benchmarks.md -plot docs/bench/time.svg $(sort $(wildcard docs/bench/*.json))

# bin/nqueens-gpu on GPGPU-Sim: exact counts of every kernel through the
# program's own driver calls (gpu/cudashim.c opens the simulator's
# libcudart.so, which scripts/gpgpu-sim/driver-api.patch gives the driver
# API). GPUSIM_VARIANTS=0 runs only the default kernel and check.
gpusim-check: gpu
	bash scripts/gpgpu-sim/check.sh $(BIN)

# Simulated speed per SM, side by side (a simulation, not a measurement):
# the default GPU count next to the ygch peer at its pre-placed rows, on
# GPGPU-Sim's V100 config cut to SMS SMs: cycles, instructions, IPC,
# occupancy, dependency waits, bank stalls, ours/peer.
N   ?= 11 12
SMS ?= 4
gpusim-speed: gpu
	SMS=$(SMS) bash scripts/gpgpu-sim/speed.sh $(N)

# The latencies and rates of GPGPU-Sim's QV100 config (scripts/gpgpu-sim/
# latency.cu, a SIMULATION) that `go run ./scripts/warpsim latency` takes.
gpusim-latency:
	SMS=$(SMS) bash scripts/gpgpu-sim/latency.sh

clean:
	rm -rf bin bundle

FORCE:

# Speed model without a GPU (docs/performance.md, "Speed model (no GPU)"):
# kernel-report compiles every kernel for sm_90 and prints registers,
# spills, local and shared memory and the SASS of each step loop by path
# (nvcc and nvdisasm, no GPU); it also writes docs/model/kernels.tsv, which
# scripts/model.sh feeds to the warp simulator.
.PHONY: kernel-report
kernel-report:
	bash scripts/kernel-report.sh
