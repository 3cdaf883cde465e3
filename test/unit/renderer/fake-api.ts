/**
 * A GpuflowApi for session tests: records calls, lets the test push stream messages and set the
 * queue. Like serve's socket (since=0), a new subscriber first gets every message pushed so far.
 */
import type { BenchProgress, GpuflowApi, QueueEntry, StreamMessage } from '../../../common/api';
import type { EngineEvent } from '../../../common/events';
import { catalog } from '../../../main/engine/ops/registry';

export interface FakeApi extends GpuflowApi {
  push(m: StreamMessage): void;
  queueEntries: QueueEntry[];
  benches: BenchProgress[];
  /** What benchRunEvents answers, per benchmark id. */
  benchEvents: Record<string, EngineEvent[]>;
  cancelled: string[];
}

export function fakeApi(): FakeApi {
  let listener: ((m: StreamMessage) => void) | null = null;
  const backlog: StreamMessage[] = [];
  const none = () => Promise.reject(new Error('not used by this test'));
  const api: FakeApi = {
    queueEntries: [],
    benches: [],
    benchEvents: {},
    cancelled: [],
    push(m) {
      backlog.push(m);
      listener?.(m);
    },
    catalog: () => Promise.resolve(catalog()),
    devices: none,
    workers: () => Promise.resolve([]),
    restartWorker: none,
    examples: () => Promise.resolve([]),
    validate: () => Promise.resolve({ ok: true, tasks: 0 }),
    startRun: none,
    enqueueRun: none,
    queue: () => Promise.resolve(api.queueEntries),
    removeQueued: none,
    cancelRun: (id) => {
      api.cancelled.push(id);
      return Promise.resolve(true);
    },
    history: () => Promise.resolve([]),
    run: none,
    runEvents: none,
    replay: none,
    compare: none,
    startBench: none,
    benchmarks: () => Promise.resolve([]),
    benchProgress: () => Promise.resolve(api.benches),
    benchRunEvents: (id) => Promise.resolve(api.benchEvents[id] ?? []),
    cancelBench: none,
    subscribe(on) {
      for (const m of backlog) on(m);
      listener = on;
      return () => (listener = null);
    },
  };
  return api;
}
