#!/usr/bin/env node
// `npm start`: the Electron app when its runtime is installed, else the same UI in the browser
// (`gpuflow serve` on 127.0.0.1), always saying why. In order:
//   1. builds out/ (electron-vite) if it is missing or older than the sources;
//   2. finds Electron: an optional dependency, absent where its binary download failed at install;
//   3. makes sure better-sqlite3 is built for Electron's ABI (bin/electron-native.mjs);
//   4. opens the app; if it exits with EXIT_NATIVE_MODULE (a native module would not load in
//      Electron; the app names it) it serves instead.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** main/desktop/native-modules.ts's EXIT_NATIVE_MODULE. */
const EXIT_NATIVE_MODULE = 78;

/** The Electron binary, or why there is none. */
function findElectron() {
  let dir;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return {
      why: "Electron's runtime is not installed (it is an optional dependency: its download from GitHub failed or was skipped during `npm install`; with access to GitHub or an ELECTRON_MIRROR, `npm install electron` adds it)",
    };
  }
  try {
    const exe = path.join(dir, 'dist', readFileSync(path.join(dir, 'path.txt'), 'utf8'));
    if (existsSync(exe)) return { exe };
  } catch {
    // path.txt is written by electron's install script once the binary is in place
  }
  return {
    why: "Electron's binary was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD, or no route to GitHub during `npm install`; `node node_modules/electron/install.js` fetches it)",
  };
}

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function buildIfNeeded() {
  const marker = path.join(root, 'out/renderer/index.html');
  const main = path.join(root, 'out/main/app.js');
  const src = Math.max(...['renderer', 'main', 'common', 'worker'].map((d) => newest(path.join(root, d))));
  if (existsSync(marker) && existsSync(main) && statSync(marker).mtimeMs >= src && statSync(main).mtimeMs >= src) return;
  console.log('gpuflow: building (electron-vite build)…');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function run(cmd, argv, onExit) {
  const child = spawn(cmd, argv, { cwd: root, stdio: 'inherit' });
  const forward = (sig) => child.kill(sig);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, forward);
  child.on('exit', (code, signal) => {
    for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, forward);
    onExit(code, signal);
  });
}

const args = process.argv.slice(2);
function serve(why) {
  console.log(`gpuflow: ${why}.\ngpuflow: serving the same UI in your browser instead (gpuflow serve).`);
  run(process.execPath, [path.join(root, 'bin/gpuflow.mjs'), 'serve', '--host', '127.0.0.1', ...args], (code) => process.exit(code ?? 0));
}

buildIfNeeded();
const electron = findElectron();
if (!electron.exe) serve(electron.why);
else if (spawnSync(process.execPath, [path.join(root, 'bin/electron-native.mjs')], { cwd: root, stdio: 'inherit' }).status !== 0)
  serve("better-sqlite3 could not be built for Electron's ABI (the reason is above), so the app could not open its database");
else
  run(electron.exe, [root, ...args], (code) => {
    if (code === EXIT_NATIVE_MODULE) serve('the Electron app could not load a native module (the reason is above)');
    else process.exit(code ?? 0);
  });
