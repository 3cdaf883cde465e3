#!/usr/bin/env node
// `npm start`: the Electron app when its runtime is installed (building first if out/ is missing or
// older than the sources); otherwise says so and serves the same UI on 127.0.0.1 with `gpuflow serve`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const p = require('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null; // the package throws when its binary was never downloaded
  }
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

buildIfNeeded();
const electron = electronBinary();
const args = process.argv.slice(2);
const child = electron
  ? spawn(electron, [root, ...args], { cwd: root, stdio: 'inherit' })
  : (console.log("gpuflow: Electron's runtime is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD?); serving the same UI in your browser instead."),
    spawn(process.execPath, [path.join(root, 'bin/gpuflow.mjs'), 'serve', '--host', '127.0.0.1', ...args], { cwd: root, stdio: 'inherit' }));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
