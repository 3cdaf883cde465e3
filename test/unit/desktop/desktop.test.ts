/**
 * The desktop shell's pieces that need no Electron: where the addon is found from a bundle and a
 * packaged app, the native-module error for a wrong ABI, files from a command line, remembered
 * window bounds, the menu against the renderer's shortcut table, a GPU worker's fallback notice,
 * and the utility launcher's crash reason from child-process-gone.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProcessGoneDetails, UtilityChild } from '../../../main/electron-api';
import { utilityLauncher } from '../../../main/cluster/utility-launcher';
import { filesFromArgv } from '../../../main/desktop/argv';
import { MENU_COMMANDS, accelerator, keyEvent } from '../../../main/desktop/menu';
import { NativeModuleError, abiMismatch, sqliteBinding } from '../../../main/desktop/native-modules';
import { loadWindowState, saveWindowState } from '../../../main/desktop/window-state';
import { findBuildDir } from '../../../native/index';
import { gpuFallback } from '../../../renderer/logic/gpu-fallback';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gpuflow-desktop-'));

describe('findBuildDir', () => {
  it('finds native/build from a bundle folder, and under app.asar.unpacked in a packaged app', () => {
    const root = tmp();
    mkdirSync(path.join(root, 'proj/native/build'), { recursive: true });
    writeFileSync(path.join(root, 'proj/native/build/gpuflow.node'), '');
    mkdirSync(path.join(root, 'proj/out/main/chunks'), { recursive: true });
    expect(findBuildDir(path.join(root, 'proj/out/main/chunks'))).toBe(path.join(root, 'proj/native/build'));
    // Packaged: the bundle is inside resources/app.asar, the addon in resources/app.asar.unpacked.
    const res = path.join(root, 'resources');
    mkdirSync(path.join(res, 'app.asar/out/main'), { recursive: true });
    mkdirSync(path.join(res, 'app.asar.unpacked/native/build'), { recursive: true });
    writeFileSync(path.join(res, 'app.asar.unpacked/native/build/info.json'), '{}');
    expect(findBuildDir(path.join(res, 'app.asar/out/main'))).toBe(path.join(res, 'app.asar.unpacked/native/build'));
    expect(findBuildDir(path.join(ROOT, 'native'))).toBe(path.join(ROOT, 'native/build'));
  });
});

describe('native modules for the runtime', () => {
  const nodeError = 'The module x.node\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 139. Please try re-compiling';
  it('reads both ABI versions from Node’s error, and nothing from other errors', () => {
    expect(abiMismatch(new Error(nodeError))).toEqual({ built: 115, needed: 139 });
    expect(abiMismatch(new Error('ENOENT'))).toBeNull();
  });
  it('under Node uses better-sqlite3’s own build; under Electron needs the Electron build and names what to do', () => {
    expect(sqliteBinding('/app', {}, undefined)).toBeUndefined();
    const call = () => sqliteBinding('/nonexistent-app', {}, '38.8.6');
    expect(call).toThrow(NativeModuleError);
    expect(call).toThrow(/not been built for Electron 38\.8\.6: \/nonexistent-app\/native\/electron\/better_sqlite3\.node is missing.*npx gpuflow serve/);
    expect(() => sqliteBinding('/app', { GPUFLOW_SQLITE_BINDING: path.join(ROOT, 'test/electron/fixtures/wrong-abi.cjs') }, '38.8.6')).toThrow(/built for NODE_MODULE_VERSION 115 and this runtime \(Electron 38\.8\.6\) needs 139/);
  });
});

describe('the shell', () => {
  it('takes existing .json / .gpuflow files from argv, relative to the launch folder, skipping switches', () => {
    const d = tmp();
    writeFileSync(path.join(d, 'a.json'), '{}');
    writeFileSync(path.join(d, 'b.gpuflow'), '{}');
    expect(filesFromArgv(['/opt/gpuflow/gpuflow', '--no-sandbox', 'a.json', 'missing.json', path.join(d, 'b.gpuflow'), 'notes.txt'], d)).toEqual([path.join(d, 'a.json'), path.join(d, 'b.gpuflow')]);
  });

  it('remembers window bounds, ignores a broken file, and brings an off-screen window back', () => {
    const f = path.join(tmp(), 'sub/window-state.json');
    expect(loadWindowState(f)).toBeNull();
    saveWindowState(f, { x: 2000.4, y: 10, width: 1200, height: 800 }, true);
    expect(loadWindowState(f)).toEqual({ x: 2000, y: 10, width: 1200, height: 800, maximized: true });
    expect(loadWindowState(f, [{ x: 0, y: 0, width: 1920, height: 1080 }])).toEqual({ x: 0, y: 0, width: 1200, height: 800, maximized: true });
    writeFileSync(f, '{"x": 1');
    expect(loadWindowState(f)).toBeNull();
  });

  it('menu commands use keys the renderer’s shortcut table binds, as accelerators and key events', () => {
    const table = readFileSync(path.join(ROOT, 'renderer/ui/shortcuts.ts'), 'utf8');
    const bound = new Set([...table.matchAll(/keys: '([^']+)'/g)].map((m) => m[1]));
    for (const c of Object.values(MENU_COMMANDS).flat()) expect(bound, c.label).toContain(c.keys);
    expect(accelerator('Mod+Shift+Enter')).toBe('CmdOrCtrl+Shift+Enter');
    expect(keyEvent('Mod+Shift+G')).toEqual({ keyCode: 'G', modifiers: [process.platform === 'darwin' ? 'meta' : 'control', 'shift'] });
    expect(keyEvent('Delete')).toEqual({ keyCode: 'Delete', modifiers: [] });
  });

  it('a GPU worker without CUDA is flagged with the backend it uses and why; CPU workers are not', () => {
    const backends = [
      { name: 'cuda', available: false, reason: 'no CUDA device' },
      { name: 'native-cpu', available: true },
      { name: 'js', available: true },
    ];
    expect(gpuFallback({ kind: 'gpu', backends })).toEqual({ backend: 'native-cpu', reason: 'no CUDA device' });
    expect(gpuFallback({ kind: 'gpu', backends: [{ name: 'cuda', available: true }, ...backends.slice(1)] })).toBeNull();
    expect(gpuFallback({ kind: 'cpu', backends: backends.slice(1) })).toBeNull();
    expect(gpuFallback({ kind: 'gpu', backends: [] })).toBeNull(); // not ready yet: nothing to say
  });
});

describe('utility launcher', () => {
  it('reports child-process-gone’s reason with the exit, matched by service name', async () => {
    let gone: (d: ProcessGoneDetails) => void = () => undefined;
    const exits = new Map<string, Array<(code: number) => void>>();
    const exit = (name: string, code: number) => exits.get(name)?.forEach((fn) => fn(code));
    const names: string[] = [];
    const fake = {
      fork: (_m: string, _a: string[], o: { serviceName: string }): UtilityChild => {
        names.push(o.serviceName);
        exits.set(o.serviceName, []);
        return { pid: 1, postMessage: () => undefined, on: (ev: 'message' | 'exit', fn: (x: never) => void) => void (ev === 'exit' && exits.get(o.serviceName)?.push(fn as (c: number) => void)), kill: () => true };
      },
    };
    const launcher = utilityLauncher(fake, (fn) => (gone = fn));
    const a = launcher.launch({ env: {}, name: 'gpuflow-gpu0' });
    const b = launcher.launch({ env: {}, name: 'gpuflow-gpu0' });
    expect(names[0]).not.toBe(names[1]); // a restarted worker never inherits its predecessor's reason
    const ends: unknown[] = [];
    a.onExit((e) => ends.push(['a', e]));
    b.onExit((e) => ends.push(['b', e]));
    gone({ type: 'Utility', reason: 'oom', exitCode: 137, serviceName: names[0] });
    exit(names[0], 137);
    exit(names[1], 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(ends).toEqual([
      ['a', { code: 137, signal: null, detail: 'oom, exit code 137' }],
      ['b', { code: 0, signal: null }],
    ]);
  });
});
