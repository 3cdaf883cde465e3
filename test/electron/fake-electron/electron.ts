/**
 * A fake 'electron' for running the built main bundle (out/main/app.js) under Node: the part of
 * Electron's API the app uses (main/electron-api.ts, which this implements and the compiler checks),
 * recording what the app does and reporting it to the test over the process's IPC channel
 * (./protocol.ts). utilityProcess is child_process.fork, so the workers are the real bundled
 * worker.js; their child side talks over process.send, as worker/channel.ts allows.
 *
 * The window: the page never loads; the test plays the renderer by invoking the registered ipcMain
 * handlers with the window's webContents as sender.
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type {
  AppLike,
  BrowserWindowLike,
  BrowserWindowOptions,
  DialogLike,
  ElectronMain,
  HeadersDetails,
  IpcMainInvokeEvent,
  IpcMainLike,
  MenuItemOptions,
  NavigationEvent,
  ProcessGoneDetails,
  SessionLike,
  UtilityChild,
  WebContentsLike,
} from '../../../main/electron-api';
import type { FromApp, ToApp } from './protocol';

function emit(name: string, data: unknown): void {
  const m: FromApp = { type: 'event', name, data };
  process.send?.(m);
}

const appEvents = new EventEmitter();

class FakeWebContents extends EventEmitter implements WebContentsLike {
  readonly id = 1;
  destroyed = false;
  openHandler: ((d: { url: string }) => { action: 'deny' | 'allow' }) | null = null;
  sent = 0;
  isDestroyed(): boolean {
    return this.destroyed;
  }
  send(channel: string): void {
    if (channel === 'gpuflow:message') this.sent++;
  }
  setWindowOpenHandler(fn: (d: { url: string }) => { action: 'deny' | 'allow' }): void {
    this.openHandler = fn;
  }
  sendInputEvent(e: { type: 'keyDown' | 'keyUp'; keyCode: string; modifiers: Array<'control' | 'meta' | 'shift'> }): void {
    emit('input', e);
  }
  toggleDevTools(): void {}
  reload(): void {}
}

const headerHandlers: Array<(d: HeadersDetails, cb: (r: { responseHeaders: Record<string, string[] | string> }) => void) => void> = [];
let permissionHandler: ((wc: unknown, permission: string, cb: (granted: boolean) => void) => void) | null = null;
const session: SessionLike = {
  webRequest: { onHeadersReceived: (fn) => void headerHandlers.push(fn) },
  setPermissionRequestHandler: (fn) => void (permissionHandler = fn),
};

let theWindow: FakeWindow | null = null;

class FakeWindow extends EventEmitter implements BrowserWindowLike {
  readonly webContents = new FakeWebContents();
  private destroyed = false;
  constructor(readonly options: BrowserWindowOptions) {
    super();
    theWindow = this;
    emit('window', options);
  }
  /** What the app's lock-down does to a page: the test reads it from the 'security' event. */
  async loadURL(url: string): Promise<void> {
    let headers: Record<string, string[] | string> = {};
    for (const h of headerHandlers) h({ responseHeaders: { 'Content-Type': ['text/html'] } }, (r) => (headers = r.responseHeaders));
    let granted: boolean | null = null;
    permissionHandler?.(this.webContents, 'media', (g) => (granted = g));
    const navigate = (to: string) => {
      let prevented = false;
      const ev: NavigationEvent = { preventDefault: () => void (prevented = true) };
      this.webContents.emit('will-navigate', ev, to);
      return prevented;
    };
    emit('security', {
      url,
      headers,
      permissionGranted: granted,
      windowOpen: this.webContents.openHandler?.({ url: 'https://example.com/' }).action ?? null,
      navigateAwayPrevented: navigate('https://example.com/'),
      navigateSelfPrevented: navigate(url),
    });
    emit('loaded', { url });
  }
  getNormalBounds() {
    return { x: this.options.x ?? 0, y: this.options.y ?? 0, width: this.options.width, height: this.options.height };
  }
  isMaximized(): boolean {
    return false;
  }
  maximize(): void {}
  isMinimized(): boolean {
    return false;
  }
  restore(): void {}
  focus(): void {
    emit('focus', {});
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  close(): void {
    if (this.destroyed) return;
    this.emit('close');
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.webContents.emit('destroyed');
    this.emit('closed');
    appEvents.emit('window-all-closed');
  }
}

const handlers = new Map<string, (ev: IpcMainInvokeEvent, ...args: unknown[]) => unknown>();
const listeners = new EventEmitter();
const ipcMain: IpcMainLike = {
  handle: (channel, fn) => void handlers.set(channel, fn),
  removeHandler: (channel) => void handlers.delete(channel),
  on: (channel, fn) => void listeners.on(channel, fn),
  removeListener: (channel, fn) => void listeners.removeListener(channel, fn),
};

const dialog: DialogLike = {
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  showSaveDialog: async () => ({ canceled: true }),
  showMessageBox: async (_w, o) => {
    emit('message-box', o);
    return { response: 0 };
  },
  showErrorBox: (title, content) => emit('error-box', { title, content }),
};

let menu: MenuItemOptions[] = [];

const app: AppLike = {
  whenReady: () => Promise.resolve(),
  getPath: () => process.env.FAKE_ELECTRON_USER_DATA ?? '/nonexistent',
  getVersion: () => '0.1.0',
  requestSingleInstanceLock: () => process.env.FAKE_ELECTRON_SECOND_INSTANCE !== '1',
  on: (event: string, fn: (...a: never[]) => void) => void appEvents.on(event, fn as (...a: unknown[]) => void),
  quit() {
    emit('quit', {});
    setImmediate(() => process.exit(0));
  },
  exit(code: number) {
    emit('exit', { code });
    setImmediate(() => process.exit(code));
  },
};

const children = new Set<ReturnType<typeof fork>>();

function forkUtility(modulePath: string, args: string[], options: { env: NodeJS.ProcessEnv; serviceName: string }): UtilityChild {
  const child = fork(modulePath, args, { env: options.env, execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  emit('fork', { modulePath, args, serviceName: options.serviceName, pid: child.pid, cudaVisibleDevices: options.env.CUDA_VISIBLE_DEVICES ?? null });
  child.on('exit', (code, signal) => {
    children.delete(child);
    // Electron reports an abnormal end through app's child-process-gone as well as the exit code.
    if (code !== 0) {
      const d: ProcessGoneDetails = { type: 'Utility', reason: signal === 'SIGKILL' ? 'killed' : 'crashed', exitCode: code ?? 9, serviceName: options.serviceName };
      appEvents.emit('child-process-gone', {}, d);
    }
    emit('utility-exit', { pid: child.pid, code, signal, serviceName: options.serviceName });
  });
  return {
    get pid() {
      return child.pid;
    },
    postMessage: (msg) => {
      if (child.connected) child.send(msg as Parameters<typeof child.send>[0]);
    },
    on: (event: 'message' | 'exit', fn: (x: never) => void) => {
      if (event === 'message') child.on('message', fn as (m: unknown) => void);
      else child.on('exit', (code) => (fn as (c: number) => void)(code ?? 1));
    },
    kill: () => child.kill('SIGTERM'),
  };
}

const electron: ElectronMain = {
  app,
  BrowserWindow: FakeWindow,
  ipcMain,
  dialog,
  session: { defaultSession: session },
  Menu: {
    buildFromTemplate: (t) => t,
    setApplicationMenu: (m) => {
      menu = m as MenuItemOptions[];
      const strip = (items: MenuItemOptions[]): unknown[] =>
        items.map((i) => ({ label: i.label, accelerator: i.accelerator, registerAccelerator: i.registerAccelerator, type: i.type, submenu: i.submenu ? strip(i.submenu) : undefined }));
      emit('menu', strip(menu));
    },
  },
  utilityProcess: { fork: forkUtility },
};

// The test drives the app: ipc calls as the window's renderer, menu clicks, closing, a second launch.
process.on('message', (raw: unknown) => {
  const m = raw as ToApp;
  const sender = theWindow?.webContents;
  if (m.type === 'invoke') {
    const fn = handlers.get(m.channel);
    const reply = (r: FromApp) => process.send?.(r);
    if (!fn || !sender) return reply({ type: 'reply', id: m.id, ok: false, error: `no handler for ${m.channel}` });
    Promise.resolve()
      .then(() => fn({ sender }, ...m.args))
      .then(
        (value) => reply({ type: 'reply', id: m.id, ok: true, value }),
        (e: unknown) => reply({ type: 'reply', id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
  } else if (m.type === 'send' && sender) listeners.emit(m.channel, { sender }, ...m.args);
  else if (m.type === 'close-window') theWindow?.close();
  else if (m.type === 'menu-click') menu.find((x) => x.label === m.menu)?.submenu?.find((x) => x.label === m.label)?.click?.();
  else if (m.type === 'second-instance') appEvents.emit('second-instance', {}, m.argv, m.cwd);
});

export default electron;
