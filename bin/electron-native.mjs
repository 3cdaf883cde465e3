#!/usr/bin/env node
// Builds better-sqlite3 for the installed Electron's ABI into native/electron/better_sqlite3.node
// with @electron/rebuild, leaving node_modules' Node build alone (the CLI, serve and the tests
// load that one; the app hands this one to better-sqlite3 as `nativeBinding`, see
// main/desktop/native-modules.ts). It rebuilds a copy of the package in native/electron/work, so
// the two builds never overwrite each other. Run by `npm start` before it opens Electron; a
// no-op when native/electron/stamp.json says it is current.
//
// Exit 0: the Electron build is there. Exit 1: it could not be made (no Electron, or Electron's
// headers cannot be downloaded: node-gyp fetches them from electronjs.org once); the reason is
// on stderr and `npm start` serves in the browser instead.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const outDir = path.join(root, 'native', 'electron');
const outFile = path.join(outDir, 'better_sqlite3.node');
const stampFile = path.join(outDir, 'stamp.json');

function fail(why) {
  process.stderr.write(`gpuflow: cannot build better-sqlite3 for Electron: ${why}\n`);
  process.exit(1);
}

let electronVersion;
try {
  electronVersion = require('electron/package.json').version;
} catch {
  fail('Electron is not installed');
}
const sqliteDir = path.dirname(require.resolve('better-sqlite3/package.json'));
const sqliteVersion = JSON.parse(readFileSync(path.join(sqliteDir, 'package.json'), 'utf8')).version;
const want = { electron: electronVersion, betterSqlite3: sqliteVersion };

try {
  const have = JSON.parse(readFileSync(stampFile, 'utf8'));
  if (have.electron === want.electron && have.betterSqlite3 === want.betterSqlite3 && existsSync(outFile)) process.exit(0);
} catch {
  // no stamp yet: build
}

let rebuild;
try {
  ({ rebuild } = await import('@electron/rebuild'));
} catch (e) {
  fail(`@electron/rebuild is not installed (${e instanceof Error ? e.message : String(e)}); run \`npm install\``);
}

console.log(`gpuflow: building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (@electron/rebuild, once)…`);
const work = path.join(outDir, 'work');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'node_modules'), { recursive: true });
cpSync(sqliteDir, path.join(work, 'node_modules', 'better-sqlite3'), { recursive: true, filter: (src) => path.basename(src) !== 'build' });
writeFileSync(
  path.join(work, 'package.json'),
  JSON.stringify({ name: 'gpuflow-electron-native', version: '0.0.0', private: true, dependencies: { 'better-sqlite3': sqliteVersion } }),
);
try {
  await rebuild({ buildPath: work, electronVersion, onlyModules: ['better-sqlite3'], force: true, buildFromSource: true });
} catch (e) {
  rmSync(work, { recursive: true, force: true });
  fail(`${e instanceof Error ? e.message : String(e)} (offline? node-gyp downloads Electron's headers from electronjs.org)`);
}
const built = path.join(work, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
if (!existsSync(built)) fail(`@electron/rebuild finished but ${built} is missing`);
cpSync(built, outFile);
writeFileSync(stampFile, JSON.stringify(want));
rmSync(work, { recursive: true, force: true });
console.log(`gpuflow: ${path.relative(root, outFile)} built for Electron ${electronVersion}`);
