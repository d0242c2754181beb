#!/bin/bash
# How fast Ctrl-C ends a large CPU count, with its checkpoint saved.
#
#   scripts/sigint-bench.sh [N...]      (default: N=26 28)
#
# For each N and each delay (DELAYS, default "8 60" seconds) it starts
#
#   bin/nqueens-gpu -n N -device cpu -checkpoint TMP/ck
#
# sends SIGINT after the delay and measures the time from the signal to
# the process's exit. Each run must:
#   - exit within LIMIT_S seconds of the signal (default 2), with status
#     130 (interrupted by SIGINT);
#   - leave the checkpoint TMP/ck, which a resume accepts: the same command
#     is started again, and must still be counting after RESUME_S seconds
#     (default 3; a checkpoint it refuses ends it at once with status 1),
#     then is stopped by SIGINT the same way (status 130, its exit time
#     reported too).
# One line per run, then a table. The exit status is 1 if any check
# failed. docs/long-runs.md records a run.
#
# Uses bin/nqueens-gpu (built with `make build` first) or NQUEENS_BIN.
set -uo pipefail
ns=${*:-26 28}
delays=${DELAYS:-8 60}
resume_s=${RESUME_S:-3}
limit_s=${LIMIT_S:-2}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
bin=${NQUEENS_BIN:-$repo/bin/nqueens-gpu}
if [ -z "${NQUEENS_BIN:-}" ]; then
	make -C "$repo" --no-print-directory build >/dev/null || exit 1
fi
[ -x "$bin" ] || { echo "no binary $bin" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# interrupt PID DELAY: waits DELAY seconds, sends SIGINT to PID (started
# by this shell) and waits for it; sets took to the seconds from the
# signal to its exit ("gone" if it ended before the signal) and rc to its
# exit status.
interrupt() {
	local pid=$1 delay=$2 t0
	sleep "$delay"
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		rc=$?
		took=gone
		return
	fi
	t0=$(now)
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	took=$(secs "$t0" "$(now)")
}

fail=0
rows=()
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)"
for n in $ns; do
	for delay in $delays; do
		ck=$tmp/ck-$n-$delay
		log=$tmp/log-$n-$delay
		"$bin" -n "$n" -device cpu -checkpoint "$ck" >"$log.out" 2>"$log" &
		interrupt $! "$delay"
		ok=yes
		why=""
		[ "$rc" = 130 ] || { ok=no; why+=" status $rc, not 130;"; }
		if [ "$took" = gone ]; then
			ok=no why+=" ended before the signal;"
		elif awk -v t="$took" -v l="$limit_s" 'BEGIN { exit !(t > l) }'; then
			ok=no why+=" exit took ${took}s, more than ${limit_s}s;"
		fi
		[ -s "$ck" ] || { ok=no; why+=" no checkpoint;"; }
		done_batches=$(sed -n 's/.*counting N=[0-9]*: \([0-9]*\) of [0-9]* batches done.*/\1/p' "$log" | tail -1)
		size=$( [ -f "$ck" ] && awk -v b="$(stat -c %s "$ck")" 'BEGIN { printf "%.1f", b / 1048576 }' || echo -)

		# The resume: the same command, which must accept the file.
		"$bin" -n "$n" -device cpu -checkpoint "$ck" >"$log.resume.out" 2>"$log.resume" &
		first_took=$took first_rc=$rc
		interrupt $! "$resume_s"
		rtook=$took rrc=$rc took=$first_took rc=$first_rc
		if [ "$rtook" = gone ] || [ "$rrc" != 130 ]; then
			ok=no
			why+=" resume: status $rrc$( [ "$rtook" = gone ] && echo ', ended before the signal'): $(grep -v '^nqueens-gpu: N=' "$log.resume" | head -1);"
		fi
		printf 'N=%s after %ss: exit %ss, status %s, %s batches done, checkpoint %s MiB; resume accepted it and stopped in %ss (status %s): %s\n' \
			"$n" "$delay" "$took" "$rc" "${done_batches:-?}" "$size" "$rtook" "$rrc" "$ok"
		[ -z "$why" ] || { echo "  failed:$why" >&2; sed 's/^/  | /' "$log" >&2; fail=1; }
		rows+=("$(printf '| %2s | %3s s | %6s s | %6s | %8s | %7s MiB | %6s s | %3s |' \
			"$n" "$delay" "$took" "$rc" "${done_batches:-?}" "$size" "$rtook" "$ok")")
	done
done
echo
echo "|  N | SIGINT after | exit after | status | batches saved | checkpoint | resume stop | ok |"
echo "|---:|---:|---:|---:|---:|---:|---:|:--:|"
printf '%s\n' "${rows[@]}"
exit $fail
