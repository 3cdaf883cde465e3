/**
 * GpuflowApi inside Electron: the preload (main/preload.ts) exposes `window.gpuflow`, whose methods
 * are already the API's over ipcRenderer.invoke; this wraps it so IPC errors read like HTTP ones.
 */
import type { GpuflowApi } from '../../common/api';
import { ApiError } from './api-error';

/** What the preload adds beyond the API: native file dialogs. */
export interface DesktopFiles {
  openWorkflow(): Promise<{ path: string; text: string } | null>;
  saveWorkflow(text: string, path: string | null): Promise<string | null>;
}

export type PreloadApi = GpuflowApi & DesktopFiles;

declare global {
  interface Window {
    gpuflow?: PreloadApi;
  }
}

export function hasPreload(): boolean {
  return typeof window !== 'undefined' && window.gpuflow !== undefined;
}

/** IPC errors arrive as "Error invoking remote method 'x': Error: <json>"; unpack the json when it is ours. */
function unwrap(e: unknown): never {
  const msg = e instanceof Error ? e.message : String(e);
  const m = /(\{"status".*\})\s*$/.exec(msg);
  if (m) {
    const parsed = JSON.parse(m[1]) as { status: number; errors: string[] };
    throw new ApiError(parsed.status, parsed.errors);
  }
  throw e instanceof Error ? e : new Error(msg);
}

export function createIpcClient(p: PreloadApi = window.gpuflow!): PreloadApi {
  const wrap =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    (...a: A) =>
      f(...a).catch(unwrap);
  return {
    catalog: wrap(p.catalog),
    devices: wrap(p.devices),
    workers: wrap(p.workers),
    restartWorker: wrap(p.restartWorker),
    examples: wrap(p.examples),
    validate: wrap(p.validate),
    startRun: wrap(p.startRun),
    enqueueRun: wrap(p.enqueueRun),
    queue: wrap(p.queue),
    removeQueued: wrap(p.removeQueued),
    cancelRun: wrap(p.cancelRun),
    history: wrap(p.history),
    run: wrap(p.run),
    runEvents: wrap(p.runEvents),
    replay: wrap(p.replay),
    compare: wrap(p.compare),
    startBench: wrap(p.startBench),
    benchmarks: wrap(p.benchmarks),
    benchProgress: wrap(p.benchProgress),
    benchRunEvents: wrap(p.benchRunEvents),
    cancelBench: wrap(p.cancelBench),
    subscribe: (fn, since) => p.subscribe(fn, since),
    openWorkflow: wrap(p.openWorkflow),
    saveWorkflow: wrap(p.saveWorkflow),
  };
}
