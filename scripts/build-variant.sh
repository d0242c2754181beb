#!/bin/sh
# build-variant.sh: which variant `make build` builds. Prints "cuda", or
# "cpu: WHY" where WHY says what is missing for the CUDA variant. Run from
# the repository root with GO set (default go) and CUDA set as make's
# CUDA variable:
#
#   CUDA=""  the CUDA variant when cgo works and finds cuda.h, else the CPU one
#   CUDA=1   the CUDA variant, or exit 1 saying what is missing
#   CUDA=0   the CPU-only variant
#
# The CUDA variant needs cgo (CGO_ENABLED=1, a C compiler: go env CC) and
# cuda.h where cgo looks for it (/usr/include, /usr/local/cuda/include, or
# CGO_CFLAGS=-I...), and the committed PTX (kernels/ptx). It needs neither
# nvcc nor the NVIDIA driver: see gpu/cuda_shim.go.
set -eu

GO=${GO:-go}

# why_not prints why the CUDA variant cannot be built here, or nothing.
why_not() {
	if [ "$("$GO" env CGO_ENABLED)" != 1 ]; then
		echo "cgo is off (CGO_ENABLED=0)"
		return
	fi
	cc=$("$GO" env CC)
	set -- $cc
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "no C compiler ($1; Debian: apt-get install gcc)"
		return
	fi
	# cuda.h through the C compiler, as cgo will include it (the gpu
	# package adds -I/usr/local/cuda/include).
	# shellcheck disable=SC2046 # CGO_CFLAGS is a list of flags
	if ! printf '\043include <cuda.h>\n\043ifndef CUDA_VERSION\n\043error cuda.h without CUDA_VERSION\n\043endif\n' |
		"$@" $("$GO" env CGO_CFLAGS) -I/usr/local/cuda/include -E -x c - >/dev/null 2>&1; then
		echo "no cuda.h"
		return
	fi
	if ! ls kernels/ptx/*.ptx >/dev/null 2>&1; then
		echo "no PTX in kernels/ptx (make ptx)"
		return
	fi
}

case ${CUDA:-} in
0) echo "cpu: CUDA=0" ;;
1)
	why=$(why_not)
	if [ -n "$why" ]; then
		echo "make: cannot build the CUDA variant: $why; make cuda-deps installs the CUDA toolkit (Debian's nvidia-cuda-toolkit)" >&2
		exit 1
	fi
	echo cuda
	;;
"")
	why=$(why_not)
	if [ -n "$why" ]; then echo "cpu: $why"; else echo cuda; fi
	;;
*)
	echo "make: CUDA=$CUDA: want CUDA=1, CUDA=0 or nothing" >&2
	exit 1
	;;
esac
