#!/bin/sh
# Bundles the CLI and the worker for the GPU machine (it has no node_modules) into
# .devbuild/gpuflow/: main.mjs (calls main() of main/cli.ts), worker.js (worker/boot.ts, then worker/main.ts, which
# main/cluster/worker-entry.ts finds beside the bundle), bench/native/device-run.ts as .devbuild/device-run.mjs,
# and stub packages for the modules the seed workload never uses but that are imported eagerly
# (better-sqlite3 by main/store, @tensorflow/tfjs by the tfjs kernels): a use throws.
set -e
cd "$(dirname "$0")/../.."
D=.devbuild/gpuflow
# The stubs sit in .devbuild/node_modules, where every bundle in .devbuild/ (and .devbuild/gpuflow/)
# finds them by Node's walk up the directories.
M=.devbuild/node_modules
mkdir -p $D $M/better-sqlite3 $M/@tensorflow/tfjs
EXT="--external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/*"
cat > $D/entry.ts <<'TS'
import { main } from '../../main/cli';
main(process.argv.slice(2)).then((code) => process.exit(code), (e) => { console.error(e); process.exit(1); });
TS
npx esbuild $D/entry.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=$D/main.mjs \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
npx esbuild worker/boot.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=$D/worker.js \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
echo '{"type":"module"}' > $D/package.json
# The product's own bundles (out/cli, from bin/build-bundles.mjs; carry `out`) behind one entry, as
# bin/gpuflow.mjs runs them: what the engine runs of device.sh time, start-up included.
node bin/build-bundles.mjs --quiet
# bin/gpuflow.mjs itself would not take bundles built for another checkout path; this does what
# it does around them (the early nvidia-smi query; BENCH_NO_EARLY_SMI=1 leaves it out, for A/B).
cat > .devbuild/cli.mjs <<'JS'
import { fileURLToPath } from 'node:url';
import { startEarlyNvidiaSmi } from '../bin/early-nvidia-smi.mjs';
const smi = process.env.BENCH_NO_EARLY_SMI === '1' ? null : startEarlyNvidiaSmi(process.argv.slice(2));
process.env.GPUFLOW_WORKER_ENTRY ??= fileURLToPath(new URL('../out/cli/worker.mjs', import.meta.url));
const { main } = await import('../out/cli/cli.mjs');
process.exitCode = await main(process.argv.slice(2));
if (smi && smi.exitCode === null && smi.signalCode === null) smi.kill();
JS
npx esbuild bench/native/device-run.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=.devbuild/device-run.mjs \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
npx esbuild bench/engine-gpu/warm-runs.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=.devbuild/warm-runs.mjs \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
for m in better-sqlite3 @tensorflow/tfjs; do
  printf '{"name":"%s","type":"module","main":"index.js"}\n' "$m" > $M/$m/package.json
  printf 'const no = () => { throw new Error("%s is not on this machine (bench stub)"); };\nexport default no;\n' "$m" > $M/$m/index.js
done
ls -la $D
