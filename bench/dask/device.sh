#!/bin/bash
# The GPU machine's measurement for issue 28's goal, in one call on a four-GPU machine: the 2 TB
# sliced float64 seed (examples/seed-benchmark.json, N=500000, 10000^2 chunks)
#   - locally (`gpuflow run`, backend cuda, one GPU worker): the reference digest;
#   - through `gpuflow run --dask local-cuda` with 1 GPU and with every GPU (one Nanny per GPU,
#     CUDA_VISIBLE_DEVICES pinned, no dask-cuda): engine run (stats.durationMs) and process wall;
#   - through bench/dask/seed_dask.py on the same two clusters (the graph without the CLI);
#   - hand-written Dask + CuPy (bench/engine-gpu/dask_cupy.py), a current dask from wheels.
# One JSON line per measurement, on stdout and in $OUT/dask-device.jsonl.
#
# Before the call, here: bench/dask/pack-device.sh (Debian's dask / distributed 2022.12 into
# .devbuild/dask/site, the dask wheels for Dask + CuPy, the gpuflow bundles into .devbuild and out).
# The call: command `bash bench/dask/device.sh`, kind nvidia-h100-x4, carry [".device", "out",
# ".devbuild/dask", ".devbuild/cli.mjs", ".devbuild/node_modules", ".devbuild/node-addon-api"]. It builds the addon and the C libraries with nvcc there (native/build.mjs).
#
# DASK_DEVICE_MODE=cpu runs the same steps on a machine without a GPU (local:1 and local:2 in
# place of 1 and all GPUs, backend cpu, no Dask + CuPy), to prove the script end to end.
#   N=20000 DASK_DEVICE_MODE=cpu GPUFLOW_PYTHON=/usr/bin/python3 bench/dask/device.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpuflow-dask-device}
mkdir -p "$OUT"
J=$OUT/dask-device.jsonl
: > "$J"
N=${N:-500000}
CHUNK=${CHUNK:-10000}
REPS=${REPS:-2}
MODE=${DASK_DEVICE_MODE:-gpu}
PY=${GPUFLOW_PYTHON:-python3}
CLI=${GPUFLOW_CLI:-.devbuild/cli.mjs}
emit() { echo "$1" | tee -a "$J" | cut -c1-600; }
# tag FIELDS: puts the JSON fields FIELDS first in each line of stdin (a JSON object a line).
tag() { sed "s/^{/{$1,/"; }

[ -d .devbuild/dask/site ] || { echo "device.sh: .devbuild/dask/site is missing: run bench/dask/pack-device.sh here first and carry .devbuild" >&2; exit 2; }
[ -f "$CLI" ] || { echo "device.sh: $CLI is missing: run bench/dask/pack-device.sh (bench/engine-gpu/build.sh) and carry .devbuild/cli.mjs and out" >&2; exit 2; }
# Debian's dask / distributed first on the path: the bridge, its cluster's Nannies and workers
# inherit it (main/dask/interpreter.ts bridgeEnv adds <repo>/python in front).
export PYTHONPATH="$PWD/.devbuild/dask/site${PYTHONPATH:+:$PYTHONPATH}"
export GPUFLOW_PYTHON=$PY
export DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules

if [ "$MODE" = gpu ]; then
  source .device/prelude
  node native/build.mjs --force 2>&1 | tail -3
  ALL=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  ONE=${ALL%%,*}
  BACKEND=(--backend cuda --cpu-workers 0)
  # Two sizes of the cluster: the value of CUDA_VISIBLE_DEVICES, and the --dask target it runs on.
  SIZES=("$ONE local-cuda" "$ALL local-cuda")
else
  ALL=
  BACKEND=()
  SIZES=("- local:1" "- local:2")
fi
export GPUFLOW_CAPI_DIR=$PWD/native/build

# What the call runs on: Python, the packed versions, NumPy (distributed 2022.12 serialises arrays
# through numpy.core, which NumPy 2 keeps only as a deprecated alias), CuPy, the GPUs.
emit "$("$PY" - "$MODE" "$ALL" <<'EOF'
import json, sys, platform
r = {"kind": "machine", "mode": sys.argv[1], "gpus": sys.argv[2], "python": platform.python_version()}
for m in ("dask", "distributed", "tornado", "numpy", "pandas", "cupy"):
    try:
        mod = __import__(m)
        r[m] = getattr(mod, "__version__", getattr(mod, "version", "?"))
        if m == "distributed":
            r["distributed_from"] = mod.__file__
    except Exception as e:  # noqa: BLE001
        r[m] = f"not importable: {type(e).__name__}: {e}"
import numpy
r["numpy_core"] = hasattr(numpy, "core")
print(json.dumps(r))
EOF
)"

ARGS=(examples/seed-benchmark.json --param N=$N --param chunks=$CHUNK --param dtype=float64 --no-store --json)
# The local run: the digest every Dask run must give.
emit "$(node bench/engine-gpu/timed-run.mjs "{\"kind\":\"local\",\"n\":$N}" --timeout 300 -- "$CLI" run "${ARGS[@]}" "${BACKEND[@]}")"

for size in "${SIZES[@]}"; do
  vis=${size%% *}
  target=${size#* }
  gpus=$([ "$vis" = - ] && echo 0 || echo "$vis" | tr , '\n' | wc -l)
  for rep in $(seq 1 "$REPS"); do
    line=$( ([ "$vis" = - ] || export CUDA_VISIBLE_DEVICES=$vis
      node bench/engine-gpu/timed-run.mjs "{\"kind\":\"gpuflow-run-dask\",\"target\":\"$target\",\"gpus\":$gpus,\"n\":$N,\"rep\":$rep}" --timeout 300 -- "$CLI" run "${ARGS[@]}" --dask "$target"))
    emit "$line"
  done
  line=$( ([ "$vis" = - ] || export CUDA_VISIBLE_DEVICES=$vis
    PYTHONPATH="$PWD/python:$PYTHONPATH" timeout 600 "$PY" bench/dask/seed_dask.py --n "$N" --chunk "$CHUNK" --cluster "$target" 2>"$OUT/seed_dask-$gpus-$target.err") )
  [ -n "$line" ] && emit "$(echo "$line" | tag "\"kind\":\"seed-dask\",\"gpus\":$gpus")" || emit "{\"kind\":\"seed-dask\",\"gpus\":$gpus,\"target\":\"$target\",\"error\":\"$(tail -c 300 "$OUT/seed_dask-$gpus-$target.err" | tr '\n"\\' '   ')\"}"
done
if [ "$MODE" = cpu ]; then
  line=$(PYTHONPATH="$PWD/python:$PYTHONPATH" timeout 600 "$PY" bench/dask/seed_dask.py --n "$N" --chunk "$CHUNK" --cluster threaded)
  emit "$(echo "$line" | tag '"kind":"seed-dask","gpus":0')"
  emit '{"kind":"dask+cupy","skipped":"no GPU in cpu mode"}'
else
  # Dask + CuPy with a current dask (its own folder, not the 2022.12 pack).
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/dask-current .devbuild/dask/whl/*.whl
  PYTHONPATH=/tmp/dask-current PYTHONUNBUFFERED=1 timeout 300 "$PY" bench/engine-gpu/dask_cupy.py "[{\"n\": $N, \"dtype\": \"float64\", \"mode\": \"sliced\"}]" | tag '"kind":"dask+cupy"' | while read -r l; do emit "$l"; done
fi
