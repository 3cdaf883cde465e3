#!/bin/bash
# Issue 26's goal, the MNIST-shaped search (examples/tuning-mnist-mlp.json) on four GPUs against
# one, in one call on nvidia-h100-x4. Build here first (no node_modules there):
#   bench/engine-gpu/build.sh --with-tfjs     (.devbuild/gpuflow-tfjs: the CLI and worker with tfjs)
#   node native/build.mjs                     (native/build; the addon, CUDA inside)
# then run there with carry [".devbuild", "native/build"] (and ".device", beginning the command with
# `source .device/prelude;`, where that machine's node is needed, as bench/engine-gpu/device.sh):
#   bash bench/tuning/search-device.sh        (about 3 minutes; SEARCH_REPS=2 doubles it)
# Each run is one line of JSON in $OUT/search-device.jsonl (bench/engine-gpu/timed-run.mjs: the
# process wall, stats.durationMs, the digest, the stats with tasks per worker, the start-up trace).
# Runs: the example's own params, then trials=12 epochs=1, each on GPUFLOW_DEVICES=0 and 0,1,2,3,
# alternated, SEARCH_REPS times (default 1).
#
# On a machine without GPUs (the check before the call): SEARCH_VIRTUAL=1 runs the same pairs on
# --virtual-gpus 1 and 4 (GPUFLOW_DEVICES unset), and SEARCH_EXTRA adds params, e.g.
#   SEARCH_VIRTUAL=1 SEARCH_EXTRA="--param rows=300 --param units=64" OUT=/tmp/o bash bench/tuning/search-device.sh
cd "$(dirname "$0")/../.."
: "${OUT:?OUT must name the folder for search-device.jsonl}"
mkdir -p "$OUT"
export GPUFLOW_WORKER_ENTRY=$PWD/.devbuild/gpuflow-tfjs/worker.js GPUFLOW_NATIVE_DIR=$PWD/native/build GPUFLOW_TRACE_START=1
CLI=.devbuild/gpuflow-tfjs/main.mjs
[ -f "$CLI" ] || { echo "no $CLI: run bench/engine-gpu/build.sh --with-tfjs first" >&2; exit 2; }
command -v nvidia-smi > /dev/null && nvidia-smi -L | tee "$OUT/machine.txt"
for rep in $(seq 1 "${SEARCH_REPS:-1}"); do
  for params in "example" "trials=12 epochs=1"; do
    args=()
    [ "$params" = example ] || for p in $params; do args+=(--param "$p"); done
    for gpus in 0 0,1,2,3; do
      n=$(( $(echo "$gpus" | tr -cd , | wc -c) + 1 ))
      if [ -n "$SEARCH_VIRTUAL" ]; then where=(--virtual-gpus "$n"); virtual=true; unset GPUFLOW_DEVICES; else where=(); virtual=false; export GPUFLOW_DEVICES=$gpus; fi
      fields="{\"kind\":\"search\",\"params\":\"$params\",\"gpus\":$n,\"devices\":\"$gpus\",\"virtual\":$virtual,\"rep\":$rep}"
      # shellcheck disable=SC2086 # SEARCH_EXTRA is a list of arguments
      node bench/engine-gpu/timed-run.mjs "$fields" --timeout "${SEARCH_TIMEOUT:-280}" -- \
        $CLI run examples/tuning-mnist-mlp.json "${args[@]}" ${SEARCH_EXTRA:-} "${where[@]}" --cpu-workers 0 --no-store --json |
        tee -a "$OUT/search-device.jsonl" | cut -c1-300
    done
  done
done
