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
#                              (with another nvcc than BUILD.txt records:
#                              see below)
#
# DIR/BUILD.txt records how the folder was made and from what: nvcc's
# version, the flags, the command of each module and the SHA-256 of every
# kernels/*.cu, *.h and *.cuh. It names no folder of this machine, so that
# the same sources and nvcc give the same bytes in every checkout (see
# nq_block_add3 in kernels/nqreduce.cuh for the one thing nvcc would
# otherwise take from the build folder). check compares every file byte by
# byte: each PTX text and BUILD.txt (nvcc version, flags, commands, source
# hashes); a file on one side only is a difference too.
#
# Only the nvcc that made kernels/ptx makes the same bytes, so check
# compares bytes only when the installed nvcc's version line (release,
# V-number and build) is the one BUILD.txt records. With another nvcc (a
# host with CUDA 12.x or 13.x, where the PTX was made with 11.8), it still
# builds every module into the temporary folder, which proves that the
# kernels compile with that nvcc and the flags make passes (nvcc 13 gets
# compute_75: see PTX_ARCH in the Makefile), checks that the source hashes
# equal the recorded ones (a kernel changed without make ptx fails here
# too), and says plainly that the byte comparison was skipped, exit 0.
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

# nvcc_line prints the installed nvcc as BUILD.txt's first line names it
# (after "nvcc: ").
nvcc_line() {
	version=$("$NVCC" --version | sed -n 's/^Cuda compilation tools, //p')
	buildid=$("$NVCC" --version | tail -n 1)
	echo "$version ($buildid)"
}

# build DIR
build() {
	out=$1
	need_nvcc
	mkdir -p "$out"
	tmp=$out/BUILD.txt.tmp
	{
		echo "nvcc: $(nvcc_line)"
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
	trap 'rm -rf "$fresh" "$fresh.diff" "$fresh.recorded" "$fresh.now"' EXIT
	build "$fresh" >/dev/null
	recorded=$(sed -n 's/^nvcc: //p' kernels/ptx/BUILD.txt)
	installed=$(nvcc_line)
	if [ "$recorded" != "$installed" ]; then
		grep '^sha256: ' kernels/ptx/BUILD.txt >"$fresh.recorded" || true
		grep '^sha256: ' "$fresh/BUILD.txt" >"$fresh.now" || true
		if ! diff "$fresh.recorded" "$fresh.now" >"$fresh.diff" 2>&1; then
			echo "ptx-check: the kernel sources differ from the ones kernels/ptx was made from (left: kernels/ptx/BUILD.txt, right: now):" >&2
			cat "$fresh.diff" >&2
			echo "ptx-check: run make ptx and commit kernels/ptx" >&2
			return 1
		fi
		echo "ptx-check: byte comparison with kernels/ptx skipped: nvcc ${installed%% (*} ($NVCC) differs from the recorded nvcc ${recorded%% (*} (kernels/ptx/BUILD.txt), and only the recorded one makes the committed bytes"
		echo "ptx-check: what was checked: $(ls "$fresh"/*.ptx | wc -l) modules of kernels/ compile with $NVCC ($(sed -n 's/^flags: //p' "$fresh/BUILD.txt")), and the source hashes equal the recorded ones"
		return 0
	fi
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
