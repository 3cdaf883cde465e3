#!/usr/bin/env node
// The gpuflow command. It runs the prebuilt bundles in out/cli (bin/build-bundles.mjs, built by
// `npm install`) when they are fresh, and forks its workers from the worker bundle; otherwise (a
// source file is newer than the build, or there is no build: a checkout being worked on) it runs
// the TypeScript sources through tsx's loader, which its workers then inherit.
// GPUFLOW_NO_BUNDLE=1 forces the sources.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundles = path.join(root, 'out', 'cli');

/** True when out/cli holds a build of this checkout no source file is newer than. */
function bundlesFresh() {
  if (process.env.GPUFLOW_NO_BUNDLE === '1') return false;
  try {
    const m = JSON.parse(readFileSync(path.join(bundles, 'manifest.json'), 'utf8'));
    if (m.root !== pathToFileURL(root).href || !Array.isArray(m.inputs)) return false;
    // A file the build read that is gone or changed since means the bundle is not these sources.
    for (const f of m.inputs) if (statSync(path.join(root, f)).mtimeMs > m.builtAt) return false;
    statSync(path.join(bundles, 'worker.mjs'));
    return true;
  } catch {
    return false;
  }
}

let main;
if (bundlesFresh()) {
  process.env.GPUFLOW_WORKER_ENTRY ??= path.join(bundles, 'worker.mjs');
  ({ main } = await import(pathToFileURL(path.join(bundles, 'cli.mjs')).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../main/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
