/**
 * merge (pandas.merge / dask's merge): inner, left, right, outer, leftsemi or leftanti on key
 * columns (leftsemi / leftanti keep the left rows with / without a match, left columns only, as
 * dask's how='leftsemi'). Plans:
 * - one partition on each side: one join task;
 * - broadcast (how inner, left, leftsemi or leftanti; auto picks it when the right side is one
 *   partition): each left partition is joined with the whole right side, no shuffle. A right
 *   side of several partitions is concatenated into one task first (strategy 'broadcast'), as
 *   dask's broadcast join sends every right partition to each left one;
 * - hash-partitioned otherwise: every partition of both sides is hash-split on its keys into k
 *   parts (k = the larger partition count), 'gather-part' p collects part p of every split of a
 *   side, and join p joins the two gathered parts. Equal keys hash alike on both sides, so part p
 *   holds every match of its keys.
 * The output schema follows worker/kernels/df/join.ts: keys named alike appear once, other
 * columns named alike get the suffixes.
 */
import type { BuildContext, OpDef } from '../types';
import { emitDf, frameInput, frameValue, requireColumns, strList, type DfColumn, type LazyFrame } from './meta';
import { JOIN_HOWS } from '../../../../common/df/op-params';

const numeric = (t: string) => t === 'int' || t === 'float';
const semi = (how: string) => how === 'leftsemi' || how === 'leftanti';

function keyParams(ctx: BuildContext, left: LazyFrame, right: LazyFrame): { lk: string[]; rk: string[]; spec: Record<string, unknown> } {
  const on = strList(ctx, 'on', false);
  const lo = strList(ctx, 'left_on', false);
  const ro = strList(ctx, 'right_on', false);
  if (on && (lo || ro)) return ctx.fail('params.on', 'give either on, or left_on and right_on, not both');
  if (on) {
    requireColumns(ctx, 'params.on', on, left.columns);
    requireColumns(ctx, 'params.on', on, right.columns);
    return { lk: on, rk: on, spec: { on } };
  }
  if (!lo || !ro) return ctx.fail(lo ? 'params.right_on' : 'params.left_on', 'is needed: give on (names on both sides), or left_on and right_on');
  if (lo.length !== ro.length) ctx.fail('params.right_on', `has ${ro.length} columns but left_on has ${lo.length}`);
  requireColumns(ctx, 'params.left_on', lo, left.columns);
  requireColumns(ctx, 'params.right_on', ro, right.columns);
  return { lk: lo, rk: ro, spec: { leftOn: lo, rightOn: ro } };
}

function outputColumns(left: DfColumn[], right: DfColumn[], lk: string[], rk: string[], suffixes: [string, string]): DfColumn[] {
  const shared = new Set(lk.filter((k, i) => rk[i] === k));
  const ln = new Set(left.map((c) => c.name));
  const rn = new Set(right.map((c) => c.name));
  const out: DfColumn[] = left.map((c) => ({ name: !shared.has(c.name) && rn.has(c.name) ? c.name + suffixes[0] : c.name, type: c.type }));
  for (const c of right) if (!shared.has(c.name)) out.push({ name: ln.has(c.name) ? c.name + suffixes[1] : c.name, type: c.type });
  return out;
}

const merge: OpDef = {
  spec: {
    op: 'merge',
    label: 'Merge',
    category: 'dataframes',
    doc: 'Joins two frames on key columns (inner, left, right, outer), as pandas.merge; leftsemi / leftanti keep the left rows with / without a match (left columns only), as dask. Hash-partitioned shuffle, or a broadcast of the right side (inner, left, leftsemi, leftanti).',
    inputs: [{ name: 'left', type: 'dataframe' }, { name: 'right', type: 'dataframe' }],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [
      { name: 'how', kind: 'enum', options: [...JOIN_HOWS], default: 'inner' },
      { name: 'on', kind: 'strings', doc: 'key columns named alike on both sides' },
      { name: 'left_on', kind: 'strings' },
      { name: 'right_on', kind: 'strings' },
      { name: 'suffixes', kind: 'strings', default: ['_x', '_y'], doc: 'for other columns present on both sides' },
      { name: 'strategy', kind: 'enum', options: ['auto', 'hash', 'broadcast'], default: 'auto', doc: 'auto: broadcast when the right side is one partition and how is not right or outer; broadcast: a right side of several partitions is concatenated first' },
      { name: 'null_keys', kind: 'enum', options: ['match', 'never'], default: 'match', doc: 'match: a null (or NaN) key joins a null key, as pandas.merge; never: null keys match nothing, as SQL' },
    ],
  },
  build(ctx) {
    const left = frameInput(ctx, 'left');
    const right = frameInput(ctx, 'right');
    const wantHow = ctx.params.how ?? 'inner';
    const how = JOIN_HOWS.find((h) => h === wantHow) ?? ctx.fail('params.how', `must be one of ${JOIN_HOWS.join(', ')}`);
    const { lk, rk, spec: keySpec } = keyParams(ctx, left, right);
    const shared = new Set(lk.filter((k, i) => rk[i] === k));
    lk.forEach((l, i) => {
      const a = left.columns.find((c) => c.name === l)!.type;
      const b = right.columns.find((c) => c.name === rk[i])!.type;
      // int and float keys match by value; an outer join merges a shared key column, which needs one type.
      const ok = a === b || (numeric(a) && numeric(b) && !((how === 'outer' || how === 'right') && shared.has(l)));
      if (!ok) ctx.fail(lk === rk ? 'params.on' : 'params.left_on', `key '${l}' is ${a} on the left but '${rk[i]}' is ${b} on the right`);
    });
    const sx = ctx.params.suffixes;
    const suffixes: [string, string] = Array.isArray(sx) && sx.length === 2 && sx.every((s) => typeof s === 'string') ? [sx[0] as string, sx[1] as string] : ctx.fail('params.suffixes', 'must be two strings, e.g. ["_x", "_y"]');
    if (suffixes[0] === suffixes[1]) ctx.fail('params.suffixes', 'must differ');
    const columns = semi(how) ? left.columns : outputColumns(left.columns, right.columns, lk, rk, suffixes);
    // Only the SQL choice goes into the spec: pandas' is the kernels' default.
    const spec = { how, ...keySpec, suffixes, ...(ctx.params.null_keys === 'never' ? { nulls: 'never' as const } : {}) };
    const strategy = ctx.params.strategy ?? 'auto';
    const partBytes = left.partitionBytes + right.partitionBytes * Math.max(1, right.partitions / Math.max(1, left.partitions));
    if (left.partitions === 1 && right.partitions === 1) {
      const key = ctx.key('join');
      emitDf(ctx, key, [left.keys[0], right.keys[0]], 'join', { spec }, partBytes * 2, partBytes * 4);
      return { out: frameValue([key], columns, partBytes * 2) };
    }
    const canBroadcast = how !== 'outer' && how !== 'right';
    if (strategy === 'broadcast' && !canBroadcast) ctx.fail('params.strategy', `broadcast cannot do a${how === 'outer' ? 'n outer' : ' right'} join (unmatched right rows would repeat per partition)`);
    if (canBroadcast && (strategy === 'broadcast' || (strategy === 'auto' && right.partitions === 1))) {
      const rb = right.partitionBytes * right.partitions;
      let small = right.keys[0];
      if (right.partitions > 1) {
        small = ctx.key('broadcast-concat');
        emitDf(ctx, small, right.keys, 'concat', {}, rb, rb * 2);
      }
      const keys = left.keys.map((k, i) => {
        const key = ctx.key('broadcast-join', [i]);
        emitDf(ctx, key, [k, small], 'broadcast-join', { spec }, left.partitionBytes + rb, 2 * (left.partitionBytes + rb));
        return key;
      });
      return { out: frameValue(keys, columns, left.partitionBytes + rb) };
    }
    const k = Math.max(left.partitions, right.partitions);
    const split = (f: LazyFrame, keys: string[], side: string) =>
      f.keys.map((key, i) => {
        const out = ctx.key(`split-${side}`, [i]);
        emitDf(ctx, out, [key], 'hash-split', { keys, k }, f.partitionBytes, f.partitionBytes * 2.5);
        return out;
      });
    const ls = split(left, lk, 'left');
    const rs = split(right, rk, 'right');
    const gather = (splits: string[], f: LazyFrame, side: string, p: number) => {
      const key = ctx.key(`gather-${side}`, [p]);
      const bytes = (f.partitionBytes * f.partitions) / k;
      emitDf(ctx, key, splits, 'gather-part', { part: p }, bytes, bytes * 2);
      return key;
    };
    const keys: string[] = [];
    for (let p = 0; p < k; p++) {
      const lp = gather(ls, left, 'left', p);
      const rp = gather(rs, right, 'right', p);
      const key = ctx.key('join', [p]);
      emitDf(ctx, key, [lp, rp], 'join', { spec }, partBytes * 2, partBytes * 4);
      keys.push(key);
    }
    return { out: frameValue(keys, columns, partBytes * 2) };
  },
};

export const DF_MERGE_OPS: OpDef[] = [merge];
