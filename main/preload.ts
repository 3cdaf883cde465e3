/**
 * The preload: exposes one `api` object to the renderer as `window.gpuflow`. Its methods are the
 * GpuflowApi's (common/api.ts) over ipcRenderer.invoke, plus native open/save dialogs for
 * workflow files. Nothing else of Node or Electron reaches the page (contextIsolation, sandbox).
 * Sandboxed preloads cannot import local modules at run time, so the channel names are spelled
 * out here and match main/ipc-handlers.ts's CHANNEL.
 */
import type { GpuflowApi, StreamMessage } from '../common/api';
import type { ElectronPreload } from './electron-api';

// Electron is an optional dependency (main/electron-api.ts says why), so its module is typed by
// us; the bundle is CommonJS and a sandboxed preload's own `require` serves 'electron'.
const { contextBridge, ipcRenderer } = require('electron') as ElectronPreload;

const call =
  <K extends keyof GpuflowApi>(method: K) =>
  (...args: unknown[]) =>
    ipcRenderer.invoke(`gpuflow:${method}`, ...args);

const listeners = new Set<(m: StreamMessage) => void>();
// main sends a batch (an array, in order) per tick (main/api/outbox.ts).
ipcRenderer.on('gpuflow:message', (_e, batch) => {
  for (const m of Array.isArray(batch) ? batch : [batch]) for (const fn of listeners) fn(m as StreamMessage);
});

const api = {
  catalog: call('catalog') as GpuflowApi['catalog'],
  devices: call('devices') as GpuflowApi['devices'],
  workers: call('workers') as GpuflowApi['workers'],
  restartWorker: call('restartWorker') as GpuflowApi['restartWorker'],
  examples: call('examples') as GpuflowApi['examples'],
  validate: call('validate') as GpuflowApi['validate'],
  startRun: call('startRun') as GpuflowApi['startRun'],
  enqueueRun: call('enqueueRun') as GpuflowApi['enqueueRun'],
  queue: call('queue') as GpuflowApi['queue'],
  removeQueued: call('removeQueued') as GpuflowApi['removeQueued'],
  cancelRun: call('cancelRun') as GpuflowApi['cancelRun'],
  history: call('history') as GpuflowApi['history'],
  run: call('run') as GpuflowApi['run'],
  runEvents: call('runEvents') as GpuflowApi['runEvents'],
  replay: call('replay') as GpuflowApi['replay'],
  compare: call('compare') as GpuflowApi['compare'],
  startBench: call('startBench') as GpuflowApi['startBench'],
  benchmarks: call('benchmarks') as GpuflowApi['benchmarks'],
  benchProgress: call('benchProgress') as GpuflowApi['benchProgress'],
  benchRunEvents: call('benchRunEvents') as GpuflowApi['benchRunEvents'],
  cancelBench: call('cancelBench') as GpuflowApi['cancelBench'],
  subscribe(onMessage: (m: StreamMessage) => void, since?: number): () => void {
    listeners.add(onMessage);
    if (listeners.size === 1) ipcRenderer.send('gpuflow:subscribe', since ?? 0);
    return () => {
      listeners.delete(onMessage);
      if (listeners.size === 0) ipcRenderer.send('gpuflow:unsubscribe');
    };
  },
  openWorkflow: () => ipcRenderer.invoke('gpuflow-file:open') as Promise<{ path: string; text: string } | null>,
  saveWorkflow: (text: string, path: string | null) => ipcRenderer.invoke('gpuflow-file:save', text, path) as Promise<string | null>,
} satisfies GpuflowApi & Record<string, unknown>;

export type PreloadApi = typeof api;

contextBridge.exposeInMainWorld('gpuflow', api);
