/**
 * The Electron window's security settings, kept apart from main/app.ts so they can be imported
 * (and tested) without starting Electron: it only names Electron's types (main/electron-api.ts).
 */
import type { BrowserWindowOptions, SessionLike, WebContentsLike } from './electron-api';

export const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";

/** The one window's options: contextIsolation, sandbox, no nodeIntegration, webSecurity on. */
export function windowOptions(preload: string): BrowserWindowOptions {
  return {
    width: 1500,
    height: 950,
    title: 'gpuflow',
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
  };
}

type LockableContents = Pick<WebContentsLike, 'setWindowOpenHandler' | 'on'>;
type LockableSession = SessionLike;

/** Refuses new windows, navigation away from `rendererUrl`, webviews and permission requests; sets the CSP header. */
export function lockDown(wc: LockableContents, ses: LockableSession, rendererUrl: string): void {
  wc.setWindowOpenHandler(() => ({ action: 'deny' }));
  wc.on('will-navigate', (e, url) => {
    if (url !== rendererUrl) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  ses.webRequest.onHeadersReceived((details, cb) => cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } }));
  ses.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
}
