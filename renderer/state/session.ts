/**
 * The controller between the API and the stores: loads the catalog and lists, validates the graph
 * as it changes, starts / cancels / replays runs and benchmarks, and routes the event stream
 * (task rectangles to the TaskLog in batches per frame, the rest to the run store). Framework-free.
 */
import type { GpuflowApi, StreamMessage } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import type { RunRecord } from '../../common/store-types';
import { errorMessages } from '../api/api-error';
import { fromDoc, toDoc, type Graph } from '../logic/graph-model';
import { createDataStore } from './data-store';
import { createEditorStore } from './editor-store';
import { createRunStore } from './run-store';
import { TaskLog, type Lane } from './task-log';
import { TrialCurves } from './trial-curves';

/** Events of runs whose id the HTTP answer has not told us yet (the socket can be faster). */
const PENDING_LIMIT = 20000;

export function createSession(api: GpuflowApi, schedule: (fn: () => void) => void = (fn) => setTimeout(fn, 16)) {
  const editor = createEditorStore();
  const run = createRunStore();
  const data = createDataStore();
  const log = new TaskLog();
  const curves = new TrialCurves();
  let pending: EngineEvent[] = [];
  let batch: EngineEvent[] = [];
  let flushQueued = false;
  let unsubscribe: (() => void) | null = null;
  let validateTimer: ReturnType<typeof setTimeout> | null = null;
  let validateSeq = 0;

  const flush = () => {
    flushQueued = false;
    const b = batch;
    batch = [];
    log.addEvents(b);
    curves.addEvents(b);
  };
  const toLog = (e: EngineEvent) => {
    batch.push(e);
    if (!flushQueued) {
      flushQueued = true;
      schedule(flush);
    }
  };

  function onMessage(m: StreamMessage) {
    if (m.type === 'run-result') {
      run.getState().onResult(m.result);
      if (run.getState().runId === m.result.runId) void refreshHistory();
      return;
    }
    if (m.type === 'bench-result') {
      const b = data.getState().bench;
      if (m.benchId !== b.id) return;
      if ('error' in m.result) data.getState().set({ bench: { ...b, running: false, error: m.result.error } });
      else data.getState().set({ bench: { ...b, running: false, error: null, last: m.result } });
      void refreshBenchmarks();
      return;
    }
    const e = m;
    if (e.type === 'worker') {
      log.addEvents([e]);
      void refreshWorkers();
      return;
    }
    if (!('runId' in e)) return;
    const current = run.getState().runId;
    if (current === null && (run.getState().status === 'starting')) {
      pending.push(e);
      if (pending.length > PENDING_LIMIT) pending = pending.slice(-PENDING_LIMIT);
      return;
    }
    if (e.runId !== current) return;
    if (e.type === 'task' || e.type === 'transfer' || e.type === 'task-error' || e.type === 'task-progress') toLog(e);
    run.getState().onEvent(e);
  }

  async function refreshWorkers() {
    try {
      const workers = await api.workers();
      const memory = { ...data.getState().memory };
      for (const w of workers) memory[w.id] = [...(memory[w.id] ?? []), w.rss].slice(-60);
      data.getState().set({ workers, memory });
      for (const w of workers) log.ensureLane(w.id, w.label, w.kind === 'virtual-gpu');
    } catch {
      // The panel keeps its last list; the connection indicator says what is wrong.
    }
  }
  async function refreshHistory() {
    try {
      data.getState().set({ history: await api.history({ limit: 100 }) });
    } catch {
      /* keep the last list */
    }
  }
  async function refreshBenchmarks() {
    try {
      data.getState().set({ benchmarks: await api.benchmarks() });
    } catch {
      /* keep the last list */
    }
  }

  function scheduleValidate() {
    if (validateTimer) clearTimeout(validateTimer);
    validateTimer = setTimeout(() => void validateNow(), 300);
  }
  async function validateNow() {
    const seq = ++validateSeq;
    const g = editor.getState().graph;
    if (!g.nodes.length) return run.getState().setValidation([], null);
    try {
      const r = await api.validate(toDoc(g));
      if (seq !== validateSeq) return;
      run.getState().setValidation(r.ok ? [] : r.errors, r.ok ? r.tasks : null);
    } catch (e) {
      if (seq === validateSeq) run.getState().setValidation(errorMessages(e), null);
    }
  }

  async function init() {
    unsubscribe = api.subscribe(onMessage);
    try {
      const [kinds, examples] = await Promise.all([api.catalog(), api.examples()]);
      editor.getState().setCatalog(kinds);
      data.getState().set({ examples, connection: 'online' });
    } catch (e) {
      data.getState().set({ connection: 'error', loadError: errorMessages(e).join('; ') });
    }
    await Promise.all([refreshWorkers(), refreshHistory(), refreshBenchmarks()]);
    editor.subscribe((s, prev) => {
      if (s.graph !== prev.graph && s.dragStart === null) scheduleValidate();
    });
  }

  async function startWith(start: () => Promise<{ runId: string; storeId: number | null }>, replayOf?: { storeId: number; digest: string | null }) {
    run.getState().starting(replayOf);
    data.getState().set({ openedRun: null });
    log.clear();
    curves.clear();
    pending = [];
    try {
      const { runId, storeId } = await start();
      run.getState().started(runId, storeId);
      const mine = pending.filter((e) => 'runId' in e && e.runId === runId);
      pending = [];
      for (const e of mine) onMessage(e);
    } catch (e) {
      run.getState().refused(errorMessages(e));
    }
  }

  return {
    editor,
    run,
    data,
    log,
    curves,
    api,
    init,
    refreshWorkers,
    refreshHistory,
    refreshBenchmarks,
    validateNow,
    async startRun() {
      const g = editor.getState().graph;
      await startWith(() => api.startRun(toDoc(g), g.params));
    },
    async cancel() {
      const id = run.getState().runId;
      if (id) await api.cancelRun(id);
    },
    async replay(storeId: number) {
      const rec = await api.run(storeId);
      await startWith(() => api.replay(storeId), { storeId, digest: rec.resultDigest });
    },
    /** Shows a stored run's events in the task stream. */
    async openRun(storeId: number) {
      const [rec, events] = await Promise.all([api.run(storeId), api.runEvents(storeId)]);
      log.loadStored(events, lanesOf(rec), (key) => nodeOfKey(key, editor.getState().graph));
      data.getState().set({ openedRun: rec });
    },
    async compare(a: number, b: number) {
      data.getState().set({ comparison: await api.compare(a, b), compareIds: [a, b] });
    },
    async startBench(opts: { repeat?: number; warmup?: number } = {}) {
      const g = editor.getState().graph;
      data.getState().set({ bench: { id: null, running: true, error: null, last: null } });
      try {
        const { benchId } = await api.startBench(toDoc(g), { params: g.params, ...opts });
        data.getState().set({ bench: { ...data.getState().bench, id: benchId } });
      } catch (e) {
        data.getState().set({ bench: { id: null, running: false, error: errorMessages(e).join('\n'), last: null } });
      }
    },
    loadDoc(doc: unknown, filePath: string | null): Graph {
      const g = fromDoc(doc);
      editor.getState().load(g, filePath);
      run.getState().reset();
      log.clear();
      curves.clear();
      scheduleValidate();
      return g;
    },
    dispose() {
      unsubscribe?.();
      if (validateTimer) clearTimeout(validateTimer);
    },
  };
}

export type Session = ReturnType<typeof createSession>;

/** Lanes for a stored run, from the devices its record lists (id, kind, label). */
export function lanesOf(rec: RunRecord): Lane[] {
  const devs = Array.isArray(rec.devices) ? rec.devices : [];
  const out: Lane[] = [];
  for (const d of devs) {
    if (d && typeof d === 'object' && !Array.isArray(d) && typeof d.id === 'string')
      out.push({ id: d.id, label: typeof d.label === 'string' ? d.label : d.id, virtual: d.kind === 'virtual-gpu' });
  }
  return out;
}

/** Task keys start with their node id; the longest node id that prefixes the key wins. */
export function nodeOfKey(key: string, graph: Pick<Graph, 'nodes'>): string {
  let best = '';
  for (const n of graph.nodes) if (key.startsWith(n.id) && n.id.length > best.length) best = n.id;
  return best;
}
