/**
 * The cross-origin attack of issue 19 in a real browser: a page served from another 127.0.0.1
 * port, opened in the same Chromium that holds serve's cookie (the user opened serve's URL
 * first), sends the no-cors `text/plain` POST to /api/runs with credentials. Serve must answer
 * 403 and start nothing: the store's history stays empty. The page's fetch is opaque to the page,
 * so the status is read from the browser's network events.
 */
import http from 'node:http';
import path from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser } from '../e2e/harness';
import { api, figures, seedDoc, startServe, tempDir, type Serving } from './helpers';

const skip = browserMissing();
let s: Serving;
let dir: string;
let evil: http.Server;

beforeAll(async () => {
  if (skip) return;
  dir = tempDir();
  // A stand-in UI: what matters is that opening it gives the browser serve's cookie.
  mkdirSync(path.join(dir, 'ui'));
  writeFileSync(path.join(dir, 'ui/index.html'), '<!doctype html><title>gpuflow</title>');
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_RENDERER_DIR: path.join(dir, 'ui') });
  const body = JSON.stringify({ doc: { ...seedDoc(), params: { N: 200, chunks: 100, seed: 0, dtype: 'float64' } } });
  // The attacker's page: on load it fires the request serve used to obey.
  const page = `<!doctype html><script>
    fetch('${s.base}/api/runs', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(body)} })
      .then(() => (document.title = 'sent'), (e) => (document.title = 'error ' + e));
  </script>`;
  evil = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
}, 90_000);

afterAll(async () => {
  await new Promise((r) => (evil ? evil.close(r) : r(undefined)));
  await s?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)('serve: a page on another port in Chromium', () => {
  it('cannot start a run: its no-cors text/plain POST gets 403 and the history stays empty', async () => {
    const browser = await launchBrowser();
    try {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      // The user has serve's UI open: the browser now holds its cookie.
      const ui = await page.goto(`${s.base}/?token=${s.token}`);
      const cookies = await ctx.cookies(s.base);
      const response = page.waitForResponse(`${s.base}/api/runs`, { timeout: 20_000 });
      const evilPort = (evil.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${evilPort}/`);
      const statuses = [(await response).status()];
      await page.waitForFunction("document.title !== ''", undefined, { timeout: 20_000 });
      const title = await page.title();
      const history = await api(s, 'GET', '/api/runs');
      figures('serve-cross-origin-browser', { uiStatus: ui?.status(), cookieNames: cookies.map((c) => c.name), pageResult: title, apiRunsStatuses: statuses, runsInHistory: (history.json as unknown[]).length });
      expect(cookies.map((c) => c.name)).toContain(`gpuflow_token_${s.port}`);
      expect(title).toBe('sent');
      expect(statuses).toEqual([403]);
      expect(history.status).toBe(200);
      expect(history.json).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
