#!/bin/bash
# The first trial's warm-up (worker/kernels/tfjs/trial-warmup.ts) on and off, on the GPU machine
# (nvidia-h100-x4), in one call: the MNIST-shaped search (examples/tuning-mnist-mlp.json,
# trials=12 epochs=1) on GPUFLOW_DEVICES=0,1,2,3 and 0, GPUFLOW_TRIAL_WARMUP=32 (batches)
# and 0, alternated, WARMUP_REPS times (default 2; about 10 s a run). Build here first, as for
# search-device.sh:
#   bench/engine-gpu/build.sh --with-tfjs     (.devbuild/gpuflow-tfjs: the CLI and worker with tfjs)
#   node native/build.mjs                     (native/build; the addon, CUDA inside)
# then there, carry [".devbuild", "native/build", ".device"]:
#   source .device/prelude; OUT=$OUT bash bench/tuning/warmup-device.sh
# $OUT/warmup-device.jsonl: one line a run (timed-run.mjs: wall, durationMs, digest, the trace),
# then one `summary` line a run with each GPU worker's steps from its trace marks (ms): the rows'
# build (data-start -> data-built), the warm-up (warmup-start -> warmup-done), trial 1 and trial 2
# (start -> done) and trial n's steps (train.ts's worker-trial-<n>-* marks).
cd "$(dirname "$0")/../.."
: "${OUT:?OUT must name the folder for warmup-device.jsonl}"
mkdir -p "$OUT"
export GPUFLOW_TRACE_START=1
# WARMUP_CLI=bin/gpuflow.mjs (with a fake nvidia-smi, GPUFLOW_BENCH_FAKE_CUDA=1 and WARMUP_EXTRA
# such as "--param rows=600 --param units=64") checks the script here, without a GPU.
CLI=${WARMUP_CLI:-.devbuild/gpuflow-tfjs/main.mjs}
if [ -z "$WARMUP_CLI" ]; then export GPUFLOW_WORKER_ENTRY=$PWD/.devbuild/gpuflow-tfjs/worker.js GPUFLOW_NATIVE_DIR=$PWD/native/build; fi
[ -f "$CLI" ] || { echo "no $CLI: run bench/engine-gpu/build.sh --with-tfjs first" >&2; exit 2; }
command -v nvidia-smi > /dev/null && nvidia-smi -L | tee "$OUT/machine.txt"
for rep in $(seq 1 "${WARMUP_REPS:-2}"); do
  for gpus in 0,1,2,3 0; do
    n=$(( $(echo "$gpus" | tr -cd , | wc -c) + 1 ))
    for w in 32 0; do
      export GPUFLOW_TRIAL_WARMUP=$w
      # shellcheck disable=SC2086 # WARMUP_EXTRA is a list of arguments
      GPUFLOW_DEVICES=$gpus node bench/engine-gpu/timed-run.mjs "{\"kind\":\"warmup-ab\",\"warmup\":\"$w\",\"gpus\":$n,\"devices\":\"$gpus\",\"rep\":$rep}" --timeout 280 -- \
        $CLI run examples/tuning-mnist-mlp.json --param trials=12 --param epochs=1 ${WARMUP_EXTRA:-} --cpu-workers 0 --no-store --json |
        tee -a "$OUT/warmup-device.jsonl" | cut -c1-300
    done
  done
done
unset GPUFLOW_TRIAL_WARMUP
node -e "
const rows = require('fs').readFileSync('$OUT/warmup-device.jsonl', 'utf8').trim().split('\n').map(JSON.parse).filter((r) => r.kind === 'warmup-ab');
const span = (t, p, a, b) => { const x = t.find((e) => e[0] === p && e[1] === a), y = t.find((e) => e[0] === p && e[1] === b); return x && y ? y[2] - x[2] : null; };
for (const r of rows) {
  const t = r.trace ?? [];
  const workers = [...new Set(t.filter((e) => e[1] === 'worker-trial-data-start').map((e) => e[0]))];
  const per = workers.map((p) => ({
    rows: span(t, p, 'worker-trial-data-start', 'worker-trial-data-built'),
    warmup: span(t, p, 'worker-trial-warmup-start', 'worker-trial-warmup-done'),
    trial1: span(t, p, 'worker-trial-1-start', 'worker-trial-1-done'),
    trial2: span(t, p, 'worker-trial-2-start', 'worker-trial-2-done'),
    steps1: ['rows-ready', 'epoch-1-batch-1', 'epoch-1-trained', 'epoch-1-validated', 'done'].map((s, i, a) => span(t, p, 'worker-trial-1-' + (i ? a[i - 1] : 'start'), 'worker-trial-1-' + s)),
    steps2: ['rows-ready', 'epoch-1-batch-1', 'epoch-1-trained', 'epoch-1-validated', 'done'].map((s, i, a) => span(t, p, 'worker-trial-2-' + (i ? a[i - 1] : 'start'), 'worker-trial-2-' + s)),
  }));
  console.log(JSON.stringify({ kind: 'summary', warmup: r.warmup, gpus: r.gpus, rep: r.rep, status: r.status, durationMs: r.durationMs, digest: r.digest, workers: per }));
}" | tee -a "$OUT/warmup-device.jsonl"
