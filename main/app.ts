/**
 * The Electron app: starts the engine with workers as utilityProcesses, opens one locked-down
 * window (contextIsolation, sandbox, no nodeIntegration, navigation and new windows refused, CSP),
 * and wires the IPC API (main/ipc-handlers.ts), file dialogs, the application menu, the About box,
 * one instance per user (a second launch hands its file to the first), and remembered window
 * bounds. Everything else is the same service `gpuflow serve` uses.
 *
 * Electron is loaded at run time and typed by main/electron-api.ts (it is an optional
 * dependency); the main-process tests run this bundle under Node with a fake 'electron'
 * (test/electron/). A native module that cannot load in this runtime is named in a dialog and
 * the app exits with EXIT_NATIVE_MODULE, on which `npm start` serves in the browser instead.
 */
import { readFile } from 'node:fs/promises';
import { writeFileNoFollow } from '../common/safe-files';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GpuflowService } from './api/service';
import { discover } from './cluster/discovery';
import { utilityLauncher } from './cluster/utility-launcher';
import { aboutText } from './desktop/about';
import { filesFromArgv } from './desktop/argv';
import { menuTemplate, keyEvent } from './desktop/menu';
import { EXIT_NATIVE_MODULE, NativeModuleError, sqliteBinding } from './desktop/native-modules';
import { loadWindowState, saveWindowState, windowStateFile } from './desktop/window-state';
import type { BrowserWindowLike, ElectronMain, IpcMainInvokeEvent } from './electron-api';
import { Engine } from './engine/engine';
import { CHANNEL, registerIpc } from './ipc-handlers';
import { defaultDbPath, openStore, type Store } from './store';
import { lockDown, windowOptions } from './window';

// The window's security settings live in ./window (importable without Electron, for tests).
export { CSP, lockDown, windowOptions } from './window';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The app's root (the project, or resources/app.asar when packaged) and where its unpacked files are. */
const appRoot = path.resolve(here, '../..');
const unpackedRoot = appRoot.replace(/app\.asar$/, 'app.asar.unpacked');

const WORKFLOW_FILTERS = [{ name: 'gpuflow workflow', extensions: ['json', 'gpuflow'] }];

async function loadElectron(): Promise<ElectronMain> {
  const id = 'electron'; // a variable: the type comes from electron-api.ts, not the package
  const ns = (await import(id)) as { default?: ElectronMain } & ElectronMain;
  return ns.default ?? ns;
}

function openTheStore(electron: ElectronMain): Store {
  const nativeBinding = sqliteBinding(unpackedRoot);
  return openStore(process.env.GPUFLOW_DB ?? defaultDbPath(electron.app.getPath('userData')), nativeBinding ? { nativeBinding } : {});
}

async function startService(electron: ElectronMain, store: Store): Promise<GpuflowService> {
  const discovery = await discover();
  const launcher = utilityLauncher(electron.utilityProcess, (fn) => electron.app.on('child-process-gone', (_e, d) => fn(d)));
  const virtualGpus = Number(process.env.GPUFLOW_VIRTUAL_GPUS ?? 0) || 0;
  const engine = new Engine(discovery, { launcher, useGpus: true, virtualGpus, cpuWorkers: 1, threadsPerCpuWorker: 1 });
  store.markInterrupted();
  await engine.start();
  return new GpuflowService(engine, store, { launcher, virtualGpus });
}

async function main(electron: ElectronMain): Promise<void> {
  const { app, dialog, ipcMain } = electron;
  // One instance: a second launch hands its file to this one and quits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const pending = filesFromArgv(process.argv, process.cwd());
  let win: BrowserWindowLike | null = null;
  let rendererReady = false;
  const press = (keys: string) => {
    if (win && !win.isDestroyed()) win.webContents.sendInputEvent({ type: 'keyDown', ...keyEvent(keys) });
  };
  // A file to open goes through the renderer's own Open (Ctrl+O), so its unsaved-changes check
  // applies; the open handler below then answers with the file instead of a dialog.
  const openFile = (file: string) => {
    pending.push(file);
    if (rendererReady) press('Mod+O');
  };
  app.on('second-instance', (_e, argv, cwd) => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
    for (const f of filesFromArgv(argv, cwd)) openFile(f);
  });
  app.on('open-file', (e, file) => {
    e.preventDefault();
    openFile(file);
  });
  await app.whenReady();

  let store: Store;
  try {
    store = openTheStore(electron);
  } catch (e) {
    if (!(e instanceof NativeModuleError)) throw e;
    dialog.showErrorBox('gpuflow cannot open its database', e.message);
    process.stderr.write(`gpuflow: ${e.message}\n`);
    app.exit(EXIT_NATIVE_MODULE);
    return;
  }
  const svc = await startService(electron, store);

  const stateFile = windowStateFile(app.getPath('userData'));
  const saved = loadWindowState(stateFile);
  const opts = windowOptions(path.join(here, '../preload/preload.cjs'));
  win = new electron.BrowserWindow(saved ? { ...opts, x: saved.x, y: saved.y, width: saved.width, height: saved.height } : opts);
  const window = win;
  if (saved?.maximized) window.maximize();
  window.on('close', () => saveWindowState(stateFile, window.getNormalBounds(), window.isMaximized()));
  window.webContents.on('render-process-gone', (_e, d) => process.stderr.write(`gpuflow: the window's renderer ended (${d.reason}, exit code ${d.exitCode})\n`));

  const trusted = (wc: { id: number }) => wc.id === window.webContents.id;
  const unregister = registerIpc(ipcMain, svc, trusted);
  const onSubscribe = (ev: IpcMainInvokeEvent) => {
    if (!trusted(ev.sender) || rendererReady) return;
    rendererReady = true;
    // The page subscribes when it mounts; its shortcut handler is installed in the same pass.
    if (pending.length) setTimeout(() => press('Mod+O'), 100);
  };
  ipcMain.on(CHANNEL.subscribe, onSubscribe);
  ipcMain.handle('gpuflow-file:open', async (ev) => {
    if (!trusted(ev.sender)) return null;
    let file = pending.shift();
    if (!file) {
      const r = await dialog.showOpenDialog(window, { filters: WORKFLOW_FILTERS, properties: ['openFile'] });
      if (r.canceled || !r.filePaths[0]) return null;
      file = r.filePaths[0];
    }
    return { path: file, text: await readFile(file, 'utf8') };
  });
  ipcMain.handle('gpuflow-file:save', async (ev, text: unknown, file: unknown) => {
    if (!trusted(ev.sender) || typeof text !== 'string') return null;
    let target = typeof file === 'string' && path.isAbsolute(file) ? file : null;
    if (!target) {
      const r = await dialog.showSaveDialog(window, { filters: WORKFLOW_FILTERS, defaultPath: 'workflow.json' });
      if (r.canceled || !r.filePath) return null;
      target = r.filePath;
    }
    // Replaces a link at the target instead of writing through it (common/safe-files.ts).
    writeFileNoFollow(target, text, { checked: false });
    return target;
  });

  const about = () => {
    const t = aboutText(app.getVersion(), process.versions, svc.devices());
    void dialog.showMessageBox(window, { type: 'info', title: 'About gpuflow', message: t.message, detail: t.detail, buttons: ['OK'] });
  };
  const { Menu } = electron;
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({ press, about, toggleDevTools: () => window.webContents.toggleDevTools(), reload: () => window.webContents.reload(), quit: () => window.close() })));

  const devUrl = process.env.ELECTRON_RENDERER_URL;
  const url = devUrl ?? `file://${path.join(here, '../renderer/index.html')}`;
  lockDown(win.webContents, electron.session.defaultSession, url);
  app.on('window-all-closed', () => {
    unregister();
    ipcMain.removeListener(CHANNEL.subscribe, onSubscribe);
    ipcMain.removeHandler('gpuflow-file:open');
    ipcMain.removeHandler('gpuflow-file:save');
    void svc.close().finally(() => app.quit());
  });
  await window.loadURL(url);
}

loadElectron().then(
  (electron) =>
    main(electron).catch((e: unknown) => {
      electron.dialog.showErrorBox('gpuflow could not start', e instanceof Error ? (e.stack ?? e.message) : String(e));
      electron.app.exit(1);
    }),
  (e: unknown) => {
    process.stderr.write(`gpuflow: out/main/app.js runs inside Electron (npm start); Electron could not be loaded: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
