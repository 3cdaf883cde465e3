#!/bin/sh
# CUDA IPC between GPU worker processes on the GPU machine, in one call: builds the addon, checks
# the addon alone (export in a child process, import here, 8 MiB and 512 MiB timed), runs the
# engine checks (test/gpu/ipc-checks.ts: two GPU workers sharing GPU 0, a matmul whose blocks
# move between them, answer == js, bytes by IPC > 0 and through the host 0; GPUFLOW_IPC=0 goes
# through the host with the same answer), then times matmul 16384² float32 on those two workers
# with and without IPC. JSON lines into $OUT/ipc.jsonl. About 2-3 minutes on an H100.
#
# Here (node_modules present), once after a change:   sh bench/scaling/ipc-device.sh bundle
# There (carry .device and .devbuild):  source .device/prelude; sh bench/scaling/ipc-device.sh
set -e
cd "$(dirname "$0")/../.."
if [ "$1" = bundle ]; then
  sh bench/engine-gpu/build.sh > /dev/null
  npx esbuild test/gpu/ipc-run.ts --bundle --platform=node --format=esm --main-fields=module,main \
    --external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/* --log-level=warning --outfile=.devbuild/ipc-run.mjs \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
  # the GPU machine has no node_modules: native/build.mjs finds napi.h in .devbuild/node-addon-api
  mkdir -p .devbuild/node-addon-api && cp node_modules/node-addon-api/*.h .devbuild/node-addon-api/
  git rev-parse --short HEAD > .devbuild/ipc-commit
  ls -la .devbuild/ipc-run.mjs .devbuild/gpuflow/main.mjs .devbuild/gpuflow/worker.js
  exit 0
fi
OUT=${OUT:-bench/results}
mkdir -p "$OUT"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$OUT/ipc-machine.txt"
t=$(date +%s)
node native/build.mjs 2>&1 | tail -1
echo "addon build: $(( $(date +%s) - t )) s"
export GPUFLOW_NATIVE_DIR="$PWD/native/build" GPUFLOW_WORKER_ENTRY="$PWD/.devbuild/gpuflow/worker.js"
export GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-$(cat .devbuild/ipc-commit 2>/dev/null || echo unknown)}
node .devbuild/ipc-run.mjs --cli .devbuild/gpuflow/main.mjs --workflow test/gpu/ipc-matmul.json --out "$OUT" ${IPC_BENCH---bench}
