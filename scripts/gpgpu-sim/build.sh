#!/usr/bin/env bash
# Builds GPGPU-Sim (a cycle-level GPU simulator that runs PTX on the CPU)
# with the driver API that bin/nqueens-gpu calls, so that the program itself
# counts on a simulated GPU (make gpusim-check; docs/gpu.md, "On a simulated
# GPU").
#
#   scripts/gpgpu-sim/build.sh [DIR]     DIR: default $GPGPUSIM_CACHE, else
#                                        ~/.cache/nqueens-gpgpu-sim
#   . DIR/env.sh                         NQUEENS_LIBCUDA and the rest
#
# What it takes, from the shared tools folder (GPGPUSIM_TOOLS, default
# ../shared/tools/gpgpu-sim next to the repository):
#   gpgpu-sim-dev-6b244a5d.tar.xz  the simulator's source (BSD licence)
#   gpgpu-sim.patch                fixes for this toolchain (GCC 12, bison 3.8)
#   ptx-shf-rewrite.py             rewrites PTX instructions the parser lacks
#                                  (and ours, ptx-imm64-rewrite.py, after it:
#                                  64-bit immediates)
# and from here: driver-api.patch (ours: the driver API, see its new file
# libcuda/nqueens_driver_api.cc).
#
# The first build takes 2.5 minutes on 2 idle cores. After that the build
# is incremental: the same tarball and shared patch keep DIR/src, a changed
# driver-api.patch is swapped in (the old one reversed) and make rebuilds
# what it touches; nothing changed: make has nothing to do.
#
# GPGPUSIM_SEED=DIR2 starts a first build from DIR2, a finished build of the
# same tarball and shared patch by ../shared/tools/gpgpu-sim/build.sh
# (~/.cache/gpgpu-sim), instead of from scratch: it copies DIR2/src and
# compiles only what driver-api.patch changes.
#
# Needs nvcc and ptxas (Debian's nvidia-cuda-toolkit: make cuda-deps),
# python3, and bison, flex, makedepend, zlib (installed with apt when
# missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools=${GPGPUSIM_TOOLS:-$repo/../shared/tools/gpgpu-sim}
dir=${1:-${GPGPUSIM_CACHE:-$HOME/.cache/nqueens-gpgpu-sim}}

log() { printf 'gpgpu-sim/build.sh: %s\n' "$*" >&2; }

tarball=$tools/gpgpu-sim-dev-6b244a5d.tar.xz
missing=""
for f in "$tarball" "$tools/gpgpu-sim.patch" "$tools/ptx-shf-rewrite.py"; do
	[ -f "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	log "MISSING:$missing"
	log "the simulator's source, its toolchain patch and the PTX rewrite come from the shared tools folder; set GPGPUSIM_TOOLS to where they are"
	exit 2
fi
command -v nvcc >/dev/null && command -v ptxas >/dev/null ||
	{ log "nvcc and ptxas not found: install the CUDA toolkit first (make cuda-deps)"; exit 1; }
command -v python3 >/dev/null || { log "python3 not found (the PTX rewrite is Python)"; exit 1; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$dir/src
ours=$here/driver-api.patch
cp "$tools/ptx-shf-rewrite.py" "$dir/ptx-shf-rewrite.py"
# Ours after the shared one: 64-bit immediates, whose high words the
# simulator's parser drops (ptx-imm64-rewrite.py says how it was found).
cp "$here/ptx-imm64-rewrite.py" "$dir/ptx-imm64-rewrite.py"
cat >"$dir/ptx-rewrite.sh" <<EOS
#!/bin/sh
# The PTX rewrites of a module before GPGPU-Sim parses it (scripts/gpgpu-sim/build.sh).
python3 '$dir/ptx-shf-rewrite.py' "\$@" && python3 '$dir/ptx-imm64-rewrite.py' "\$@"
EOS
chmod +x "$dir/ptx-rewrite.sh"

need=""
for p in bison flex makedepend; do command -v $p >/dev/null || need=1; done
[ -f /usr/include/zlib.h ] || need=1
if [ -n "$need" ]; then
	log "installing bison, flex, makedepend, zlib (apt)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends bison flex xutils-dev zlib1g-dev g++ make >/dev/null
fi

# A CUDA root of links: GPGPU-Sim wants $CUDA_INSTALL_PATH/{bin,include,lib64};
# the module loader runs its bin/ptxas for the kernels' registers.
cuda=$dir/cuda
mkdir -p "$cuda/bin" "$cuda/lib64"
ln -sfn /usr/include "$cuda/include"
for t in nvcc ptxas cuobjdump; do
	if command -v $t >/dev/null; then ln -sf "$(command -v $t)" "$cuda/bin/$t"; fi
done
for f in /usr/lib/x86_64-linux-gnu/libcudart.so*; do if [ -e "$f" ]; then ln -sf "$f" "$cuda/lib64/"; fi; done

# The base: the tarball with the shared patch, committed in DIR/src's git.
base=$( (sha256sum "$tarball" "$tools/gpgpu-sim.patch" | cut -d' ' -f1) | tr '\n' ' ')
if [ ! -f "$dir/base.stamp" ] || [ "$(cat "$dir/base.stamp")" != "$base" ] || [ ! -d "$src/.git" ]; then
	rm -rf "$src" "$dir/base.stamp" "$dir/applied.patch"
	seed=${GPGPUSIM_SEED:-}
	if [ -n "$seed" ] && [ -f "$seed/src/lib/gcc-/cuda-11080/release/libcudart.so" ] && [ -d "$seed/src/.git" ] &&
		git -C "$seed/src" diff --quiet HEAD; then
		log "seeding from the finished build in $seed"
		cp -a "$seed/src" "$src"
		# makedepend wrote absolute paths: point them here.
		find "$src/build" -name 'Makefile.makedepend*' -exec sed -i "s#$seed/src#$src#g" {} +
	else
		[ -n "$seed" ] && log "GPGPUSIM_SEED=$seed is not a finished, unmodified build: building from scratch"
		log "unpacking $(basename "$tarball") and applying gpgpu-sim.patch"
		mkdir -p "$src"
		tar -xJf "$tarball" -C "$src"
		(cd "$src" && patch -p1 -s <"$tools/gpgpu-sim.patch")
		# setup_environment reads the version from git: give it a repository.
		(cd "$src" && git init -q && git add -A >/dev/null &&
			git -c user.email=build@localhost -c user.name=build commit -qm "gpgpu-sim dev 6b244a5d + gpgpu-sim.patch")
	fi
	echo "$base" >"$dir/base.stamp"
fi

# Our patch: reverse the one applied before, if it differs, and apply it.
if ! cmp -s "$ours" "$dir/applied.patch" 2>/dev/null; then
	if [ -f "$dir/applied.patch" ]; then
		(cd "$src" && patch -R -p1 -s <"$dir/applied.patch")
		rm -f "$dir/applied.patch"
	fi
	log "applying driver-api.patch"
	(cd "$src" && patch -p1 -s <"$ours")
	cp "$ours" "$dir/applied.patch"
fi

start=$(date +%s)
log "make (log: $dir/build.log)"
bash -c "cd '$src' && export CUDA_INSTALL_PATH='$cuda'; source setup_environment release >/dev/null; make -j\$(nproc)" >"$dir/build.log" 2>&1 </dev/null ||
	{ tail -30 "$dir/build.log"; log "build failed, log in $dir/build.log"; exit 1; }
lib=$src/lib/gcc-/cuda-11080/release
cat >"$dir/env.sh" <<EOS
# GPGPU-Sim with nqueens-gpu's driver API (scripts/gpgpu-sim/build.sh).
# Run bin/nqueens-gpu from a folder that holds a gpgpusim.config (and the
# interconnect file it names), e.g. \$GPGPUSIM_CONFIGS/SM7_QV100/*.
export NQUEENS_LIBCUDA='$lib/libcudart.so'
export CUDA_INSTALL_PATH='$cuda'      # the module loader runs its bin/ptxas
export GPGPUSIM_PTX_REWRITE='$dir/ptx-rewrite.sh'
export PTX_SIM_MODE_FUNC=\${PTX_SIM_MODE_FUNC:-0}   # 0: cycle-level (exact shuffles); 1: functional only (its shfl is wrong)
export GPGPUSIM_CONFIGS='$src/configs/tested-cfgs'
EOS
log "built in $(($(date +%s) - start)) s: . $dir/env.sh"
