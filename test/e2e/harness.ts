/**
 * What the e2e tests need around the browser: the renderer built once (out/renderer, rebuilt when
 * a renderer source is newer), a `gpuflow serve` child on a free port with a random token and a
 * throwaway database, and Debian's Chromium through playwright-core. With CI set, a missing
 * Chromium is a failure, not a skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureBuilt } from '../helpers/build-once';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CHROMIUM = process.env.GPUFLOW_CHROMIUM ?? '/usr/bin/chromium';

/** Skip only outside CI; in CI a missing browser must fail the suite. */
export function browserMissing(): boolean {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.CI) throw new Error(`e2e: Chromium not found at ${CHROMIUM}; CI must install it (apt-get install -y chromium)`);
  return true;
}

/** Builds out/renderer when a renderer or common source is newer (test/helpers/build-once.ts). */
export function ensureRendererBuilt(): Promise<void> {
  return ensureBuilt(['renderer', 'common'], ['out/renderer/index.html']);
}

export interface Server {
  url: string;
  origin: string;
  token: string;
  db: string;
  stop(): Promise<void>;
}

export async function startServer(args: string[] = ['--virtual-gpus', '3']): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-e2e-'));
  const db = path.join(dir, 'e2e.db');
  // Passed as --token=<t>: a base64url token starts with '-' one time in 64, and `--token <t>` then
  // reads as a missing value (CI saw serve exit 2).
  const token = randomBytes(18).toString('base64url');
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/gpuflow.mjs'), 'serve', '--port', '0', `--token=${token}`, '--db', db, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /gpuflow serve: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`gpuflow serve exited with ${code} before printing its URL:\n${out}\n${err}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    token,
    db,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** What the CLI prints for a workflow: the independent oracle for the UI's result. */
export function cliRun(file: string, params: Record<string, number>): { status: string; digest: string; results: Record<string, unknown> } {
  const args = [path.join(ROOT, 'bin/gpuflow.mjs'), 'run', file, '--json', '--no-store'];
  for (const [k, v] of Object.entries(params)) args.push('--param', `${k}=${v}`);
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out) as { status: string; digest: string; results: Record<string, unknown> };
}

export interface App {
  server: Server;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** The renderer built, a `serve` child with `serveArgs`, Chromium on its page with the palette drawn; dialogs accepted. */
export async function openApp(serveArgs: string[] = ['--virtual-gpus', '3']): Promise<App> {
  await ensureRendererBuilt();
  const [server, browser] = await Promise.all([startServer(serveArgs), launchBrowser()]);
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 }, acceptDownloads: true });
  page.on('dialog', (d) => void d.accept());
  await page.goto(server.url);
  await page.locator('[data-op="random_normal"]').waitFor();
  return {
    server,
    browser,
    page,
    async close() {
      await browser.close();
      await server.stop();
    },
  };
}
