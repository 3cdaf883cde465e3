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
import { lockDown, windowOptions } from './window';

// The window's security settings live in ./window (importable without Electron, for tests).
export { CSP, lockDown, windowOptions } from './window';

const here = path.dirname(fileURLToPath(import.meta.url));

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

async function main() {
  await app.whenReady();
  const svc = await startService();
  const win = new BrowserWindow(windowOptions(path.join(here, '../preload/preload.cjs')));
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
  lockDown(win.webContents, session.defaultSession, url);
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
