/**
 * Who a long task's time belongs to, from a Chromium trace (browser.startTracing, the
 * devtools.timeline categories): each top-level task of 50 ms or more on the page's main thread
 * (CrRendererMain), its time split by the self time of the trace events nested in it: script (our
 * page's JavaScript, React included: FunctionCall, EvaluateScript, timers, animation frames,
 * events, microtasks), GC (V8's collections, nested inside script or not), style, layout,
 * paint (pre-paint, paint, layerize, commit; Blink's own timers of those) and other (the task's own bookkeeping, parsing, …).
 * Only complete ('X') events are read; that is how Chromium writes these.
 */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** The thread's CPU time in the event (µs), where Chromium records it. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

export type Bucket = 'script' | 'gc' | 'style' | 'layout' | 'paint' | 'other';

export interface LongTaskShare {
  /** ms after the first traced task. */
  at: number;
  ms: number;
  /**
   * ms of it the thread was running (the task's thread time, tdur), or null where not recorded:
   * on a loaded machine a task's wall time also counts the time the OS ran other processes.
   */
  cpuMs: number | null;
  by: Record<Bucket, number>;
  /** The trace events with the most self time in it: [name, ms], the top four. */
  top: Array<[string, number]>;
}

export function bucketOf(name: string): Bucket {
  if (/GC|Scavenge|MarkCompact|Sweep|Finalize/.test(name)) return 'gc';
  if (/^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet|ScheduleStyleRecalculation)$/.test(name)) return 'style';
  if (/^(Layout|UpdateLayout|InvalidateLayout)$/.test(name)) return 'layout';
  if (/^(Paint|PrePaint|Layerize|Commit|UpdateLayer|UpdateLayerTree|PaintImage|Decode.*|Rasterize.*|CompositeLayers)$/.test(name) || /^Blink\.(Paint|PrePaint|CompositingInputs|Layerize|Compositing)/.test(name)) return 'paint';
  if (/^(FunctionCall|EvaluateScript|TimerFire|FireAnimationFrame|EventDispatch|RunMicrotasks|V8\.|v8\.|ProfileCall|XHRReadyStateChange|FireIdleCallback|HandlePostMessage|MessagePort)/.test(name)) return 'script';
  return 'other';
}

/** The long tasks (≥ minMs) of the page's busiest renderer main thread, each split by bucket. */
export function attributeLongTasks(events: TraceEvent[], minMs = 50): LongTaskShare[] {
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const k = `${e.pid}:${e.tid}`;
    if (e.ph !== 'X' || e.dur === undefined || !mains.has(k)) continue;
    const list = byThread.get(k) ?? [];
    list.push(e);
    byThread.set(k, list);
  }
  // The page's thread is the one with the most events (about:blank's renderer has few).
  const thread = [...byThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  thread.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const t0 = thread[0]?.ts ?? 0;
  const out: LongTaskShare[] = [];
  let i = 0;
  while (i < thread.length) {
    const top = thread[i];
    const end = top.ts + top.dur!;
    let j = i + 1;
    while (j < thread.length && thread[j].ts < end) j++;
    if (top.dur! >= minMs * 1000) out.push({ at: Math.round((top.ts - t0) / 1000), ms: Math.round(top.dur! / 1000), cpuMs: top.tdur === undefined ? null : Math.round(top.tdur / 1000), ...selfTimes(thread.slice(i, j)) });
    i = j;
  }
  return out;
}

/** Self time (ms) per bucket of nested events, the first being the outermost. */
function selfTimes(nested: TraceEvent[]): { by: Record<Bucket, number>; top: Array<[string, number]> } {
  const by: Record<Bucket, number> = { script: 0, gc: 0, style: 0, layout: 0, paint: 0, other: 0 };
  const byName = new Map<string, number>();
  const stack: Array<{ e: TraceEvent; child: number }> = [];
  const pop = () => {
    const s = stack.pop()!;
    const ms = (s.e.dur! - s.child) / 1000;
    by[bucketOf(s.e.name)] += ms;
    byName.set(s.e.name, (byName.get(s.e.name) ?? 0) + ms);
  };
  for (const e of nested) {
    while (stack.length && e.ts >= stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur!) pop();
    if (stack.length) stack[stack.length - 1].child += e.dur!;
    stack.push({ e, child: 0 });
  }
  while (stack.length) pop();
  for (const k of Object.keys(by) as Bucket[]) by[k] = Math.round(by[k]);
  const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, ms]): [string, number] => [n, Math.round(ms)]);
  return { by, top };
}
