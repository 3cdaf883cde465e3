/**
 * Opening and saving workflow files: native dialogs through the preload in Electron, a file input
 * and a download in the browser. Framework-free.
 */
import type { PreloadApi } from '../api/ipc-client';

export interface OpenedFile {
  path: string;
  text: string;
}

function browserOpen(): Promise<OpenedFile | null> {
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = '.json,application/json';
    input.setAttribute('data-testid', 'open-file-input');
    input.style.display = 'none';
    input.onchange = async () => {
      const f = input.files?.[0];
      input.remove();
      resolve(f ? { path: f.name, text: await f.text() } : null);
    };
    input.oncancel = () => {
      input.remove();
      resolve(null);
    };
    document.body.appendChild(input);
    input.click();
  });
}

function browserSave(text: string, name: string): string {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name.endsWith('.json') ? name : `${name}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return a.download;
}

export function fileAccess(desktop: PreloadApi | null) {
  return {
    open: (): Promise<OpenedFile | null> => (desktop ? desktop.openWorkflow() : browserOpen()),
    /** Saves to `path` (or asks where when null / in the browser); returns the name used, null when cancelled. */
    async save(text: string, path: string | null, suggested: string): Promise<string | null> {
      if (desktop) return desktop.saveWorkflow(text, path);
      return browserSave(text, path ?? suggested);
    },
  };
}
