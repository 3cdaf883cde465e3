/**
 * A running benchmark in words for the Benchmarks view: the configuration on now ("2 of 4"), the
 * run within it (warm-up or repetition n of m), each configuration's state, the share of all runs
 * done and the time left. Pure, from the server's BenchProgress snapshot.
 */
import type { BenchProgress } from '../../common/api';
import { formatMs } from './stream-draw';

export type ConfigState = 'done' | 'running' | 'waiting';

export interface BenchLive {
  config: string;
  /** "configuration 2 of 4". */
  position: string;
  /** "starting workers", "warm-up 1 of 1", "repetition 2 of 3". */
  step: string;
  states: Array<{ name: string; state: ConfigState }>;
  /** Runs finished over every configuration that runs, 0..1 (skipped ones count as done). */
  fraction: number;
  elapsed: string;
  left: string;
}

export function benchLive(p: BenchProgress): BenchLive {
  const runs = p.warmup + p.repeat;
  const n = p.configs.length;
  let step: string;
  if (p.phase === 'starting') step = 'starting workers';
  else if (p.phase === 'warm-up') step = `warm-up ${p.runsDone + 1} of ${p.warmup}`;
  else step = `repetition ${Math.min(p.repeat, p.runsDone - p.warmup + 1)} of ${p.repeat}`;
  const fraction = n === 0 || runs === 0 ? 0 : Math.min(1, (p.configIndex * runs + p.runsDone) / (n * runs));
  return {
    config: p.configs[p.configIndex] ?? '—',
    position: `configuration ${Math.min(n, p.configIndex + 1)} of ${n}`,
    step,
    states: p.configs.map((name, i) => ({ name, state: i < p.configIndex ? 'done' : i === p.configIndex ? 'running' : 'waiting' })),
    fraction,
    elapsed: formatMs(p.elapsedMs),
    left: p.etaMs === null ? 'estimating…' : `about ${formatMs(p.etaMs)} left`,
  };
}
