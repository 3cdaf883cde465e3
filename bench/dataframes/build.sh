#!/bin/sh
# Bundles the dataframe GPU bench for the GPU machine (no node_modules there):
# bench/dataframes/gpu-groupby.ts -> .devbuild/dataframes-gpu.mjs, and its CPU worker thread
# bench/dataframes/groupby-worker.ts -> .devbuild/groupby-worker.mjs (found beside the bundle).
set -e
cd "$(dirname "$0")/../.."
mkdir -p .devbuild
B="--bundle --platform=node --format=esm --main-fields=module,main --log-level=warning"
R="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
npx esbuild bench/dataframes/gpu-groupby.ts $B --outfile=.devbuild/dataframes-gpu.mjs --banner:js="$R"
npx esbuild bench/dataframes/groupby-worker.ts $B --outfile=.devbuild/groupby-worker.mjs --banner:js="$R"
ls -la .devbuild/dataframes-gpu.mjs .devbuild/groupby-worker.mjs
