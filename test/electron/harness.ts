/**
 * Runs the built main bundle (out/main/app.js) under Node with the fake 'electron'
 * (fake-electron/), as a child process the test talks to: it plays the window's renderer (ipc
 * invokes with the window as sender), clicks menu items, closes the window, and reads what the
 * app did from the fake's events. Workers are real forks of out/main/worker.js. One
 * `electron-vite build` serves every test (test/helpers/build-once.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBuilt, ROOT } from '../helpers/build-once';
import type { FromApp, ToApp } from './fake-electron/protocol';

export { ROOT };

export function buildApp(): Promise<void> {
  return ensureBuilt(['main', 'worker', 'common', 'renderer'], ['out/main/app.js', 'out/main/worker.js', 'out/preload/preload.cjs', 'out/renderer/index.html']);
}

/** A fake nvidia-smi listing these GPUs (name, UUID); the pool starts one worker per GPU. */
export function fakeNvidiaSmi(dir: string, gpus: Array<{ name: string; uuid: string }>): string {
  const list = path.join(dir, 'gpus.csv');
  writeFileSync(list, gpus.map((g, i) => `${i}, ${g.uuid}, ${g.name}, 16000, 0, 0, 00000000:0${i + 1}:00.0, 550.00\n`).join(''));
  const smi = path.join(dir, 'nvidia-smi');
  writeFileSync(smi, `#!/bin/sh\ncat '${list}'\n`);
  chmodSync(smi, 0o755);
  return smi;
}

export interface AppEvent {
  name: string;
  data: unknown;
}

export class AppProcess {
  readonly events: AppEvent[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  readonly userData: string;
  readonly db: string;
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly replies = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly waiters: Array<() => void> = [];

  constructor(opts: { env?: Record<string, string>; argv?: string[] } = {}) {
    this.userData = mkdtempSync(path.join(tmpdir(), 'gpuflow-electron-'));
    this.db = path.join(this.userData, 'gpuflow.db');
    const env: NodeJS.ProcessEnv = { ...process.env, FAKE_ELECTRON_USER_DATA: this.userData, GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi', ...opts.env };
    // The app must find the addon from its own location, not be told.
    delete env.GPUFLOW_NATIVE_DIR;
    delete env.GPUFLOW_DB;
    delete env.GPUFLOW_DEVICES;
    const register = path.join(ROOT, 'test/electron/fake-electron/register.mjs');
    this.child = fork(path.join(ROOT, 'out/main/app.js'), opts.argv ?? [], {
      cwd: ROOT,
      env,
      // The fake first: hooks registered later run first, so tsx resolves 'electron' through it and loads the .ts.
      execArgv: ['--import', register, '--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.child.on('message', (raw) => {
      const m = raw as FromApp;
      if (m.type === 'reply') {
        const r = this.replies.get(m.id);
        this.replies.delete(m.id);
        if (m.ok) r?.resolve(m.value);
        else r?.reject(new Error(m.error));
      } else {
        this.events.push({ name: m.name, data: m.data });
        for (const w of this.waiters.splice(0)) w();
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  private post(m: ToApp): void {
    this.child.send(m);
  }

  /** Calls an ipcMain.handle handler as the window's renderer would (ipcRenderer.invoke). */
  invoke<T>(channel: string, ...args: unknown[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.replies.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ type: 'invoke', id, channel, args });
    });
  }

  /** gpuflow's API method over IPC, as the preload calls it. */
  call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.invoke<T>(`gpuflow:${method}`, ...args);
  }

  send(channel: string, ...args: unknown[]): void {
    this.post({ type: 'send', channel, args });
  }

  clickMenu(menu: string, label: string): void {
    this.post({ type: 'menu-click', menu, label });
  }

  secondInstance(argv: string[], cwd: string): void {
    this.post({ type: 'second-instance', argv, cwd });
  }

  closeWindow(): void {
    this.post({ type: 'close-window' });
  }

  all(name: string): unknown[] {
    return this.events.filter((e) => e.name === name).map((e) => e.data);
  }

  /** The first event `name` (after `after` such events) once it has come; rejects if the app exits first. */
  async waitFor<T>(name: string, after = 0): Promise<T> {
    let gone = false;
    void this.exited.then(() => {
      gone = true;
      for (const w of this.waiters.splice(0)) w();
    });
    for (;;) {
      const hit = this.all(name)[after];
      if (hit !== undefined) return hit as T;
      if (gone) throw new Error(`the app exited before '${name}'\n${this.stderr}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));
