#!/usr/bin/env node
// The gpuflow command. It runs the prebuilt bundles in out/cli (bin/build-bundles.mjs, built by
// `npm install`) when they are fresh (bin/bundles.mjs), and forks its workers from the worker
// bundle; otherwise (a source file is newer than the build, or there is no build: a checkout being
// worked on) it runs the TypeScript sources through tsx's loader, which its workers then inherit.
// GPUFLOW_NO_BUNDLE=1 forces the sources.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBundles } from './bundles.mjs';
import { startEarlyNvidiaSmi } from './early-nvidia-smi.mjs';

// `gpuflow run`: nvidia-smi answers while the CLI loads (main/cluster/discovery.ts takes it).
const smi = startEarlyNvidiaSmi(process.argv.slice(2));

const bundles = freshBundles(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
let main;
if (bundles) {
  process.env.GPUFLOW_WORKER_ENTRY ??= path.join(bundles, 'worker.mjs');
  ({ main } = await import(pathToFileURL(path.join(bundles, 'cli.mjs')).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../main/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
// A query nobody took (a refused workflow) must not hold the process open.
if (smi && smi.exitCode === null && smi.signalCode === null) smi.kill();
