/**
 * The part of Electron's main-process API the app uses, as structural types of our own.
 *
 * Why not `import ... from 'electron'`: Electron is an optional dependency (its postinstall
 * downloads a binary from GitHub, which fails on machines behind an npm mirror, and npm then
 * removes the package), so its type definitions are not always installed; the app must still
 * type-check and build there. Naming only what we call also makes this the exact contract the
 * main-process test harness's fake `electron` (test/electron/fake-electron/) implements, checked
 * by the compiler on both sides. The real module is loaded at run time by main/app.ts.
 */

export interface IpcEventSender {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
  once(event: 'destroyed', fn: () => void): void;
}

export interface IpcMainInvokeEvent {
  sender: IpcEventSender;
}

export interface IpcMainLike {
  handle(channel: string, fn: (ev: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
  on(channel: string, fn: (ev: IpcMainInvokeEvent, ...args: unknown[]) => void): void;
  removeListener(channel: string, fn: (ev: IpcMainInvokeEvent, ...args: unknown[]) => void): void;
}

export interface WebPreferences {
  preload: string;
  contextIsolation: boolean;
  sandbox: boolean;
  nodeIntegration: boolean;
  webSecurity: boolean;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  x?: number;
  y?: number;
  title: string;
  show?: boolean;
  icon?: string;
  webPreferences: WebPreferences;
}

export interface NavigationEvent {
  preventDefault(): void;
}

export interface HeadersDetails {
  responseHeaders?: Record<string, string[] | string>;
}

export interface WebContentsLike extends IpcEventSender {
  setWindowOpenHandler(fn: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
  on(event: 'will-navigate', fn: (e: NavigationEvent, url: string) => void): void;
  on(event: 'will-attach-webview', fn: (e: NavigationEvent) => void): void;
  on(event: 'render-process-gone', fn: (e: unknown, details: { reason: string; exitCode: number }) => void): void;
  sendInputEvent(e: { type: 'keyDown' | 'keyUp'; keyCode: string; modifiers: Array<'control' | 'meta' | 'shift'> }): void;
  toggleDevTools(): void;
  reload(): void;
}

export interface SessionLike {
  webRequest: {
    onHeadersReceived(fn: (details: HeadersDetails, cb: (r: { responseHeaders: Record<string, string[] | string> }) => void) => void): void;
  };
  setPermissionRequestHandler(fn: (wc: unknown, permission: string, cb: (granted: boolean) => void) => void): void;
}

export interface BrowserWindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  on(event: 'close' | 'closed' | 'resize' | 'move', fn: () => void): void;
  getNormalBounds(): Rectangle;
  isMaximized(): boolean;
  maximize(): void;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
  isDestroyed(): boolean;
  close(): void;
}

export type BrowserWindowCtor = new (options: BrowserWindowOptions) => BrowserWindowLike;

export interface FileFilter {
  name: string;
  extensions: string[];
}

export interface DialogLike {
  showOpenDialog(win: BrowserWindowLike, o: { filters: FileFilter[]; properties: Array<'openFile'> }): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSaveDialog(win: BrowserWindowLike, o: { filters: FileFilter[]; defaultPath: string }): Promise<{ canceled: boolean; filePath?: string }>;
  showMessageBox(win: BrowserWindowLike | null, o: { type: 'info' | 'error'; title: string; message: string; detail: string; buttons: string[] }): Promise<{ response: number }>;
  showErrorBox(title: string, content: string): void;
}

export interface MenuItemOptions {
  label?: string;
  role?: string;
  type?: 'separator' | 'normal';
  accelerator?: string;
  /** false: the accelerator is shown but the key still goes to the page. */
  registerAccelerator?: boolean;
  click?: () => void;
  submenu?: MenuItemOptions[];
}

export interface MenuLike {
  buildFromTemplate(template: MenuItemOptions[]): unknown;
  setApplicationMenu(menu: unknown): void;
}

export interface ProcessGoneDetails {
  type: string;
  reason: string;
  exitCode: number;
  serviceName?: string;
  name?: string;
}

export interface AppLike {
  whenReady(): Promise<void>;
  getPath(name: 'userData'): string;
  getVersion(): string;
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', fn: (e: unknown, argv: string[], cwd: string) => void): void;
  on(event: 'window-all-closed' | 'before-quit', fn: () => void): void;
  on(event: 'child-process-gone', fn: (e: unknown, details: ProcessGoneDetails) => void): void;
  on(event: 'open-file', fn: (e: NavigationEvent, path: string) => void): void;
  quit(): void;
  exit(code: number): void;
}

export interface UtilityChild {
  pid: number | undefined;
  postMessage(msg: unknown): void;
  on(event: 'message', fn: (msg: unknown) => void): void;
  on(event: 'exit', fn: (code: number) => void): void;
  kill(): boolean;
}

export interface UtilityProcessLike {
  fork(modulePath: string, args: string[], options: { env: NodeJS.ProcessEnv; serviceName: string; stdio: 'inherit' }): UtilityChild;
}

/** `require('electron')` in the main process, as far as gpuflow uses it. */
export interface ElectronMain {
  app: AppLike;
  BrowserWindow: BrowserWindowCtor;
  ipcMain: IpcMainLike;
  dialog: DialogLike;
  session: { defaultSession: SessionLike };
  Menu: MenuLike;
  utilityProcess: UtilityProcessLike;
}

/** The preload's side (sandboxed renderer): contextBridge and ipcRenderer. */
export interface ElectronPreload {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    send(channel: string, ...args: unknown[]): void;
    on(channel: string, fn: (e: unknown, ...args: unknown[]) => void): void;
  };
}
