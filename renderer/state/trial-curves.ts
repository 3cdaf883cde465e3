/**
 * Live per-trial training curves from 'task-progress' events, kept beside the TaskLog in the
 * high-rate channel (outside the zustand stores): per search node, per trial, loss and metric by
 * epoch. Listeners are told a version number changed; a canvas redraws at most once per frame.
 */
import type { EngineEvent } from '../../common/events';
import type { CurvePoint } from '../logic/curve-scale';
import { Versioned } from './versioned';

export interface TrialCurve {
  trial: string;
  metric: string;
  loss: CurvePoint[];
  value: CurvePoint[];
  /** The epoch the trial trains to now (its rung's target), when the reports say; null if not. */
  target: number | null;
}

export class TrialCurves extends Versioned {
  /** node id → trial id → curve. */
  private byNode = new Map<string, Map<string, TrialCurve>>();

  clear() {
    this.byNode.clear();
    this.changed();
  }

  /** Adds the batch's task-progress events that carry a trial and an epoch (one notification). */
  addEvents(events: readonly EngineEvent[]) {
    let touched = false;
    for (const e of events) {
      if (e.type !== 'task-progress') continue;
      const p = e.payload;
      if (typeof p.trial !== 'string' && typeof p.trial !== 'number') continue;
      if (typeof p.epoch !== 'number') continue;
      const trial = String(p.trial);
      let trials = this.byNode.get(e.node);
      if (!trials) this.byNode.set(e.node, (trials = new Map()));
      let c = trials.get(trial);
      if (!c) trials.set(trial, (c = { trial, metric: typeof p.metric === 'string' ? p.metric : 'metric', loss: [], value: [], target: null }));
      if (typeof p.epochs === 'number') c.target = p.epochs;
      const value = typeof p.value === 'number' ? p.value : typeof p.score === 'number' ? p.score : null;
      if (typeof p.loss === 'number') upsert(c.loss, p.epoch, p.loss);
      if (value !== null) upsert(c.value, p.epoch, value);
      touched = true;
    }
    if (touched) this.changed();
  }

  nodes(): string[] {
    return [...this.byNode.keys()];
  }

  /** A node's curves in trial order. */
  curves(node: string): TrialCurve[] {
    const m = this.byNode.get(node);
    return m ? [...m.values()] : [];
  }
}

/** A re-run epoch (a trial retried on another worker) replaces the earlier point. */
function upsert(points: CurvePoint[], epoch: number, value: number) {
  const last = points[points.length - 1];
  if (!last || last.epoch < epoch) {
    points.push({ epoch, value });
    return;
  }
  const i = points.findIndex((q) => q.epoch === epoch);
  if (i >= 0) points[i] = { epoch, value };
  else {
    points.push({ epoch, value });
    points.sort((a, b) => a.epoch - b.epoch);
  }
}
