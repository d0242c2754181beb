#!/bin/sh
# ptx.sh: the committed PTX of the CUDA kernels (kernels/ptx/), made and
# checked. The Makefile calls it (make ptx, make ptx-check) with NVCC and
# NVCC_FLAGS set; run from the repository root.
#
#   scripts/ptx.sh build DIR   compile every kernels/NAME.cu into DIR/NAME.ptx
#                              and, with -DNQ_NODES=1, DIR/NAME_nodes.ptx (the
#                              node-counting twins), write DIR/BUILD.txt, and
#                              remove any other .ptx from DIR
#   scripts/ptx.sh check       build into a temporary folder and compare it
#                              with kernels/ptx: exit 1 on any difference
#
# DIR/BUILD.txt records how the folder was made and from what: nvcc's
# version, the flags, the command of each module and the SHA-256 of every
# kernels/*.cu, *.h and *.cuh. It names no folder of this machine, so that
# the same sources and nvcc give the same bytes in every checkout (see
# nq_block_add3 in kernels/nqreduce.cuh for the one thing nvcc would
# otherwise take from the build folder). check compares every file byte by
# byte: each PTX text and BUILD.txt (nvcc version, flags, commands, source
# hashes); a file on one side only is a difference too.
set -eu

NVCC=${NVCC:-nvcc}
NVCC_FLAGS=${NVCC_FLAGS:?NVCC_FLAGS not set: run make ptx}

die() {
	echo "ptx.sh: $*" >&2
	exit 1
}

need_nvcc() {
	command -v "$NVCC" >/dev/null 2>&1 ||
		die "$NVCC not found: make cuda-deps installs it (Debian's nvidia-cuda-toolkit); building the CUDA variant needs only cuda.h"
}

# build DIR
build() {
	out=$1
	need_nvcc
	mkdir -p "$out"
	tmp=$out/BUILD.txt.tmp
	version=$("$NVCC" --version | sed -n 's/^Cuda compilation tools, //p')
	buildid=$("$NVCC" --version | tail -n 1)
	{
		echo "nvcc: $version ($buildid)"
		echo "flags: $NVCC_FLAGS"
		echo "# Written by make ptx (scripts/ptx.sh build); make ptx-check builds the"
		echo "# folder again and compares every file. Each module and its command:"
	} >"$tmp"
	for cu in kernels/*.cu; do
		[ -e "$cu" ] || continue
		name=$(basename "$cu" .cu)
		case $name in
		*_nodes) die "$cu: a kernel file name must not end in _nodes (make ptx makes NAME_nodes.ptx of every NAME.cu)" ;;
		esac
		# shellcheck disable=SC2086 # NVCC_FLAGS is a list of flags
		"$NVCC" $NVCC_FLAGS -o "$out/$name.ptx" "$cu"
		# shellcheck disable=SC2086
		"$NVCC" $NVCC_FLAGS -DNQ_NODES=1 -o "$out/${name}_nodes.ptx" "$cu"
		echo "$name.ptx: nvcc $NVCC_FLAGS -o $name.ptx $cu" >>"$tmp"
		echo "${name}_nodes.ptx: nvcc $NVCC_FLAGS -DNQ_NODES=1 -o ${name}_nodes.ptx $cu" >>"$tmp"
	done
	echo "# The sources (kernels/), which go test ./kernels compares with the files at hand:" >>"$tmp"
	for f in kernels/*.cu kernels/*.h kernels/*.cuh; do
		[ -e "$f" ] || continue
		echo "sha256: $(sha256sum "$f" | cut -d' ' -f1)  $(basename "$f")" >>"$tmp"
	done
	mv "$tmp" "$out/BUILD.txt"
	# A module whose .cu is gone goes too.
	for f in "$out"/*.ptx; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .ptx)
		base=${name%_nodes}
		[ -f "kernels/$base.cu" ] || { echo "rm $f (no kernels/$base.cu)"; rm -f "$f"; }
	done
}

check() {
	need_nvcc
	fresh=$(mktemp -d "${TMPDIR:-/tmp}/nqueens-ptx.XXXXXX")
	trap 'rm -rf "$fresh"' EXIT
	build "$fresh" >/dev/null
	if diff -r kernels/ptx "$fresh" >"$fresh.diff" 2>&1; then
		rm -f "$fresh.diff"
		echo "ptx-check: kernels/ptx is what $NVCC makes of kernels/ now ($(ls kernels/ptx | wc -l) files: the PTX and BUILD.txt)"
		return 0
	fi
	echo "ptx-check: the committed kernels/ptx differs from a fresh build of kernels/ (left: committed, right: fresh):" >&2
	head -n 60 "$fresh.diff" >&2
	rm -f "$fresh.diff"
	echo "ptx-check: run make ptx and commit kernels/ptx" >&2
	return 1
}

case ${1:-} in
build)
	[ $# = 2 ] || die "usage: scripts/ptx.sh build DIR"
	build "$2"
	;;
check)
	[ $# = 1 ] || die "usage: scripts/ptx.sh check"
	check
	;;
*) die "usage: scripts/ptx.sh build DIR | check" ;;
esac
