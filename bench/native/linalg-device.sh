#!/bin/sh
# Issue #4's linear algebra on the GPU machine: build the addon, the linalg GPU checks against js,
# then gpuflow vs CuPy (matmul 16384 float32 / float64, SVD 10000 x 1000 float64 cold and warm,
# every GPUFLOW_CUDA_SVD method), into $OUT/linalg.{json,md}. About 3-4 minutes on an H100.
#
# Here (node_modules present), once after a change:   sh bench/native/linalg-device.sh bundle
#   bundles bench/native/linalg-bench.ts into .devbuild/linalg-bench.mjs (the GPU machine has no
#   node_modules) and notes the commit in .devbuild/linalg-commit.
# There (carry .device and .devbuild):  source .device/prelude; sh bench/native/linalg-device.sh
set -e
cd "$(dirname "$0")/../.."
if [ "$1" = bundle ]; then
  mkdir -p .devbuild
  npx esbuild bench/native/linalg-bench.ts --bundle --platform=node --format=esm --main-fields=module,main \
    --external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/* --log-level=warning --outfile=.devbuild/linalg-bench.mjs \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
  # the GPU machine has no node_modules: native/build.mjs finds napi.h in .devbuild/node-addon-api
  mkdir -p .devbuild/node-addon-api && cp node_modules/node-addon-api/*.h .devbuild/node-addon-api/
  git rev-parse --short HEAD > .devbuild/linalg-commit
  ls -la .devbuild/linalg-bench.mjs
  exit 0
fi
t=$(date +%s)
node native/build.mjs
echo "addon build: $(( $(date +%s) - t )) s"; cat native/build/info.json; echo
GPUFLOW_COMMIT=${GPUFLOW_COMMIT:-$(cat .devbuild/linalg-commit 2>/dev/null || echo unknown)} GPUFLOW_NATIVE_DIR="$PWD/native/build" \
  node .devbuild/linalg-bench.mjs --out "${OUT:-bench/results}" "$@"
