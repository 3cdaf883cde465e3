/**
 * The Electron IPC side of the API: one `ipcMain.handle` per GpuflowApi method, each checking its
 * arguments (they cross a process boundary) before calling the service, plus the event stream
 * pushed to the window. Errors travel as JSON `{status, errors}` so the renderer shows the same
 * messages as over HTTP. Electron is passed in (types only), like the utility launcher.
 */
import type { IpcEventSender as WebContents, IpcMainInvokeEvent, IpcMainLike as IpcMain } from './electron-api';
import * as z from 'zod';
import type { GpuflowService } from './api/service';
import { ApiError } from './api/api-error';
import { Outbox } from './api/outbox';
import { WorkflowError, WorkflowErrors } from './engine/errors';

/** Messages per IPC batch at most (a replayed ring goes out in several). */
const MAX_IPC_BATCH = 2000;

export const CHANNEL = {
  call: (method: string) => `gpuflow:${method}`,
  subscribe: 'gpuflow:subscribe',
  unsubscribe: 'gpuflow:unsubscribe',
  message: 'gpuflow:message',
} as const;

const params = z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional();
const id = z.number().int().positive();
const str = z.string().min(1).max(200);

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError(400, `${what}: ${r.error.issues.map((i) => `${i.path.join('.') || 'value'} ${i.message}`).join('; ')}`);
  return r.data;
}

function asWire(e: unknown): Error {
  let status = 500;
  let errors: string[];
  if (e instanceof ApiError) [status, errors] = [e.status, e.errors ?? [e.message]];
  else if (e instanceof WorkflowErrors) [status, errors] = [400, e.errors.map((x) => x.message)];
  else if (e instanceof WorkflowError) [status, errors] = [400, [e.message]];
  else errors = [e instanceof Error ? e.message : String(e)];
  return new Error(JSON.stringify({ status, errors }));
}

export function registerIpc(ipcMain: IpcMain, svc: GpuflowService, isTrusted: (sender: WebContents) => boolean): () => void {
  const handlers: Record<string, (...args: unknown[]) => unknown> = {
    catalog: () => svc.catalog(),
    devices: () => svc.devices(),
    workers: () => svc.workers(),
    restartWorker: (w) => svc.restartWorker(check(str, w, 'restartWorker(id)')),
    examples: () => svc.examples(),
    validate: (doc, p) => svc.validateAsync(doc, check(params, p, 'validate(params)')),
    startRun: async (doc, p, o) => {
      const opts = check(z.object({ node: str.optional(), reuse: z.boolean().optional() }).optional(), o, 'startRun(options)') ?? {};
      const s = await svc.runAsync(doc, { params: check(params, p, 'startRun(params)'), ...opts });
      s.done.catch(() => undefined);
      return { runId: s.runId, storeId: s.storeId };
    },
    enqueueRun: (doc, o) => svc.enqueue(doc, check(z.object({ params, node: str.optional() }).optional(), o, 'enqueueRun(options)') ?? {}),
    queue: () => svc.queueEntries(),
    removeQueued: (q) => svc.removeQueued(check(str, q, 'removeQueued(id)')),
    cancelRun: (r) => svc.cancel(check(str, r, 'cancelRun(runId)')),
    history: (f) => {
      const q = check(z.object({ status: z.enum(['running', 'done', 'failed', 'cancelled', 'interrupted']).optional(), workflow: z.string().max(500).optional(), limit: z.number().int().min(1).max(10_000).optional() }).optional(), f, 'history(filter)');
      return svc.history({ ...q, limit: q?.limit ?? 100 });
    },
    run: (i) => svc.getRun(check(id, i, 'run(storeId)')),
    runEvents: (i) => svc.runEvents(check(id, i, 'runEvents(storeId)')),
    replay: async (i) => {
      const s = await svc.replay(check(id, i, 'replay(storeId)'));
      s.done.catch(() => undefined);
      return { runId: s.runId, storeId: s.storeId };
    },
    compare: (a, b) => svc.compare(check(id, a, 'compare(a)'), check(id, b, 'compare(b)')),
    startBench: (doc, o) => {
      const opts = check(z.object({ params, repeat: z.number().int().min(1).max(50).optional(), warmup: z.number().int().min(0).max(10).optional() }).optional(), o, 'startBench(options)') ?? {};
      const s = svc.startBench(doc, opts);
      s.done.catch(() => undefined);
      return { benchId: s.benchId };
    },
    benchmarks: (h) => svc.benchmarks(check(z.string().max(128).optional(), h, 'benchmarks(workflowHash)')),
    benchProgress: () => svc.benchProgress(),
    benchRunEvents: (b) => svc.benchRunEvents(check(str, b, 'benchRunEvents(benchId)')),
    cancelBench: (b) => svc.cancelBench(check(str, b, 'cancelBench(benchId)')),
  };
  for (const [name, fn] of Object.entries(handlers)) {
    ipcMain.handle(CHANNEL.call(name), async (ev: IpcMainInvokeEvent, ...args: unknown[]) => {
      if (!isTrusted(ev.sender)) throw new Error(JSON.stringify({ status: 403, errors: ['not the gpuflow window'] }));
      try {
        return await fn(...args);
      } catch (e) {
        throw asWire(e);
      }
    });
  }
  // One stream per window: events after `since` from the bus's ring, then live ones and results.
  const streams = new Map<number, () => void>();
  const onSubscribe = (ev: { sender: WebContents }, since: unknown) => {
    const wc = ev.sender;
    if (!isTrusted(wc)) return;
    streams.get(wc.id)?.();
    // Batched as serve's WebSocket is (one message per tick, an array in order).
    const outbox = new Outbox<unknown>((batch) => {
      if (!wc.isDestroyed()) wc.send(CHANNEL.message, batch);
    }, MAX_IPC_BATCH);
    const send = (m: unknown) => outbox.push(m);
    const after = typeof since === 'number' && Number.isInteger(since) && since >= 0 ? since : 0;
    let upTo = after;
    const unsubEvents = svc.subscribe((e) => {
      if (e.seq > upTo) send(e);
    });
    for (const e of svc.engine.bus.since(after).events) {
      send(e);
      upTo = e.seq;
    }
    // A result ends a run or a benchmark: it goes out at once, after the events before it.
    const unsubResults = svc.onResult((m) => {
      send(m);
      outbox.flush();
    });
    const stop = () => {
      outbox.discard();
      unsubEvents();
      unsubResults();
      streams.delete(wc.id);
    };
    streams.set(wc.id, stop);
    wc.once('destroyed', stop);
  };
  const onUnsubscribe = (ev: { sender: WebContents }) => streams.get(ev.sender.id)?.();
  ipcMain.on(CHANNEL.subscribe, onSubscribe);
  ipcMain.on(CHANNEL.unsubscribe, onUnsubscribe);
  return () => {
    for (const name of Object.keys(handlers)) ipcMain.removeHandler(CHANNEL.call(name));
    ipcMain.removeListener(CHANNEL.subscribe, onSubscribe);
    ipcMain.removeListener(CHANNEL.unsubscribe, onUnsubscribe);
    for (const stop of [...streams.values()]) stop();
  };
}
