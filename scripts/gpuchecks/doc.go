// Command gpuchecks is the logic of run-gpu-checks.sh and gpu-session.sh,
// the GPU host's scripts, which have no Go there: `make bundle` ships it
// built. The scripts run the commands (time limits, budget, logs,
// signals); gpuchecks reads what the commands left and judges it against
// the published counts (internal/known), plans the tune sweep, sizes the
// largen shards and writes the rows of the scripts' tables.
//
// A judgement reads the run NAME's stdout and stderr from BASE.out and
// BASE.err (BASE: the log folder and NAME), told how it ended by -rc and
// -ended. It exits 0 when the run passes, 1 with the reason on stdout
// when it fails, and 3 with the reason when it is neither: the preflight
// ran on the CPU (no usable GPU), or a tool was refused (a sandbox).
//
//	gpuchecks preflight|count|sanitizer|ncu|shard [-rc RC] [-ended TEXT] [flags] BASE
//	gpuchecks same-nodes BASE1 BASE2
//	gpuchecks same-classes -max N -cpu CPUBASE BASE
//	gpuchecks gpu-flags CPUBASE
//	gpuchecks driver -devices FILE SMIFILE
//	gpuchecks shards -algo A -n N -workers K -seconds S
//	gpuchecks tune -n N -max-shared BYTES
//	gpuchecks nodes-row -header | nodes-row N KERNEL BASE PLAINBASE
//	gpuchecks timing-row -header | timing-row VARIANT N PROCESS_S BASE
//	gpuchecks seeds-rows [-from N] FILE
//
// The other commands exit 0 or 1 the same way; driver prints the check's
// name, driver-VERSION, and after a tab the reason when it fails. Exit
// status 2: a usage error.
package main
