#!/usr/bin/env node
// Builds the command line and the worker process as prebuilt ES module bundles (out/cli/), so
// `gpuflow` and the workers it forks start without compiling TypeScript at run time (tsx costs a
// worker about a second of CPU on a 2-core machine, and the CLI as much again). Run by
// `npm install` (postinstall); `bin/gpuflow.mjs` uses the bundles while they are fresh and falls
// back to the TypeScript sources under tsx when they are missing or older than a source file.
//
// esbuild (a dependency of tsx, so always installed) bundles our sources and the pure-JS packages
// they use; native and heavy packages (better-sqlite3, DuckDB, TensorFlow.js) stay imported
// from node_modules at run time. `ws` is bundled (serve's event stream): loading it from node_modules
// (its CommonJS files one by one) took about 40 ms on the 2-core build machine, bundled 12-15 (an
// attached run loaded it until it moved to one streamed HTTP request). `import()` of an area's kernels (TensorFlow.js, the dataframe
// code) becomes a separate chunk loaded on first use, as from the sources. Each source file's `import.meta.url` is rewritten to that file's own URL
// (relative to the bundle), so paths computed from it (the native addon's build folder, examples/,
// out/renderer) are what they are from the sources.
//
// out/cli/manifest.json lists every source file that went in and when the build started; the
// launcher compares their modification times with it.
//
// It never fails the install: on an error it says why, removes the bundles and exits 0 (the
// launcher then runs the sources under tsx).
//
//   node bin/build-bundles.mjs [--quiet]
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'out', 'cli');
const quiet = process.argv.includes('--quiet');

/** Rewrites `import.meta.url` in our TypeScript to the source file's URL, relative to the bundle. */
const sourceUrls = {
  name: 'gpuflow-source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const rel = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

const EXTERNAL = ['better-sqlite3', '@duckdb/*', '@tensorflow/*', 'tsx', 'tsx/*', 'electron'];

/**
 * What an attached `gpuflow run` validates with zod/mini, built apart from the rest (a build of its
 * own): the serve file's reader, loaded before the request to serve (main/cli/warm-pool.ts), and
 * the run's message schemas (main/cli/attach.ts), loaded while serve starts the run. They share one
 * chunk holding only the part of zod/mini their schemas use (about 60 KB) instead of the CLI's
 * shared zod chunk (177 KB: the part every bundled zod/mini schema uses), so the request goes out
 * after the reader and that chunk, and the messages' schemas are made while serve works. Only these
 * importers take them (by output name); serve's writer of the serve file keeps the shared chunk.
 * Figures: docs/performance.md, "Where an attached run's wall goes".
 */
const STANDALONE = [
  { importer: 'main/cli/warm-pool.ts', source: 'main/api/serve-file.ts', out: 'serve-file-reader' },
  { importer: 'main/cli/attach.ts', source: 'main/cli/attach-messages.ts', out: 'attach-messages' },
];
const standalone = {
  name: 'gpuflow-standalone',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const importer = path.relative(root, args.importer).split(path.sep).join('/');
      const target = path.relative(root, path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
      const s = STANDALONE.find((x) => x.importer === importer && x.source === `${target}.ts`);
      return s ? { path: `./${s.out}.mjs`, external: true } : undefined;
    });
  },
};

async function main() {
  const started = Date.now();
  const { build } = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'node',
    // ES module builds first: jsonc-parser's CommonJS main is a UMD wrapper esbuild cannot follow.
    mainFields: ['module', 'main'],
    target: 'node20',
    // Bundled CommonJS code may require() Node's own modules.
    banner: { js: "import { createRequire as __gpuflowRequire } from 'node:module'; const require = __gpuflowRequire(import.meta.url);" },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  };
  const alone = await build({
    ...common,
    entryPoints: Object.fromEntries(STANDALONE.map((x) => [x.out, x.source])),
    outdir,
    splitting: true,
    // Named apart from the main build's chunks, which land in the same folder.
    chunkNames: 'standalone-[hash]',
    outExtension: { '.js': '.mjs' },
    plugins: [sourceUrls],
  });
  const result = await build({
    ...common,
    // The worker's entry is worker/boot.ts: the CUDA warm-up starts before the rest (a chunk) loads.
    // early: bin/gpuflow.mjs's question before nvidia-smi starts (main/cli/early.ts).
    entryPoints: { cli: 'main/cli.ts', worker: 'worker/boot.ts', early: 'main/cli/early.ts' },
    outdir,
    splitting: true,
    // Native packages and the heavy ones loaded on first use stay in node_modules; the rest
    // (zod, apache-arrow, hyparquet, jsonc-parser) are bundled: one file read instead of hundreds.
    external: EXTERNAL,
    outExtension: { '.js': '.mjs' },
    plugins: [sourceUrls, standalone],
  });
  // Packages change only through npm install, which builds again: the sources are what to watch.
  const inputs = [...new Set([result, alone].flatMap((r) => Object.keys(r.metafile.inputs)))].filter((f) => !f.includes('node_modules/')).sort();
  writeFileSync(path.join(outdir, 'manifest.json'), JSON.stringify({ builtAt: started, root: pathToFileURL(root).href, inputs }, null, 1) + '\n');
  if (!quiet) process.stdout.write(`gpuflow: bundled the CLI and worker (${inputs.length} source files) into out/cli in ${Date.now() - started} ms\n`);
}

main().catch((e) => {
  rmSync(outdir, { recursive: true, force: true });
  process.stderr.write(`gpuflow: no prebuilt bundles (the CLI runs the TypeScript sources under tsx): ${e instanceof Error ? e.message : String(e)}\n`);
});
