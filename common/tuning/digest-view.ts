/**
 * What a tuning search's result contributes to the run's digest (docs/reproducibility.md): the
 * result as it is, except that every trial's score and metrics (and the best score) are rounded
 * to TUNING_DIGEST_DIGITS significant digits. A trial trains in float32 on whichever tfjs backend
 * its worker has (wasm or cpu on CPU workers, gpuflow-cuda on GPU workers), and the families agree
 * to about 1e-4 relative in the loss and 1e-5 in the metrics (the GPU checks, docs/tuning.md), not
 * to the last bit; rounded, the same search gives one digest on CPU and on GPU workers. The
 * params, epochs, ranks and statuses stay exact: a search whose ranking differs between families
 * (two scores closer than the families agree) is a different result and gets another digest.
 */
import { canonicalJson } from '../canonical-json';

/** Significant digits kept of a trial's score and metrics in the digest. */
export const TUNING_DIGEST_DIGITS = 4;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const round = (v: unknown): unknown => (v === null || v === undefined ? v : JSON.parse(canonicalJson(v, { digits: TUNING_DIGEST_DIGITS })));

/** A search node's result value (worker/kernels/tfjs/search-tasks.ts searchLeaderboard). */
export function isSearchResult(v: unknown): v is Record<string, unknown> & { kind: 'search-result' } {
  return isObj(v) && v.kind === 'search-result';
}

/** The search result with its scores and metrics rounded for the digest; anything else as it is. */
export function searchResultForDigest(v: unknown): unknown {
  if (!isSearchResult(v)) return v;
  const entry = (e: unknown) =>
    isObj(e) ? { ...e, ...('score' in e ? { score: round(e.score) } : {}), ...('metrics' in e ? { metrics: round(e.metrics) } : {}) } : e;
  return {
    ...v,
    ...('bestScore' in v ? { bestScore: round(v.bestScore) } : {}),
    ...('best' in v ? { best: entry(v.best) } : {}),
    ...(Array.isArray(v.leaderboard) ? { leaderboard: v.leaderboard.map(entry) } : {}),
  };
}
