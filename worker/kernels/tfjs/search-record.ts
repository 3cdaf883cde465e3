/**
 * What one search-trial task outputs (a 'json' ChunkValue): the trial it trained, every earlier
 * outcome of its bracket (`prior`, so the next round depends on this round's tasks only), and the
 * packed weights the next round trains on from. Shared by the trial, leaderboard and best-model
 * handlers. No tfjs.
 */
import type { TrialOutcome } from '../../../common/tuning/replay';
import type { MetricName } from '../../../common/tuning/trial';
import type { PackedModel } from './pack';

/**
 * An outcome with what the leaderboard shows about it. No placement (which worker, which tfjs
 * backend): that is the run's record (each task event names its worker and backend), while this
 * is part of the result, whose digest must not depend on where trials ran.
 */
export interface TrialRecord extends TrialOutcome {
  metrics: Partial<Record<MetricName, number>>;
}

export type TrialTaskOutput =
  | { kind: 'trial'; record: TrialRecord; prior: TrialRecord[]; model: PackedModel | null; curve: { epoch: number; loss: number; score: number }[] }
  /** A later-round slot left empty because a trial of the bracket failed earlier. */
  | { kind: 'skipped'; prior: TrialRecord[] };

export class SearchTaskError extends Error {
  override name = 'SearchTaskError';
}

export function readOutputs(inputs: readonly { kind: string; value?: unknown }[], where: string): TrialTaskOutput[] {
  return inputs.map((v, i) => {
    const o = v.value as TrialTaskOutput | undefined;
    if (v.kind !== 'json' || !o || (o.kind !== 'trial' && o.kind !== 'skipped')) throw new SearchTaskError(`${where}: input ${i} is not a search-trial output`);
    return o;
  });
}

/** Every record in the outputs and their priors, once each (by trial and epochs). */
export function allRecords(outs: readonly TrialTaskOutput[]): TrialRecord[] {
  const seen = new Map<string, TrialRecord>();
  for (const o of outs) {
    for (const r of o.prior) seen.set(`${r.trialId}@${r.epochs}`, r);
    if (o.kind === 'trial') seen.set(`${o.record.trialId}@${o.record.epochs}`, o.record);
  }
  return [...seen.values()];
}

/** The packed weights of `trialId` at `epochs` among the outputs. */
export function modelOf(outs: readonly TrialTaskOutput[], trialId: string, epochs: number): PackedModel | null {
  for (const o of outs) if (o.kind === 'trial' && o.record.trialId === trialId && o.record.epochs === epochs && o.model) return o.model;
  return null;
}
