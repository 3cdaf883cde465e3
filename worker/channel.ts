/**
 * The worker's line to main, the same for both launchers: a `child_process.fork` child talks
 * through process.send / 'message'; an Electron utilityProcess through process.parentPort.
 */
import type { FromWorker } from '../common/messages';

interface ParentPort {
  on(event: 'message', fn: (e: { data: unknown }) => void): void;
  postMessage(msg: unknown): void;
}

export interface ParentChannel {
  send(msg: FromWorker): void;
  onMessage(fn: (raw: unknown) => void): void;
}

export function parentChannel(): ParentChannel {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) {
    return {
      send: (msg) => port.postMessage(msg),
      onMessage: (fn) => port.on('message', (e) => fn(e.data)),
    };
  }
  if (!process.send) throw new Error('gpuflow worker: started without an IPC channel (run it through the worker pool)');
  const send = process.send.bind(process);
  return {
    send: (msg) => {
      send(msg);
    },
    onMessage: (fn) => process.on('message', (m: unknown) => fn(m)),
  };
}
