/** A search node's json result (worker/kernels/tfjs/search-tasks.ts searchLeaderboard), read safely. */
export interface LeaderRow {
  rank: number | null;
  trialId: string;
  bracket: number;
  params: Record<string, unknown>;
  epochs: number;
  score: number | null;
  status: string;
  error?: string;
  worker: string | null;
}

export interface SearchResultView {
  strategy: string;
  metric: string;
  trials: number;
  bestParams: Record<string, unknown> | null;
  bestScore: number | null;
  rows: LeaderRow[];
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** The search result in a json value, or null when the value is not one. */
export function readSearchResult(v: unknown): SearchResultView | null {
  if (!isObj(v) || v.kind !== 'search-result' || !Array.isArray(v.leaderboard)) return null;
  const rows: LeaderRow[] = v.leaderboard.filter(isObj).map((r) => ({
    rank: num(r.rank),
    trialId: String(r.trialId ?? '?'),
    bracket: num(r.bracket) ?? 0,
    params: isObj(r.params) ? r.params : {},
    epochs: num(r.epochs) ?? 0,
    score: num(r.score),
    status: String(r.status ?? ''),
    ...(typeof r.error === 'string' ? { error: r.error } : {}),
    worker: typeof r.worker === 'string' ? r.worker : null,
  }));
  return {
    strategy: String(v.strategy ?? ''),
    metric: String(v.metric ?? ''),
    trials: num(v.trials) ?? rows.length,
    bestParams: isObj(v.bestParams) ? v.bestParams : null,
    bestScore: num(v.bestScore),
    rows: sortLeaderboard(rows),
  };
}

/** Best first: by rank (unranked, e.g. failed, last), then by score (higher first), then trial id. */
export function sortLeaderboard(rows: readonly LeaderRow[]): LeaderRow[] {
  const key = (r: LeaderRow) => r.rank ?? Infinity;
  return [...rows].sort((a, b) => key(a) - key(b) || (b.score ?? -Infinity) - (a.score ?? -Infinity) || a.trialId.localeCompare(b.trialId, undefined, { numeric: true }));
}

export const isStopped = (r: LeaderRow): boolean => r.status === 'stopped by successive halving' || r.status === 'halved';

export function formatParams(p: Record<string, unknown>): string {
  return paramTexts(p).join(', ');
}

/** Each param as `name=value` (4 significant digits for fractions): the leaderboard wraps between them, never inside one. */
export function paramTexts(p: Record<string, unknown>): string[] {
  return Object.entries(p).map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(4)) : String(v)}`);
}

/** The leaderboard's columns, in the order shown; a header click sorts by one (logic/table-sort). */
export const LEADERBOARD_COLUMNS = ['#', 'trial', 'params', 'epochs', 'score', 'status'] as const;

// Digit runs zero-padded, so trial ids compare as a person reads them (t2 before t10).
const naturalKey = (s: string) => s.replace(/\d+/g, (d) => d.padStart(12, '0'));

/** The value a row sorts by in column `col` (LEADERBOARD_COLUMNS): null where it has none (unranked, unscored), which sorts last. */
export function leaderboardCell(r: LeaderRow, col: number): string | number | null {
  switch (LEADERBOARD_COLUMNS[col]) {
    case '#':
      return r.rank;
    case 'trial':
      return naturalKey(r.trialId);
    case 'params':
      return formatParams(r.params);
    case 'epochs':
      return r.epochs;
    case 'score':
      return r.score;
    case 'status':
      return r.status;
    default:
      return null;
  }
}
