/**
 * The controller between the API and the stores: loads the catalog and lists, validates the graph
 * as it changes, starts / cancels / replays runs and benchmarks, and routes the event stream
 * (task rectangles to the TaskLog in batches per frame, the rest to the run store). Which run the
 * window shows is the state machine of run-view.ts: every change of it goes through `view()`,
 * which also clears the view, in one place. Framework-free.
 */
import type { BenchProgress, GpuflowApi, QueueEntry, RunResultMessage, StreamMessage } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import { errorMessages } from '../api/api-error';
import { fromDoc, toDoc, type Graph } from '../logic/graph-model';
import { changesWhatRuns, lanesOf, nodeOfKey, sigsFor, upstreamOf } from '../logic/run-scope';
import { createDataStore } from './data-store';
import { createEditorStore } from './editor-store';
import { createRunStore } from './run-store';
import { NodeTasks } from './node-tasks';
import { TaskLog } from './task-log';
import { TrialCurves } from './trial-curves';
import { transition, waitingForRun, type RunView, type ViewEvent } from './run-view';

/** The events a task stream draws from ('run' too: a cancel turns the stopped tasks' bars from erred to cancelled). */
const drawn = (e: EngineEvent) => e.type === 'task' || e.type === 'transfer' || e.type === 'task-error' || e.type === 'task-progress' || e.type === 'task-state' || e.type === 'run';

/** Events of runs whose id the HTTP answer has not told us yet (the socket can be faster). */
const PENDING_LIMIT = 20000;

export function createSession(api: GpuflowApi, schedule: (fn: () => void) => void = (fn) => setTimeout(fn, 16)) {
  const editor = createEditorStore();
  const run = createRunStore();
  const data = createDataStore();
  const log = new TaskLog();
  const curves = new TrialCurves();
  const nodeTasks = new NodeTasks();
  /** The task stream of the benchmark run going on now (any window's benchmark), and that run's id. */
  const benchLog = new TaskLog();
  let benchRun: string | null = null;
  let benchBatch: EngineEvent[] = [];
  /** Bench runs the server's progress has named as current: one named again later is not new. */
  const polledBenchRuns = new Set<string>();
  /** While a bench run's events so far are being fetched: its live events, held to go after them. */
  let benchHeld: EngineEvent[] | null = null;
  /** The last sequence number of a bench run's fetched events: the socket's copies of them are skipped. */
  let benchFetchedTo = 0;
  let pending: EngineEvent[] = [];
  let batch: EngineEvent[] = [];
  let flushQueued = false;
  let unsubscribe: (() => void) | null = null;
  let validateTimer: ReturnType<typeof setTimeout> | null = null;
  let validateSeq = 0;
  /** Queue entries this window added, with the nodes each covers (null: all): their runs are shown when they start. */
  const mine = new Map<string, string[] | null>();
  const adopted = new Set<string>();
  /** Per queue entry of ours, the signatures of the nodes it computes (node states after it ends). */
  const sigsOf = new Map<string, Record<string, string>>();
  const pendingResults = new Map<string, RunResultMessage['result']>();
  /** Queue entries of other windows (or from before a reload) this window shows: shown once each. */
  const watched = new Set<string>();
  let shown: RunView = { kind: 'idle' };
  /** Whether a run of ours may be under way that we do not show yet: its events are kept. */
  const awaiting = () => waitingForRun(shown) || mine.size > adopted.size;

  /** Moves the run view (run-view.ts) and does what the transition says: the one place the view is cleared. */
  function view(e: ViewEvent) {
    const next = transition(shown, e);
    shown = next.view;
    if (next.clear) {
      data.getState().set({ openedRun: null });
      log.clear();
      curves.clear();
      nodeTasks.clear();
    }
    if (next.cancel !== null) void api.cancelRun(next.cancel).catch(() => undefined);
  }

  const flush = () => {
    flushQueued = false;
    const b = batch;
    batch = [];
    log.addEvents(b);
    curves.addEvents(b);
    nodeTasks.addEvents(b);
    if (benchBatch.length) {
      const bb = benchBatch;
      benchBatch = [];
      benchLog.addEvents(bb);
    }
  };
  const toLog = (e: EngineEvent, to: EngineEvent[] = batch) => {
    to.push(e);
    if (!flushQueued) {
      flushQueued = true;
      schedule(flush);
    }
  };

  function onMessage(m: StreamMessage) {
    if (m.type === 'run-result') {
      // A run that ends before we learn its id (all reused: at once) keeps its result for adopt().
      if (m.result.runId !== run.getState().runId && awaiting()) {
        pendingResults.set(m.result.runId, m.result);
        if (pendingResults.size > 20) pendingResults.delete(pendingResults.keys().next().value!);
      }
      run.getState().onResult(m.result);
      if (run.getState().runId === m.result.runId) {
        // The bars turn to cancelled with the status, not only when the batched 'run' event lands.
        if (m.result.status === 'cancelled') nodeTasks.markCancelled();
        void refreshHistory();
      }
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
    if (e.type === 'queue') return onQueue(e.entries, e.refused);
    if (e.type === 'worker') {
      log.addEvents([e]);
      void refreshWorkers();
      return;
    }
    if (!('runId' in e)) return;
    // A benchmark's run (its own pools): each one's task stream replaces the last one's.
    if (e.type === 'run' && e.benchId !== undefined && e.state === 'started') {
      benchRun = e.runId;
      benchBatch = [];
      // Its start is here: the socket has the whole run, anything fetched for it is not needed.
      benchHeld = null;
      benchFetchedTo = 0;
      benchLog.clear(false);
    }
    if (e.runId === benchRun) {
      if (drawn(e) && e.seq > benchFetchedTo) {
        if (benchHeld) benchHeld.push(e);
        else toLog(e, benchBatch);
      }
      return;
    }
    const current = run.getState().runId;
    if (e.runId !== current) {
      // A run we started or queued may send events before we learn its id: keep them a while.
      if (awaiting()) {
        pending.push(e);
        // Trimmed in halves, not per event: the socket starts with the ring's whole backlog.
        if (pending.length > 2 * PENDING_LIMIT) pending = pending.slice(-PENDING_LIMIT);
      }
      return;
    }
    // 'run' too, in order with the tasks: a cancel turns the stopped tasks' bars from erred to cancelled.
    if (drawn(e)) toLog(e);
    run.getState().onEvent(e);
  }

  /** Shows a run from now on: the task stream, progress and result follow it. */
  function adopt(runId: string, storeId: number | null, scope: string[] | null, replayOf?: { storeId: number; digest: string | null }, sigs?: Record<string, string>) {
    view({ type: 'show', runId });
    run.getState().starting(replayOf);
    run.getState().setPendingSigs(sigs ?? sigsFor(editor.getState().graph, scope));
    run.getState().started(runId, storeId, scope);
    const its = pending.filter((e) => 'runId' in e && e.runId === runId);
    pending = pending.filter((e) => !('runId' in e) || e.runId !== runId);
    for (const e of its) onMessage(e);
    const result = pendingResults.get(runId);
    pendingResults.delete(runId);
    if (result) onMessage({ type: 'run-result', result });
  }

  /** The queue changed: our entry that started is shown; one refused says why. */
  function onQueue(entries: QueueEntry[], refused?: { id: string; errors: string[] }) {
    data.getState().set({ queue: entries });
    if (refused && mine.has(refused.id)) {
      mine.delete(refused.id);
      showRefusal(refused.errors);
    }
    for (const q of entries) {
      if (q.state !== 'running' || q.runId === null || !mine.has(q.id) || adopted.has(q.id)) continue;
      adopted.add(q.id);
      adopt(q.runId, q.storeId, mine.get(q.id) ?? null, undefined, sigsOf.get(q.id));
    }
    // Another window's run that starts while this one shows nothing under way is shown here too
    // (not while attaching: the replayed backlog's queue events are history, GET /api/queue is not).
    const head = entries.find((q) => q.state === 'running');
    if (head && !mine.has(head.id) && (shown.kind === 'idle' || (shown.kind === 'showing' && !busy()))) watch(head);
    // Entries gone from the queue (run over, or removed) are forgotten.
    const live = new Set(entries.map((q) => q.id));
    for (const id of [...watched]) if (!live.has(id)) watched.delete(id);
    for (const id of [...mine.keys()]) if (!live.has(id) && !adopted.has(id)) mine.delete(id);
    for (const id of [...adopted]) if (!live.has(id)) {
      adopted.delete(id);
      mine.delete(id);
      sigsOf.delete(id);
    }
  }

  /**
   * Shows a run this window did not ask for (another window's, or one under way when the page
   * loaded). Its nodes count as computed only where the run's own workflow gives them the
   * signature they have here: the other window may have drawn a different graph.
   */
  function watch(q: QueueEntry) {
    if (q.runId === null || watched.has(q.id)) return;
    watched.add(q.id);
    const runId = q.runId;
    const graph = editor.getState().graph;
    const scope = q.node === null ? null : upstreamOf(graph, q.node);
    adopt(runId, q.storeId, scope, undefined, {});
    if (q.storeId === null) return;
    api
      .run(q.storeId)
      .then((rec) => {
        if (run.getState().runId !== runId || !rec.workflow) return;
        const theirs = sigsFor(fromDoc(rec.workflow), scope);
        const ours = sigsFor(editor.getState().graph, scope);
        run.getState().setPendingSigs(Object.fromEntries(Object.entries(ours).filter(([id, sig]) => theirs[id] === sig)));
      })
      .catch(() => undefined);
  }

  const busy = () => run.getState().status === 'running' || run.getState().status === 'starting';
  function showRefusal(errors: string[]) {
    // Errors go on the nodes, unless a run is on show: then they are a notice, not its failure.
    if (busy()) editor.getState().setNotice({ kind: 'error', text: errors.join('; ') });
    else refuse(errors);
  }
  function refuse(errors: string[]) {
    view({ type: 'not-started' });
    run.getState().refused(errors);
  }

  /** Queues a run of the graph, or of one node and what it needs upstream; shows it when it starts. */
  async function enqueue(node?: string) {
    const g = editor.getState().graph;
    const scope = node === undefined ? null : upstreamOf(g, node);
    const wasBusy = busy();
    if (!wasBusy) {
      // The stream clears at the click, as for a direct run: what it shows is the run starting.
      view({ type: 'ask' });
      run.getState().starting();
      pending = [];
    }
    try {
      const entry = await api.enqueueRun(toDoc(g), { params: g.params, node });
      mine.set(entry.id, scope);
      sigsOf.set(entry.id, sigsFor(g, scope));
      // The socket may have told us the queue changed before this answer came.
      const known = data.getState().queue.find((q) => q.id === entry.id) ?? entry;
      if (known.state === 'running' && known.runId !== null && !adopted.has(entry.id)) {
        adopted.add(entry.id);
        adopt(known.runId, known.storeId, scope, undefined, sigsOf.get(entry.id));
      } else if (!wasBusy && run.getState().status === 'starting') {
        // Queued behind a run another window started: show the previous state until ours starts.
        view({ type: 'not-started' });
        run.getState().reset();
      }
    } catch (e) {
      if (!wasBusy) refuse(errorMessages(e));
      else showRefusal(errorMessages(e));
    }
  }

  async function refreshWorkers() {
    try {
      const workers = await api.workers();
      data.getState().set({ workers });
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
    validateTimer = setTimeout(() => void validateNow(), 120);
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

  /**
   * A page that loads while the queue's run is in flight shows it: the queue, asked before the
   * event socket opens, names the running run, so when the socket replays the bus's ring from its
   * start that run's events are shown from its first, and the backlog's other runs are passed
   * over (none is kept waiting). The same for a benchmark under way.
   */
  async function attachToRunning() {
    try {
      // A benchmark under way shows as running, and its result completes it when it comes.
      const benches = await api.benchProgress();
      const b = benches[benches.length - 1];
      if (b && !data.getState().bench.running) data.getState().set({ bench: { id: b.benchId, running: true, error: null, last: null } });
      if (b) followBench(b);
    } catch {
      /* an older server without the listing: nothing to re-attach */
    }
    try {
      const entries = await api.queue();
      data.getState().set({ queue: entries });
      const head = entries.find((q) => q.state === 'running');
      if (head && shown.kind === 'attaching') watch(head);
    } catch {
      /* no queue to attach to: the connection indicator says why */
    } finally {
      view({ type: 'attached' });
    }
  }

  /**
   * The benchmark's progress as the server last said it (on attach, then each poll of the
   * Benchmarks view): a run it names that this page did not see start (the page loaded mid-run,
   * the event ring no longer holds the start, or a Dask run, whose 'run' event carries no
   * benchmark id) is drawn from its events so far, fetched, then from the live ones; between runs
   * (workers starting) the stream of the run before is cleared, so nothing drawn contradicts
   * "starting workers".
   */
  function followBench(p: BenchProgress) {
    if (p.phase === 'starting' || p.runId === null) {
      // The run the server names, and any it named before, is over; one the socket started since is newer than this answer.
      if (benchRun !== null && (benchRun === p.runId || polledBenchRuns.has(benchRun))) {
        benchRun = null;
        benchHeld = null;
        benchLog.clear(false);
      }
      return;
    }
    const seen = polledBenchRuns.has(p.runId) || p.runId === benchRun;
    polledBenchRuns.add(p.runId);
    if (seen) return;
    const runId = p.runId;
    benchRun = runId;
    benchBatch = [];
    benchFetchedTo = 0;
    benchLog.clear(false);
    const held: EngineEvent[] = [];
    benchHeld = held;
    const release = (sofar: EngineEvent[]) => {
      if (benchRun !== runId || benchHeld !== held) return;
      benchHeld = null;
      benchFetchedTo = sofar.reduce((m, e) => Math.max(m, e.seq), 0);
      benchLog.addEvents([...sofar, ...held.filter((e) => e.seq > benchFetchedTo)]);
    };
    api.benchRunEvents(p.benchId).then(
      (sofar) => release(sofar.filter(drawn)),
      () => release([]),
    );
  }

  async function init() {
    view({ type: 'attach' });
    await attachToRunning();
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
      if (s.graph === prev.graph || s.dragStart !== null) return;
      // A change to what runs makes the "N tasks when run" estimate unknown at once, never stale;
      // the server's count follows a moment later. Moving nodes changes nothing that runs.
      if (changesWhatRuns(prev.graph, s.graph)) run.setState({ tasksEstimate: null });
      scheduleValidate();
    });
  }

  async function startWith(start: () => Promise<{ runId: string; storeId: number | null }>, replayOf?: { storeId: number; digest: string | null }) {
    view({ type: 'ask' });
    run.getState().starting(replayOf);
    pending = [];
    try {
      const { runId, storeId } = await start();
      adopt(runId, storeId, null, replayOf);
    } catch (e) {
      refuse(errorMessages(e));
    }
  }

  function loadDoc(doc: unknown, filePath: string | null): Graph {
    const g = fromDoc(doc);
    editor.getState().load(g, filePath);
    view({ type: 'load' });
    run.getState().reset();
    scheduleValidate();
    return g;
  }

  return {
    editor,
    run,
    data,
    log,
    benchLog,
    curves,
    nodeTasks,
    api,
    init,
    refreshWorkers,
    refreshHistory,
    refreshBenchmarks,
    validateNow,
    /** Run: queued behind the run in flight, if any; reuses unchanged results. */
    startRun: () => enqueue(),
    /** Run selected: one node and what it needs upstream, reusing what is unchanged. */
    runNode: (node: string) => enqueue(node),
    async removeQueued(id: string) {
      try {
        await api.removeQueued(id);
      } catch (e) {
        editor.getState().setNotice({ kind: 'error', text: errorMessages(e).join('; ') });
      }
    },
    cancel() {
      view({ type: 'cancel' });
    },
    /** Replays a stored run: its own workflow opens in the editor, then runs again with a digest check. */
    async replay(storeId: number) {
      const rec = await api.run(storeId);
      if (rec.workflow) loadDoc(rec.workflow, null);
      await startWith(() => api.replay(storeId), { storeId, digest: rec.resultDigest });
    },
    /** Shows a stored run: its workflow in the editor and its events in the task stream. */
    async openRun(storeId: number) {
      const [rec, events] = await Promise.all([api.run(storeId), api.runEvents(storeId)]);
      if (rec.workflow) loadDoc(rec.workflow, null);
      log.loadStored(events, lanesOf(rec), (key) => nodeOfKey(key, editor.getState().graph));
      data.getState().set({ openedRun: rec });
    },
    /** A stored run's task stream in a log of its own (Compare draws two, one above the other). */
    async storedLog(storeId: number): Promise<TaskLog> {
      const [rec, events] = await Promise.all([api.run(storeId), api.runEvents(storeId)]);
      // Task keys name their node by the run's own workflow when it has one, else by the editor's.
      let graph = editor.getState().graph;
      try {
        if (rec.workflow) graph = fromDoc(rec.workflow);
      } catch {
        /* a workflow the editor cannot read: keys fall back to the editor's graph */
      }
      const out = new TaskLog();
      out.loadStored(events, lanesOf(rec), (key) => nodeOfKey(key, graph));
      return out;
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
    loadDoc,
    followBench,
    /**
     * Whether the bench stream shows a run newer than progress `p` knows of (the socket's 'run'
     * event came after the server's answer): that run is the first of `p`'s configuration, whose
     * workers `p` still calls starting.
     */
    benchAhead: (p: BenchProgress) => benchRun !== null && benchRun !== p.runId && !polledBenchRuns.has(benchRun),
    dispose() {
      unsubscribe?.();
      if (validateTimer) clearTimeout(validateTimer);
    },
  };
}

export type Session = ReturnType<typeof createSession>;
