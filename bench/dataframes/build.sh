#!/bin/sh
# Bundles the dataframe GPU bench for the GPU machine (no node_modules there):
# bench/dataframes/gpu-groupby.ts -> .devbuild/dataframes-gpu.mjs, and its CPU worker thread
# bench/dataframes/groupby-worker.ts -> .devbuild/groupby-worker.mjs (found beside the bundle);
# bench/dataframes/engine-groupby.ts -> .devbuild/dataframes-engine.mjs, whose worker processes are
# bench/engine-gpu/build.sh's .devbuild/gpuflow/worker.js (run that script too).
set -e
cd "$(dirname "$0")/../.."
mkdir -p .devbuild
B="--bundle --platform=node --format=esm --main-fields=module,main --log-level=warning"
R="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
EXT="--external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/*"
npx esbuild bench/dataframes/gpu-groupby.ts $B --outfile=.devbuild/dataframes-gpu.mjs --banner:js="$R"
npx esbuild bench/dataframes/groupby-worker.ts $B --outfile=.devbuild/groupby-worker.mjs --banner:js="$R"
npx esbuild bench/dataframes/engine-groupby.ts $B $EXT --outfile=.devbuild/dataframes-engine.mjs --banner:js="$R"
ls -la .devbuild/dataframes-gpu.mjs .devbuild/groupby-worker.mjs .devbuild/dataframes-engine.mjs
