#!/usr/bin/env node
// The gpuflow command. It runs the prebuilt bundles in out/cli (bin/build-bundles.mjs, built by
// `npm install`) when they are fresh (bin/bundles.mjs), and forks its workers from the worker
// bundle; otherwise (a source file is newer than the build, or there is no build: a checkout being
// worked on) it runs the TypeScript sources through tsx's loader, which its workers then inherit.
// GPUFLOW_NO_BUNDLE=1 forces the sources.
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { enableCompileCache } from './compile-cache.mjs';
import { freshBundles } from './bundles.mjs';

// Before the bundles load: V8's compile cache where node has one (bin/compile-cache.mjs).
enableCompileCache(module);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Whether the run will likely go to a warm serve (main/cli/early.ts), from the bundle's small
 * entry; false without a bundle (the sources: tsx would cost more than it saves) or when asked
 * for the sources. Not checked for freshness: a stale answer costs only time, never a result.
 */
async function likelyAttached(argv) {
  if (argv[0] !== 'run' || process.env.GPUFLOW_NO_BUNDLE === '1') return false;
  try {
    const early = await import(pathToFileURL(path.join(root, 'out', 'cli', 'early.mjs')).href);
    return early.likelyAttached(argv);
  } catch {
    return false;
  }
}

// `gpuflow run`: nvidia-smi answers while the CLI loads (main/cluster/discovery.ts takes it),
// unless a warm serve will take the run (an attached run asks no GPU of its own).
const argv = process.argv.slice(2);
// Imported only then: child_process's load is part of what an attached run saves.
const smi = (await likelyAttached(argv)) ? null : (await import('./early-nvidia-smi.mjs')).startEarlyNvidiaSmi(argv);

const bundles = freshBundles(root);
let cli;
if (bundles) {
  process.env.GPUFLOW_WORKER_ENTRY ??= path.join(bundles, 'worker.mjs');
  cli = await import(pathToFileURL(path.join(bundles, 'cli.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../main/cli.ts');
}
const code = await cli.main(argv);
process.exitCode = code;
// A query nobody took (a refused workflow) must not hold the process open.
if (smi && smi.exitCode === null && smi.signalCode === null) smi.kill();
// An attached run left nothing pending: exit once its output is flushed (main/cli/exit-now.ts).
await cli.exitWhenIdle(code);
