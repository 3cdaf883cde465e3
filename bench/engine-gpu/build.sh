#!/bin/sh
# Bundles the CLI and the worker for the GPU machine (it has no node_modules) into
# .devbuild/gpuflow/: main.mjs (calls main() of main/cli.ts), worker.js (worker/boot.ts, then worker/main.ts, which
# main/cluster/worker-entry.ts finds beside the bundle), bench/native/device-run.ts as .devbuild/device-run.mjs,
# and stub packages for the modules the seed workload never uses but that are imported eagerly
# (better-sqlite3 by main/store, @tensorflow/tfjs by the tfjs kernels): a use throws.
#
# --with-tfjs builds only the tuning bundles instead: .devbuild/gpuflow-tfjs/{main.mjs,worker.js}
# with TensorFlow.js inside (a search trains trials; the stub would throw), better-sqlite3 stubbed
# (run with --no-store), and tfjs-backend-wasm's package.json and .wasm files in
# .devbuild/node_modules (for bundles that import the wasm backend statically, as
# bench/tuning/trials.ts does). The worker bundle imports wasm by name at run time, which finds no
# JS there: its workers record wasm as not loaded and train small trials on tfjs's cpu backend.
# Trials of at least GPU_MIN_MACS_PER_ROW (the MNIST-shaped ones) train on gpuflow-cuda either way
# (bench/tuning/search-device.sh).
set -e
cd "$(dirname "$0")/../.."
BANNER="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
stub() {
  mkdir -p .devbuild/node_modules/$1
  printf '{"name":"%s","type":"module","main":"index.js"}\n' "$1" > .devbuild/node_modules/$1/package.json
  printf 'const no = () => { throw new Error("%s is not on this machine (bench stub)"); };\nexport default no;\n' "$1" > .devbuild/node_modules/$1/index.js
}
if [ "$1" = --with-tfjs ]; then
  T=.devbuild/gpuflow-tfjs
  W=.devbuild/node_modules/@tensorflow/tfjs-backend-wasm
  mkdir -p $T $W/dist
  cat > $T/entry.ts <<'TS'
import { main } from '../../main/cli';
main(process.argv.slice(2)).then((code) => process.exit(code), (e) => { console.error(e); process.exit(1); });
TS
  TEXT="--external:better-sqlite3 --external:@duckdb/* --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu"
  npx esbuild $T/entry.ts --bundle --platform=node --format=esm --main-fields=module,main $TEXT --log-level=warning --outfile=$T/main.mjs --banner:js="$BANNER"
  npx esbuild worker/boot.ts --bundle --platform=node --format=esm --main-fields=module,main $TEXT --log-level=warning --outfile=$T/worker.js --banner:js="$BANNER"
  echo '{"type":"module"}' > $T/package.json
  cp node_modules/@tensorflow/tfjs-backend-wasm/package.json $W/
  cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm $W/dist/
  stub better-sqlite3
  ls -la $T $W/dist
  exit 0
fi
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
  --banner:js="$BANNER"
npx esbuild worker/boot.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=$D/worker.js \
  --banner:js="$BANNER"
echo '{"type":"module"}' > $D/package.json
# The product's own bundles (out/cli, from bin/build-bundles.mjs; carry `out`) behind one entry, as
# bin/gpuflow.mjs runs them: what the engine runs of device.sh time, start-up included.
node bin/build-bundles.mjs --quiet
# bin/gpuflow.mjs itself would not take bundles built for another checkout path; this does what
# it does around them (V8's compile cache where node has one, bin/compile-cache.mjs; the early
# nvidia-smi query unless a warm serve will likely take the run, out/cli/early.mjs,
# BENCH_NO_EARLY_SMI=1 leaves it out, for A/B; the exit once an attached run's output is flushed).
cat > .devbuild/cli.mjs <<'JS'
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { enableCompileCache } from '../bin/compile-cache.mjs';
enableCompileCache(module);
const argv = process.argv.slice(2);
const { likelyAttached } = await import('../out/cli/early.mjs');
const smi = process.env.BENCH_NO_EARLY_SMI === '1' || likelyAttached(argv) ? null : (await import('../bin/early-nvidia-smi.mjs')).startEarlyNvidiaSmi(argv);
process.env.GPUFLOW_WORKER_ENTRY ??= fileURLToPath(new URL('../out/cli/worker.mjs', import.meta.url));
const cli = await import('../out/cli/cli.mjs');
const code = await cli.main(argv);
process.exitCode = code;
if (smi && smi.exitCode === null && smi.signalCode === null) smi.kill();
await cli.exitWhenIdle(code);
JS
npx esbuild bench/native/device-run.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=.devbuild/device-run.mjs \
  --banner:js="$BANNER"
npx esbuild bench/engine-gpu/warm-runs.ts --bundle --platform=node --format=esm --main-fields=module,main $EXT --log-level=warning --outfile=.devbuild/warm-runs.mjs \
  --banner:js="$BANNER"
for m in better-sqlite3 @tensorflow/tfjs; do stub $m; done
ls -la $D
