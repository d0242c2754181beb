#!/usr/bin/env bash
# Installs what the CUDA build of nqueens-gpu needs on Debian 12 (bookworm):
# Debian's nvidia-cuda-toolkit (nvcc 11.8, cuda.h and the CUDA libraries) from
# the non-free component.
#
# Nothing of the NVIDIA driver is needed to build: the binary does not link
# libcuda at all (gpu/cudashim.c loads libcuda.so.1 with dlopen at run time),
# so a machine without a driver builds the CUDA variant and runs its CPU
# fallback. nvcc is needed only for `make ptx`; cgo needs only cuda.h.
#
# Idempotent: when nvcc and cuda.h are already there it only says so. Run as
# root (or with sudo available). Set FORCE=1 to run the apt steps anyway.
set -euo pipefail

log() { printf 'install-cuda-toolkit: %s\n' "$*" >&2; }

have_toolkit() {
	command -v nvcc >/dev/null 2>&1 &&
		{ [ -f /usr/include/cuda.h ] || [ -f /usr/local/cuda/include/cuda.h ]; }
}

if [ "${FORCE:-0}" != 1 ] && have_toolkit; then
	log "already installed: $(nvcc --version | tail -n 1)"
	exit 0
fi

SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		log "must run as root (or with sudo) to install packages"
		exit 1
	fi
fi

if ! [ -r /etc/os-release ] || ! grep -q '^ID=debian' /etc/os-release; then
	log "warning: not Debian; trying anyway (Ubuntu has nvidia-cuda-toolkit in multiverse)"
fi

want_components="contrib non-free non-free-firmware"

# enable_deb822 FILE: add the missing components to every stanza of a deb822
# sources file whose URIs point at a Debian archive (deb.debian.org, a mirror
# under /debian or /debian-security, or snapshot.debian.org).
enable_deb822() {
	local f=$1 tmp
	tmp=$(mktemp)
	awk -v want="$want_components" '
		function flush(   i, n, parts, have, add, w) {
			if (nlines == 0) return
			if (isdeb && compline > 0) {
				n = split(lines[compline], parts, /[ \t]+/)
				for (i = 2; i <= n; i++) have[parts[i]] = 1
				add = ""
				split(want, w, " ")
				for (i = 1; i <= 3; i++) if (!(w[i] in have)) add = add " " w[i]
				lines[compline] = lines[compline] add
			}
			for (i = 1; i <= nlines; i++) print lines[i]
			nlines = 0; isdeb = 0; compline = 0
		}
		/^[ \t]*$/ { flush(); print; next }
		{
			lines[++nlines] = $0
			if ($0 ~ /^URIs:/ && $0 ~ /(debian\.org|\/debian(-security)?\/?([ \t]|$))/) isdeb = 1
			if ($0 ~ /^Components:/) compline = nlines
		}
		END { flush() }
	' "$f" >"$tmp"
	if ! cmp -s "$f" "$tmp"; then
		log "enabling $want_components in $f"
		$SUDO cp "$tmp" "$f"
	fi
	rm -f "$tmp"
}

# enable_classic FILE: the same for one-line "deb URI SUITE COMPONENTS..."
# entries.
enable_classic() {
	local f=$1 tmp
	tmp=$(mktemp)
	awk -v want="$want_components" '
		/^[ \t]*deb(-src)?[ \t]/ && /(debian\.org|\/debian(-security)?\/?[ \t])/ {
			n = split($0, parts, /[ \t]+/)
			delete have
			for (i = 1; i <= n; i++) have[parts[i]] = 1
			split(want, w, " ")
			add = ""
			for (i = 1; i <= 3; i++) if (!(w[i] in have)) add = add " " w[i]
			print $0 add
			next
		}
		{ print }
	' "$f" >"$tmp"
	if ! cmp -s "$f" "$tmp"; then
		log "enabling $want_components in $f"
		$SUDO cp "$tmp" "$f"
	fi
	rm -f "$tmp"
}

shopt -s nullglob
for f in /etc/apt/sources.list.d/*.sources; do enable_deb822 "$f"; done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	if [ -f "$f" ]; then enable_classic "$f"; fi
done
shopt -u nullglob

export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)
log "apt-get update"
$SUDO apt-get update -qq
# No recommends: 65 packages instead of 146 (the recommends are Nsight,
# the visual profiler, cuda-gdb and the docs). The hard dependencies give
# nvcc, g++-11 as its host compiler, cuda.h (nvidia-cuda-dev) and the CUDA
# libraries; nvidia-cuda-dev also depends on libcuda1, the driver's
# user-space library (R535), which without the kernel module only makes
# cuInit fail with CUDA_ERROR_NO_DEVICE. About 2 minutes and 5.2 GB.
log "apt-get install nvidia-cuda-toolkit"
$SUDO apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	nvidia-cuda-toolkit >/dev/null

if ! have_toolkit; then
	log "nvcc or cuda.h still missing after the install"
	exit 1
fi
log "installed in $(($(date +%s) - start)) s: $(nvcc --version | tail -n 1)"
