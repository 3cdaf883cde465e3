/**
 * The worker's line to main, the same for both launchers: a `child_process.fork` child talks
 * through process.send / 'message'; an Electron utilityProcess through process.parentPort.
 * Both directions batch what one event-loop turn sends (common/batch.ts).
 */
import { batcher, unbatch, type Linger } from '../common/batch';
import type { FromWorker } from '../common/messages';

interface ParentPort {
  on(event: 'message', fn: (e: { data: unknown }) => void): void;
  postMessage(msg: unknown): void;
}

export interface ParentChannel {
  send(msg: FromWorker): void;
  /** Writes the queued messages now (before the process exits). */
  flush(): void;
  onMessage(fn: (raw: unknown) => void): void;
}

/** `linger`: when to hold a batch a little longer than the turn (common/batch.ts). */
export function parentChannel(linger?: Linger): ParentChannel {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) {
    const out = batcher<FromWorker>((m) => port.postMessage(m), linger);
    return { send: out.send, flush: out.flush, onMessage: (fn) => port.on('message', (e) => unbatch(e.data, fn)) };
  }
  if (!process.send) throw new Error('gpuflow worker: started without an IPC channel (run it through the worker pool)');
  const send = process.send.bind(process);
  const out = batcher<FromWorker>((m) => {
    send(m);
  }, linger);
  return { send: out.send, flush: out.flush, onMessage: (fn) => process.on('message', (m: unknown) => unbatch(m, fn)) };
}
