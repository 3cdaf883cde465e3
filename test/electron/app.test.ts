/**
 * The Electron main process, run for real: out/main/app.js under Node with a fake 'electron'
 * (test/electron/harness.ts). One app on two fake GPUs serves the tests in order: window
 * security, one utility process per device, IPC answers against the CLI's, the application menu
 * and files opened from the command line and a second launch, then closing the window. A second
 * app is started with a better-sqlite3 binding that fails as a wrong-ABI build does.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../integration/cli-helpers';
import { isAlive } from '../reliability/helpers';
import { AppProcess, buildApp, fakeNvidiaSmi, ROOT, tempDir } from './harness';

const GPUS = [
  { name: 'Fake GPU A', uuid: 'GPU-11111111-2222-3333-4444-555555555555' },
  { name: 'Fake GPU B', uuid: 'GPU-66666666-7777-8888-9999-000000000000' },
];
const SMALL = { N: 400, chunks: 100 };
const seedDoc = () => JSON.parse(readFileSync(path.join(ROOT, 'examples/seed-benchmark.json'), 'utf8')) as unknown;

interface Fork {
  modulePath: string;
  serviceName: string;
  pid: number;
  cudaVisibleDevices: string | null;
}
interface RunRec {
  id: number;
  status: string;
  resultDigest: string | null;
  replayOf: number | null;
}


async function finished(app: AppProcess, storeId: number): Promise<RunRec> {
  let r: RunRec;
  do {
    await new Promise((res) => setTimeout(res, 200));
    r = await app.call<RunRec>('run', storeId);
  } while (r.status === 'running');
  return r;
}

describe('the main process (out/main/app.js with a fake electron)', { timeout: 180_000 }, () => {
  let app: AppProcess;
  let opened: string;
  let other: string;

  beforeAll(async () => {
    await buildApp();
    const dir = tempDir('gpuflow-electron-files-');
    opened = path.join(dir, 'opened.json');
    other = path.join(dir, 'other.json');
    writeFileSync(opened, JSON.stringify({ ...(seedDoc() as object), name: 'opened at start' }));
    writeFileSync(other, JSON.stringify({ ...(seedDoc() as object), name: 'from a second launch' }));
    app = new AppProcess({ env: { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(dir, GPUS) }, argv: ['--some-chromium-switch', opened] });
    await app.waitFor('loaded');
  }, 600_000);

  afterAll(() => app?.kill());

  it('opens one locked-down window: sandboxed preload from out/, CSP header, no permissions, no navigation or new windows', async () => {
    const win = await app.waitFor<{ webPreferences: Record<string, unknown> }>('window');
    expect(win.webPreferences).toEqual({ preload: path.join(ROOT, 'out/preload/preload.cjs'), contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(existsSync(win.webPreferences.preload as string)).toBe(true);
    const sec = await app.waitFor<{ url: string; headers: Record<string, string[]>; permissionGranted: boolean; windowOpen: string; navigateAwayPrevented: boolean; navigateSelfPrevented: boolean }>('security');
    expect(sec.url).toBe(`file://${path.join(ROOT, 'out/renderer/index.html')}`);
    const csp = sec.headers['Content-Security-Policy'][0];
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/); // no 'unsafe-inline' / 'unsafe-eval' for scripts
    expect(sec.headers['Content-Type']).toEqual(['text/html']); // the page's own headers are kept
    expect(sec).toMatchObject({ permissionGranted: false, windowOpen: 'deny', navigateAwayPrevented: true, navigateSelfPrevented: false });
  });

  it('forks one utility process per discovered GPU plus the CPU worker, from out/main/worker.js', async () => {
    const forks = app.all('fork') as Fork[];
    expect(forks.map((f) => f.serviceName.replace(/#\d+$/, '')).sort()).toEqual(['gpuflow-cpu0', 'gpuflow-gpu0', 'gpuflow-gpu1']);
    for (const f of forks) {
      expect(f.modulePath).toBe(path.join(ROOT, 'out/main/worker.js'));
      expect(existsSync(f.modulePath)).toBe(true);
    }
    const byName = Object.fromEntries(forks.map((f) => [f.serviceName.replace(/#\d+$/, ''), f.cudaVisibleDevices]));
    expect(byName).toEqual({ 'gpuflow-gpu0': GPUS[0].uuid, 'gpuflow-gpu1': GPUS[1].uuid, 'gpuflow-cpu0': '' });
  });

  it("its workers load the native addon the app found from out/ (no GPUFLOW_NATIVE_DIR), and a GPU worker without CUDA says why", async () => {
    const workers = await app.call<Array<{ id: string; backends: Array<{ name: string; available: boolean; reason?: string }> }>>('workers');
    expect(workers.map((w) => w.id).sort()).toEqual(['cpu0', 'gpu0', 'gpu1']);
    for (const w of workers) expect(w.backends.find((b) => b.name === 'native-cpu')).toMatchObject({ available: true });
    const cuda = workers.find((w) => w.id === 'gpu0')?.backends.find((b) => b.name === 'cuda');
    // This machine has no CUDA device behind the fake GPU: the worker must say so, not pretend.
    expect(cuda?.available).toBe(false);
    expect(cuda?.reason).toBeTruthy();
  });

  it('validates through IPC with the same message the CLI prints', async () => {
    const bad = seedDoc() as { params: Record<string, unknown> };
    bad.params.chunks = -1;
    const v = await app.call<{ ok: boolean; errors: string[] }>('validate', bad);
    expect(v.ok).toBe(false);
    const file = path.join(tempDir('gpuflow-bad-'), 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const cli = await runCli(['run', file, '--no-store'], { GPUFLOW_NVIDIA_SMI: '/nonexistent' });
    expect(cli.code).toBe(2);
    expect(v.errors.length).toBeGreaterThan(0);
    for (const e of v.errors) expect(cli.stderr).toContain(e);
    expect(await app.call('validate', seedDoc(), SMALL)).toMatchObject({ ok: true });
  });

  it('runs the seed example, lists it in history and replays it, with the digest `gpuflow run` gets', async () => {
    const cli = await runCli(['run', 'examples/seed-benchmark.json', '--json', '--no-store', '--param', `N=${SMALL.N}`, '--param', `chunks=${SMALL.chunks}`], { GPUFLOW_NVIDIA_SMI: '/nonexistent' });
    expect(cli.code, cli.stderr).toBe(0);
    const digest = (JSON.parse(cli.stdout) as { digest: string }).digest;
    const started = await app.call<{ storeId: number }>('startRun', seedDoc(), SMALL);
    const run = await finished(app, started.storeId);
    expect(run).toMatchObject({ status: 'done', resultDigest: digest });
    const history = await app.call<RunRec[]>('history');
    expect(history.find((h) => h.id === started.storeId)).toMatchObject({ status: 'done', resultDigest: digest });
    const replay = await app.call<{ storeId: number }>('replay', started.storeId);
    expect(await finished(app, replay.storeId)).toMatchObject({ status: 'done', resultDigest: digest, replayOf: started.storeId });
  });

  it('has File, Edit, View, Run and Help menus whose commands press the editor shortcut', async () => {
    const menu = await app.waitFor<Array<{ label: string; submenu: Array<{ label?: string; accelerator?: string; registerAccelerator?: boolean }> }>>('menu');
    expect(menu.map((m) => m.label)).toEqual(['File', 'Edit', 'View', 'Run', 'Help']);
    const run = menu.find((m) => m.label === 'Run')?.submenu.find((i) => i.label === 'Run');
    expect(run).toMatchObject({ accelerator: 'CmdOrCtrl+Enter', registerAccelerator: false });
    const before = app.all('input').length;
    app.clickMenu('Run', 'Run Selected Node');
    expect(await app.waitFor('input', before)).toEqual({ type: 'keyDown', keyCode: 'Enter', modifiers: ['control', 'shift'] });
  });

  it('shows versions and GPUs in About', async () => {
    app.clickMenu('Help', 'About gpuflow');
    const box = await app.waitFor<{ message: string; detail: string }>('message-box');
    expect(box.message).toBe('gpuflow 0.1.0');
    expect(box.detail).toContain(`Node.js ${process.versions.node}`);
    expect(box.detail).toContain('GPU 0: Fake GPU A');
    expect(box.detail).toContain('GPU 1: Fake GPU B');
  });

  it('opens the file given on the command line once the page is up, and a second launch’s file', async () => {
    const n = app.all('input').length;
    app.send('gpuflow:subscribe', 0); // the page mounting
    expect(await app.waitFor('input', n)).toEqual({ type: 'keyDown', keyCode: 'O', modifiers: ['control'] });
    expect(await app.invoke('gpuflow-file:open')).toEqual({ path: opened, text: readFileSync(opened, 'utf8') });
    const focused = app.all('focus').length;
    app.secondInstance(['/usr/bin/gpuflow', path.basename(other)], path.dirname(other));
    await app.waitFor('focus', focused);
    expect(await app.waitFor('input', n + 1)).toEqual({ type: 'keyDown', keyCode: 'O', modifiers: ['control'] });
    expect(await app.invoke('gpuflow-file:open')).toEqual({ path: other, text: readFileSync(other, 'utf8') });
  });

  it('closing the window stops every worker, remembers the bounds and leaves a consistent database', async () => {
    const pids = (app.all('fork') as Fork[]).map((f) => f.pid);
    app.closeWindow();
    expect(await app.exited).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(isAlive(pid), `worker ${pid}`).toBe(false);
    expect(JSON.parse(readFileSync(path.join(app.userData, 'window-state.json'), 'utf8'))).toEqual({ x: 0, y: 0, width: 1500, height: 950, maximized: false });
    const db = new Database(app.db, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const runs = db.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status').all();
      expect(runs).toEqual([{ status: 'done', n: 2 }]);
    } finally {
      db.close();
    }
  });
});

describe('a better-sqlite3 build for another runtime', { timeout: 300_000 }, () => {
  it('is named in a dialog, starts no worker, and exits with the code on which npm start serves instead', async () => {
    await buildApp();
    const app = new AppProcess({ env: { GPUFLOW_SQLITE_BINDING: path.join(ROOT, 'test/electron/fixtures/wrong-abi.cjs') } });
    try {
      const { code } = await app.exited;
      expect(code).toBe(78);
      const box = app.all('error-box')[0] as { title: string; content: string };
      expect(box.title).toBe('gpuflow cannot open its database');
      expect(box.content).toContain('built for NODE_MODULE_VERSION 115');
      expect(box.content).toContain('needs 139');
      expect(box.content).toContain('npx gpuflow serve');
      expect(app.all('fork')).toEqual([]);
    } finally {
      app.kill();
    }
  });
});
