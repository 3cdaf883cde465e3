#!/bin/bash
# The GPU machine's measurement for issue 28's goal, in one call on a four-GPU machine: the 2 TB
# sliced float64 seed (examples/seed-benchmark.json, N=500000, 10000^2 chunks)
#   - locally (`gpuflow run`, backend cuda, one GPU worker): the reference digest;
#   - through `gpuflow run --dask local-cuda` with 1 GPU and with every GPU (one Nanny per GPU,
#     CUDA_VISIBLE_DEVICES pinned, no dask-cuda): engine run (stats.durationMs) and process wall,
#     each line with the run's phase trace (GPUFLOW_TRACE_START=1; "trace": [process, phase, ms
#     since the CLI's spawn]: the CLI's dask-* phases, the bridge's, each worker's warm-up and first
#     task; docs/dask.md, "Where a --dask run's wall goes"), and at the full size one more run a
#     cluster with each of the wall cuts turned around ("variant": spawn for
#     GPUFLOW_DASK_FORKSERVER=0, each worker spawned and importing distributed itself where
#     local-cuda forks them from a forkserver started with the bridge; cold for
#     GPUFLOW_DASK_WARM=0; late for GPUFLOW_DASK_EARLY=0, no prestart, so the forkserver starts
#     with the first worker; nobytecode for the packed site without bytecode, as the 09:03 run
#     had it: a copy of it without __pycache__ first on PYTHONPATH, PYTHONDONTWRITEBYTECODE=1;
#     ownpin for GPUFLOW_DASK_PIN=own,
#     each local-cuda worker seeing its GPU alone instead of every GPU with its own first;
#     nonvml for DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False: distributed's NVML monitoring off in
#     the scheduler, Nannies and workers. Each of those processes calls nvmlInit and queries every
#     GPU as it starts where pynvml imports (a "pynvml" line says whether it does), a suspect for
#     the ~0.9 s between the workers' registration and the cluster's start on four GPUs
#     (docs/dask.md), which the 2-core machine, with no GPU, does not show);
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
source bench/dask/device-env.sh dask-device.jsonl
N=${N:-500000}
CHUNK=${CHUNK:-10000}
REPS=${REPS:-2}
MODE=${DASK_DEVICE_MODE:-gpu}
CLI=${GPUFLOW_CLI:-.devbuild/cli.mjs}
emit() { echo "$1" | tee -a "$J" | cut -c1-600; }
# tag FIELDS: puts the JSON fields FIELDS first in each line of stdin (a JSON object a line).
tag() { sed "s/^{/{$1,/"; }

[ -d .devbuild/dask/site ] || { echo "device.sh: .devbuild/dask/site is missing: run bench/dask/pack-device.sh here first and carry .devbuild" >&2; exit 2; }
[ -f "$CLI" ] || { echo "device.sh: $CLI is missing: run bench/dask/pack-device.sh (bench/engine-gpu/build.sh) and carry .devbuild/cli.mjs and out" >&2; exit 2; }
# main/dask/interpreter.ts bridgeEnv adds <repo>/python in front of the packed site.
export GPUFLOW_PYTHON=$PY
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules

if [ "$MODE" = gpu ]; then
  [ -f .device/prelude ] && source .device/prelude  # sourced by the call already when run from a copy in .devbuild/<name>
  b0=$SECONDS
  node native/build.mjs --force 2>&1 | tail -3
  emit "{\"kind\":\"build\",\"seconds\":$((SECONDS - b0)),\"capi\":$("$PY" -c 'import json; print(json.dumps(json.load(open("native/build/info.json")).get("capi")))')}"
  emit "{\"kind\":\"pynvml\",\"imports\":$("$PY" -c 'import importlib.util, json; print(json.dumps(importlib.util.find_spec("pynvml") is not None))')}"
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
# Whether this interpreter writes bytecode (the packed site has none: pack-device.sh leaves it out).
import os
r["dont_write_bytecode"] = sys.dont_write_bytecode
r["bytecode_env"] = {k: os.environ.get(k) for k in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
print(json.dumps(r))
EOF
)"

# Set-up, not measured: the packed site and python/ compiled to bytecode, as a user's install has
# it (Debian's packages are compiled when installed). Without it every process of every run may
# compile distributed again: `import distributed` took 1.1-1.4 s in the bridge and each worker
# on the four-GPU machine, ~0.3 s on a 2-core machine with bytecode. A folder that cannot be
# written gets its bytecode under PYTHONPYCACHEPREFIX (exported: the bridge and workers read it).
# The line says how long the imports (a fresh process each, nothing written) took before and after.
import_s() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$PWD/python:$PYTHONPATH" "$PY" -c "import time; t = time.perf_counter(); import $1; print(round(time.perf_counter() - t, 3))" 2>/dev/null || echo null; }
# The nobytecode variant's site: the packed one as it came, without bytecode (the 09:03 run's).
NOPYC_SITE=/tmp/gpuflow-site-nobytecode
rm -rf "$NOPYC_SITE" && cp -r .devbuild/dask/site "$NOPYC_SITE" && find "$NOPYC_SITE" -name __pycache__ -prune -exec rm -rf {} +
before_d=$(import_s distributed)
before_g=$(import_s gpuflow_dask.bridge)
# The machine's own NumPy, pandas and CuPy too, where installed without bytecode (every worker
# imports NumPy; a GPU worker CuPy): their folders join the compile.
BYTECODE_DIRS=(.devbuild/dask/site python)
for m in numpy pandas cupy; do
  d=$("$PY" -c 'import importlib.util as u, os, sys
s = u.find_spec(sys.argv[1])
if s and s.origin and not os.path.exists(u.cache_from_source(s.origin)): print(os.path.dirname(s.origin))' "$m" 2>/dev/null)
  [ -z "$d" ] || BYTECODE_DIRS+=("$d")
done
c0=$(date +%s%N)
# compiled: whether distributed's bytecode is where this interpreter will look for it.
compiled() { "$PY" -c 'import importlib.util as u, os, sys; sys.exit(0 if os.path.exists(u.cache_from_source(sys.argv[1])) else 1)' "$PWD/.devbuild/dask/site/distributed/__init__.py"; }
where=inplace
"$PY" -m compileall -q -j 0 "${BYTECODE_DIRS[@]}" > "$OUT/compileall.log" 2>&1
if ! compiled; then
  export PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX:-/tmp/gpuflow-pycache}
  where=$PYTHONPYCACHEPREFIX
  "$PY" -m compileall -q -j 0 "${BYTECODE_DIRS[@]}" >> "$OUT/compileall.log" 2>&1
  compiled || where=failed
fi
compile_ms=$((($(date +%s%N) - c0) / 1000000))
emit "{\"kind\":\"bytecode\",\"where\":\"$where\",\"dirs\":\"${BYTECODE_DIRS[*]}\",\"compileMs\":$compile_ms,\"importDistributedSeconds\":{\"before\":$before_d,\"after\":$(import_s distributed)},\"importBridgeSeconds\":{\"before\":$before_g,\"after\":$(import_s gpuflow_dask.bridge)}}"

# nvidia-smi sampled every 200 ms while a step runs: each GPU's peak utilisation and memory, added
# to the step's line as "smi" (where the work ran: the issue's question for local-cuda).
SMI_PID=
smi_start() {
  [ "$MODE" = gpu ] || return 0
  nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$OUT/smi.csv" 2>/dev/null &
  SMI_PID=$!
}
smi_stop() {
  [ -n "$SMI_PID" ] || { echo '{}'; return 0; }
  kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null; SMI_PID=
  awk -F', *' 'NF>=3 {if ($2+0>u[$1]) u[$1]=$2+0; if ($3+0>m[$1]) m[$1]=$3+0; seen[$1]=1}
    END {printf "{"; s=""; for (g in seen) {printf "%s\"%s\":{\"utilPeak\":%d,\"memMiBPeak\":%d}", s, g, u[g], m[g]; s=","}; print "}"}' "$OUT/smi.csv"
}
# step COMMAND...: runs COMMAND (one JSON line out) under the sampler; prints the line with "smi".
step() {
  local line smi
  smi_start
  line=$("$@")
  smi=$(smi_stop)
  [ -n "$line" ] || line='{"error":"no output"}'
  echo "$line" | head -1 | tag "\"smi\":$smi"
}
digest_of() { "$PY" -c 'import json,sys
try: print(json.loads(sys.stdin.read()).get("digest"))
except Exception: print("none")'; }

ARGS_OF() { echo "examples/seed-benchmark.json --param N=$1 --param chunks=$CHUNK --param dtype=float64 --no-store --json"; }
SMALL=${SMALL_N:-40000}
FULL_OK=1
for n in "$SMALL" "$N"; do
  small=$([ "$n" = "$SMALL" ] && echo true || echo false)
  reps=$([ "$small" = true ] && echo 1 || echo "$REPS")
  # The local run: the digest every Dask run must give.
  local_line=$(node bench/engine-gpu/timed-run.mjs "{\"kind\":\"local\",\"n\":$n}" --timeout 120 -- "$CLI" run $(ARGS_OF "$n") "${BACKEND[@]}")
  emit "$local_line"
  want=$(echo "$local_line" | digest_of)
  if [ "$small" = false ] && [ "$FULL_OK" = 0 ]; then
    emit "{\"kind\":\"note\",\"n\":$n,\"text\":\"the small size gave no Dask digest equal to the local one: the full-size Dask runs are skipped\"}"
    break
  fi
  for size in "${SIZES[@]}"; do
    vis=${size%% *}
    target=${size#* }
    gpus=$([ "$vis" = - ] && echo 0 || echo "$vis" | tr , '\n' | wc -l)
    if [ "$small" = true ] && [ "$size" = "${SIZES[0]}" ]; then
      # What each worker can run, and one chunk program timed on it (backend, seconds).
      ( [ "$vis" = - ] || export CUDA_VISIBLE_DEVICES=$vis
        PYTHONPATH="$PWD/python:$PYTHONPATH" timeout 120 "$PY" bench/dask/probe_workers.py --cluster "$target" --chunk "$CHUNK" --reps 2 2>"$OUT/probe-$gpus.err" ) | tag "\"gpus\":$gpus" | while read -r l; do emit "$l"; done
    fi
    # The runs as gpuflow makes them, then (full size) one with each wall cut turned around.
    variants=("default:")
    [ "$small" = true ] || variants+=("spawn:GPUFLOW_DASK_FORKSERVER=0" "cold:GPUFLOW_DASK_WARM=0" "late:GPUFLOW_DASK_EARLY=0" "nobytecode:PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$NOPYC_SITE:$PYTHONPATH" "ownpin:GPUFLOW_DASK_PIN=own" "nonvml:DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False")
    for variant in "${variants[@]}"; do
      vname=${variant%%:*}
      venv=${variant#*:}
      vreps=$([ "$vname" = default ] && echo "$reps" || echo 1)
      for rep in $(seq 1 "$vreps"); do
        line=$( ([ "$vis" = - ] || export CUDA_VISIBLE_DEVICES=$vis
          export GPUFLOW_TRACE_START=1
          # shellcheck disable=SC2086 # a variant's settings are NAME=VALUE words
          [ -z "$venv" ] || export $venv
          step node bench/engine-gpu/timed-run.mjs "{\"kind\":\"gpuflow-run-dask\",\"variant\":\"$vname\",\"target\":\"$target\",\"gpus\":$gpus,\"n\":$n,\"rep\":$rep,\"localDigest\":\"$want\"}" --timeout "$([ "$small" = true ] && echo 60 || echo 90)" --stderr -- "$CLI" run $(ARGS_OF "$n") --dask "$target") )
        emit "$line"
        got=$(echo "$line" | digest_of)
        [ "$got" = "$want" ] || FULL_OK=0
      done
    done
  done
done
if [ "$MODE" = cpu ]; then
  emit '{"kind":"dask+cupy","skipped":"no GPU in cpu mode"}'
else
  # Dask + CuPy with a current dask (its own folder, not the 2022.12 pack).
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/dask-current .devbuild/dask/whl/*.whl
  PYTHONPATH=/tmp/dask-current PYTHONUNBUFFERED=1 timeout 120 "$PY" bench/engine-gpu/dask_cupy.py "[{\"n\": $N, \"dtype\": \"float64\", \"mode\": \"sliced\"}]" | tag '"kind":"dask+cupy"' | while read -r l; do emit "$l"; done
fi
# Last (the call's time may run out here): the graph through gpuflow_dask without the CLI.
for size in "${SIZES[@]}"; do
  vis=${size%% *}
  target=${size#* }
  gpus=$([ "$vis" = - ] && echo 0 || echo "$vis" | tr , '\n' | wc -l)
  line=$( ([ "$vis" = - ] || export CUDA_VISIBLE_DEVICES=$vis
    PYTHONPATH="$PWD/python:$PYTHONPATH" timeout 120 "$PY" bench/dask/seed_dask.py --n "$N" --chunk "$CHUNK" --cluster "$target" 2>"$OUT/seed_dask-$gpus.err") )
  [ -n "$line" ] && emit "$(echo "$line" | tag "\"kind\":\"seed-dask\",\"gpus\":$gpus")" || emit "{\"kind\":\"seed-dask\",\"gpus\":$gpus,\"target\":\"$target\",\"error\":\"$(tail -c 300 "$OUT/seed_dask-$gpus.err" | tr '\n"\\' '   ')\"}"
done
