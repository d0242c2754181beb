#!/bin/sh
# build-variant.sh: which variant `make build` builds. Prints
# "cuda: ABOUT", where ABOUT names the cuda.h it compiles with, or
# "cpu: WHY" where WHY says what is missing for the CUDA variant. Run from
# the repository root with GO set (default go), CUDA set as make's CUDA
# variable and CGO_CFLAGS as the Makefile exports it:
#
#   CUDA=""  the CUDA variant when cgo works and compiles cuda.h, else the CPU one
#   CUDA=1   the CUDA variant, or exit 1 saying what is missing
#   CUDA=0   the CPU-only variant
#
# The CUDA variant needs cgo (CGO_ENABLED=1, a C compiler: go env CC),
# cuda.h where cgo looks for it (/usr/include, /usr/local/cuda/include, or
# CGO_CFLAGS=-I...), a cuda.h that the binding github.com/mumax/3/cuda/cu
# compiles against, and the committed PTX (kernels/ptx). It needs neither
# nvcc nor the NVIDIA driver: see gpu/cuda_shim.go.
#
# The third is a real compile, not a look for the file: go build -tags cuda
# ./gpu (with GOFLAGS_BUILD, as make passes it, so that the build after it
# finds the cgo packages in the cache), which compiles every C declaration
# and call of the binding and of the gpu package against the header. CUDA
# 13.x's cuda.h fails it (cuCtxCreate is cuCtxCreate_v4 there, with four
# arguments) unless CGO_CFLAGS starts with -I.../gpu/cudacompat, which the
# Makefile sees to (docs/gpu.md, "CUDA 12.x and 13.x").
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
	# cuda.h through the C compiler, as cgo will include it in the binding's
	# package (its #cgo CFLAGS: -I/usr/local/cuda/include/ -I/usr/include
	# -I/opt/cuda/include, after CGO_CFLAGS).
	# shellcheck disable=SC2046 # CGO_CFLAGS is a list of flags
	set -- "$@" $("$GO" env CGO_CFLAGS) -I/usr/local/cuda/include/ -I/usr/include -I/opt/cuda/include
	if ! printf '\043include <cuda.h>\n\043ifndef CUDA_VERSION\n\043error cuda.h without CUDA_VERSION\n\043endif\n' |
		"$@" -E -x c - >/dev/null 2>&1; then
		echo "no cuda.h"
		return
	fi
	if ! ls kernels/ptx/*.ptx >/dev/null 2>&1; then
		echo "no PTX in kernels/ptx (make ptx)"
		return
	fi
	# The compile probe: the packages that include cuda.h, as the build
	# will compile them.
	# shellcheck disable=SC2086 # GOFLAGS_BUILD is a list of flags
	if ! err=$("$GO" build ${GOFLAGS_BUILD:-} -tags cuda ./gpu 2>&1); then
		# The first error (the C compiler's, else Go's), without the
		# folders of its file.
		first=$(printf '%s\n' "$err" | grep -m 1 ': error: ' || printf '%s\n' "$err" | grep -v '^#' | grep -m 1 .)
		first=$(printf '%s\n' "$first" | sed 's|^[^ :]*/\([^/ :]*:[0-9]\)|\1|')
		pkg=$(printf '%s\n' "$err" | sed -n 's/^# //p' | head -n 1)
		case " $("$GO" env CGO_CFLAGS) " in
		*" -I$(pwd)/gpu/cudacompat "*)
			echo "$(about "$@") does not compile with the driver declarations of gpu/cudacompat/cuda.h ($pkg: $first); docs/gpu.md, CUDA 12.x and 13.x, says what to do"
			;;
		*)
			echo "$(about "$@") does not compile with the driver calls of the code ($pkg: $first): CGO_CFLAGS must start with -I$(pwd)/gpu/cudacompat, as make sets it (docs/gpu.md, CUDA 12.x and 13.x)"
			;;
		esac
		return
	fi
}

# about CC FLAGS...: "cuda.h MAJOR.MINOR at PATH", the toolkit's header that
# CC includes with FLAGS (past gpu/cudacompat/cuda.h, which wraps it).
about() {
	pp=$(printf '\043include <cuda.h>\nnq_cuda_version CUDA_VERSION\n' | "$@" -E -x c - 2>/dev/null)
	# The expansion of CUDA_VERSION, a token from a system header, may come
	# on a line of its own after a line marker.
	v=$(printf '%s\n' "$pp" | grep -v '^#' | tr -s ' \n' '  ' | sed -n 's/.*nq_cuda_version \([0-9][0-9]*\).*/\1/p')
	path=$(printf '%s\n' "$pp" | sed -n 's/^# [0-9]* "\(.*cuda\.h\)".*/\1/p' | grep -v '/gpu/cudacompat/cuda\.h$' | head -n 1)
	if [ -n "$v" ]; then
		echo "cuda.h $((v / 1000)).$((v % 1000 / 10)) at $path"
	else
		echo "cuda.h at $path"
	fi
}

# what_with prints ABOUT for the CUDA variant (after why_not found nothing).
what_with() {
	cc=$("$GO" env CC)
	# shellcheck disable=SC2046,SC2086 # lists of flags
	about $cc $("$GO" env CGO_CFLAGS) -I/usr/local/cuda/include/ -I/usr/include -I/opt/cuda/include
}

case ${CUDA:-} in
0) echo "cpu: CUDA=0" ;;
1)
	why=$(why_not)
	case $why in
	"") echo "cuda: $(what_with)" ;;
	"no cuda.h")
		echo "make: cannot build the CUDA variant: no cuda.h; make cuda-deps installs the CUDA toolkit (Debian's nvidia-cuda-toolkit)" >&2
		exit 1
		;;
	*)
		echo "make: cannot build the CUDA variant: $why" >&2
		exit 1
		;;
	esac
	;;
"")
	why=$(why_not)
	if [ -n "$why" ]; then echo "cpu: $why"; else echo "cuda: $(what_with)"; fi
	;;
*)
	echo "make: CUDA=$CUDA: want CUDA=1, CUDA=0 or nothing" >&2
	exit 1
	;;
esac
