/**
 * The Electron app: starts the engine with workers as utilityProcesses, opens one locked-down
 * window (contextIsolation, sandbox, no nodeIntegration, navigation and new windows refused, CSP),
 * and wires the IPC API (main/ipc-handlers.ts) and file dialogs. Thin on purpose: everything else
 * is the same service `gpuflow serve` uses.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserWindow, app, dialog, ipcMain, session, utilityProcess, type WebContents } from 'electron';
import { GpuflowService } from './api/service';
import { discover } from './cluster/discovery';
import { utilityLauncher } from './cluster/utility-launcher';
import { Engine } from './engine/engine';
import { registerIpc } from './ipc-handlers';
import { defaultDbPath, openStore } from './store';

const here = path.dirname(fileURLToPath(import.meta.url));
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";

async function startService(): Promise<GpuflowService> {
  const discovery = await discover();
  const launcher = utilityLauncher(utilityProcess);
  const virtualGpus = Number(process.env.GPUFLOW_VIRTUAL_GPUS ?? 0) || 0;
  const engine = new Engine(discovery, { launcher, useGpus: true, virtualGpus, cpuWorkers: 1, threadsPerCpuWorker: 1 });
  const store = openStore(process.env.GPUFLOW_DB ?? defaultDbPath(app.getPath('userData')));
  store.markInterrupted();
  await engine.start();
  return new GpuflowService(engine, store, { launcher, virtualGpus });
}

function lockDown(win: BrowserWindow, rendererUrl: string) {
  const wc = win.webContents;
  wc.setWindowOpenHandler(() => ({ action: 'deny' }));
  wc.on('will-navigate', (e, url) => {
    if (url !== rendererUrl) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } }));
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
}

async function main() {
  await app.whenReady();
  const svc = await startService();
  const win = new BrowserWindow({
    width: 1500,
    height: 950,
    title: 'gpuflow',
    webPreferences: { preload: path.join(here, '../preload/preload.cjs'), contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
  });
  const trusted = (wc: WebContents) => wc.id === win.webContents.id;
  const unregister = registerIpc(ipcMain, svc, trusted);
  ipcMain.handle('gpuflow-file:open', async (ev) => {
    if (!trusted(ev.sender)) return null;
    const r = await dialog.showOpenDialog(win, { filters: [{ name: 'gpuflow workflow', extensions: ['json'] }], properties: ['openFile'] });
    if (r.canceled || !r.filePaths[0]) return null;
    return { path: r.filePaths[0], text: await readFile(r.filePaths[0], 'utf8') };
  });
  ipcMain.handle('gpuflow-file:save', async (ev, text: unknown, file: unknown) => {
    if (!trusted(ev.sender) || typeof text !== 'string') return null;
    let target = typeof file === 'string' && path.isAbsolute(file) ? file : null;
    if (!target) {
      const r = await dialog.showSaveDialog(win, { filters: [{ name: 'gpuflow workflow', extensions: ['json'] }], defaultPath: 'workflow.json' });
      if (r.canceled || !r.filePath) return null;
      target = r.filePath;
    }
    await writeFile(target, text);
    return target;
  });
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  const url = devUrl ?? `file://${path.join(here, '../renderer/index.html')}`;
  lockDown(win, url);
  await win.loadURL(url);
  app.on('window-all-closed', () => {
    unregister();
    void svc.close().finally(() => app.quit());
  });
}

main().catch((e: unknown) => {
  dialog.showErrorBox('gpuflow could not start', e instanceof Error ? (e.stack ?? e.message) : String(e));
  app.exit(1);
});
