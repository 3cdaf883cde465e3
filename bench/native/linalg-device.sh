#!/bin/sh
# Issue #4's linear algebra on the GPU machine: build the addon, the linalg GPU checks against js
# (host in / out and device-resident), then gpuflow vs CuPy (matmul 16384 float32 / float64, SVD
# 10000 x 1000 float64 cold and warm, every GPUFLOW_CUDA_SVD method), into $OUT/linalg.{json,md};
# then (issue #20) the whole engine on the same machine in the same call: `gpuflow run` of
# bench/native/svd-engine.json and matmul-engine.json, one GPU worker, backend cuda, a fresh
# process each, ENGINE_REPS (3) times with the one-device lowerings (docs/linalg.md) and twice
# with them off (GPUFLOW_ONE_DEVICE_LINALG=0: resident TSQR, blockwise matmul), into
# $OUT/linalg-engine.jsonl, then Dask + CuPy (linalg_dask_cupy.py, NO_DASK=1 skips it) into
# $OUT/linalg-dask.jsonl, and all of it beside the bare figures of linalg.json in $OUT/linalg-engine.json.
# About 5 minutes on an H100.
#
# Here (node_modules present), once after a change:   sh bench/native/linalg-device.sh bundle
#   bundles bench/native/linalg-bench.ts into .devbuild/linalg-bench.mjs and the CLI and worker
#   into .devbuild/gpuflow/ (bench/engine-gpu/build.sh; the GPU machine has no node_modules), and
#   notes the commit in .devbuild/linalg-commit.
# There (carry .device, .devbuild and .whl):  source .device/prelude; sh bench/native/linalg-device.sh
set -e
cd "$(dirname "$0")/../.."
if [ "$1" = bundle ]; then
  mkdir -p .devbuild
  npx esbuild bench/native/linalg-bench.ts --bundle --platform=node --format=esm --main-fields=module,main \
    --external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/* --log-level=warning --outfile=.devbuild/linalg-bench.mjs \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
  # the GPU machine has no node_modules: native/build.mjs finds napi.h in .devbuild/node-addon-api
  mkdir -p .devbuild/node-addon-api && cp node_modules/node-addon-api/*.h .devbuild/node-addon-api/
  sh bench/engine-gpu/build.sh > /dev/null
  git rev-parse --short HEAD > .devbuild/linalg-commit
  ls -la .devbuild/linalg-bench.mjs .devbuild/gpuflow/main.mjs .devbuild/gpuflow/worker.js
  exit 0
fi
t=$(date +%s)
node native/build.mjs
echo "addon build: $(( $(date +%s) - t )) s"; cat native/build/info.json; echo
export GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-$(cat .devbuild/linalg-commit 2>/dev/null || echo unknown)} GPUFLOW_NATIVE_DIR="$PWD/native/build"
O=${OUT:-bench/results}
mkdir -p "$O"
node .devbuild/linalg-bench.mjs --out "$O" "$@" || echo "linalg-bench failed: rc $?"
[ -n "$NO_ENGINE" ] && exit 0
# The engine from the product's bundles (out/cli through .devbuild/cli.mjs; carry `out`), with the
# start-up trace (common/start-trace.ts) kept per run.
[ -d node_modules ] || cp -r .devbuild/node_modules node_modules
CLI=${GPUFLOW_CLI:-.devbuild/cli.mjs}
export GPUFLOW_TRACE_START=1
engine() { # workflow mode rep (mode: one-device | blocks)
  one=1; [ "$2" = blocks ] && one=0
  GPUFLOW_ONE_DEVICE_LINALG=$one node bench/engine-gpu/timed-run.mjs "{\"kind\":\"engine\",\"workflow\":\"$1\",\"mode\":\"$2\",\"rep\":$3}" --timeout ${ENGINE_TIMEOUT:-120} -- \
    $CLI run "bench/native/$1.json" --no-store --json --backend cuda --cpu-workers 0 | tee -a "$O/linalg-engine.jsonl" | cut -c1-400
}
for wf in svd-engine matmul-engine; do
  for rep in $(seq 1 ${ENGINE_REPS:-3}); do engine $wf one-device $rep; done
  for rep in 1 2; do engine $wf blocks $rep; done
done
# Dask + CuPy on the same workloads (bench/native/linalg_dask_cupy.py), with the wheels carried in
# .whl when the machine's Python has no dask.
if [ -z "$NO_DASK" ]; then
  ls .whl/*.whl > /dev/null 2>&1 && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
  PYTHONUNBUFFERED=1 timeout ${DASK_TIMEOUT:-300} python3 bench/native/linalg_dask_cupy.py --reps 2 | tee "$O/linalg-dask.jsonl"
fi
node bench/native/linalg-engine-summary.mjs "$O"
