/**
 * Builds the three bundles of the app: main (Electron main process, plus the worker process entry
 * as `worker.js` beside it, where main/cluster/worker-entry.ts looks for it), preload, and the
 * React renderer (out/renderer/, also what `gpuflow serve` hands to browsers).
 */
import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// electron-vite picks its build targets (Node and Chromium versions) from electron/package.json.
// Electron is an optional dependency, absent where its binary download failed: then the major
// version comes from our package.json's range, so the bundles are the same either way.
try {
  createRequire(import.meta.url).resolve('electron/package.json');
} catch {
  const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  const major = /(\d+)/.exec(pkg.optionalDependencies?.electron ?? '')?.[1];
  if (major) process.env.ELECTRON_MAJOR_VER ??= major;
}

// Native and heavy Node packages stay require()d at run time, never bundled.
const nodeExternals = [
  'electron',
  'better-sqlite3',
  '@duckdb/node-api',
  /^@tensorflow\//,
  'ws',
  'tsx',
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
];

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: { app: resolve('main/app.ts'), worker: resolve('worker/boot.ts') },
        external: nodeExternals,
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve('main/preload.ts') },
        external: ['electron'],
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      emptyOutDir: true,
      rollupOptions: { input: resolve('renderer/index.html') },
    },
  },
});
