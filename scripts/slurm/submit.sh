#!/bin/bash
# Submits an nqueens-gpu count as a Slurm job array of shards plus a merge
# job that runs once every shard has succeeded.
#
#   scripts/slurm/submit.sh N SHARDS [SBATCH-OPTION...]
#
# The sbatch options go to the array (such as --partition=gpu
# --gres=gpu:1 --time=12:00:00); N, OUT, NQUEENS_BIN, NQUEENS_DEVICE and
# NQUEENS_ARGS are passed on from the environment. Prints the two job IDs.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 N SHARDS [SBATCH-OPTION...]" >&2
	exit 2
fi
n=$1 shards=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export N=$n
export OUT=${OUT:-$PWD/results/n$n}
mkdir -p "$OUT"

array=$(sbatch --parsable --array=0-$((shards - 1)) --export=ALL "$@" "$here/nqueens-array.sbatch")
array=${array%%;*} # "jobid;cluster" on multi-cluster setups
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --export=ALL "$here/merge.sbatch")
merge=${merge%%;*}
echo "array job $array ($shards shards of N=$n), merge job $merge; results in $OUT"
