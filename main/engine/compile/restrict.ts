/**
 * Slice pushdown: restricting a block's expression to a strided sub-region rewrites the regions of
 * its leaves, so a slice of a generated array generates only the elements it keeps, and a slice of
 * an input chunk reads only them. Elementwise ops commute with slicing, so the rewrite descends
 * through them unchanged. Steps may be negative (a reversed slice): a region's `start` is then
 * its last element in index order, and composing two regions multiplies their steps.
 */
import type { Expr, Leaf, Region } from '../../../common/arrays';
import { broadcastTarget } from '../../../common/arrays';

/** The region of `outer` selected by `local` (coordinates relative to `outer`'s elements). */
export function composeRegion(outer: Region, local: Region): Region {
  return {
    start: outer.start.map((s, d) => s + outer.step[d] * local.start[d]),
    step: outer.step.map((s, d) => s * local.step[d]),
    count: [...local.count],
  };
}

function restrictLeaf(leaf: Leaf, local: Region): Leaf {
  switch (leaf.kind) {
    case 'fill':
      return leaf;
    case 'random':
    case 'arange':
    case 'input':
      return { ...leaf, region: composeRegion(leaf.region, local) };
  }
}

export function restrictExpr(e: Expr, local: Region): Expr {
  switch (e.kind) {
    case 'leaf':
      return { kind: 'leaf', leaf: restrictLeaf(e.leaf, local) };
    case 'unary':
      return { ...e, arg: restrictExpr(e.arg, local) };
    case 'clip':
      return { ...e, arg: restrictExpr(e.arg, local) };
    case 'binary':
      return { ...e, a: restrictExpr(e.a, local), b: restrictExpr(e.b, local) };
    case 'where':
      return { ...e, cond: restrictExpr(e.cond, local), a: restrictExpr(e.a, local), b: restrictExpr(e.b, local) };
    case 'broadcast': {
      // Axes the source broadcasts (size 1, added in front, or dropped by an index) keep their
      // single element; the others follow the program axis they run along.
      const sub: Region = { start: [], step: [], count: [] };
      for (let d = 0; d < e.from.length; d++) {
        const o = broadcastTarget(e, d, local.count.length);
        if (e.from[d] === 1 || o < 0) {
          sub.start.push(0);
          sub.step.push(1);
          sub.count.push(1);
        } else {
          sub.start.push(local.start[o]);
          sub.step.push(local.step[o]);
          sub.count.push(local.count[o]);
        }
      }
      return { ...e, arg: restrictExpr(e.arg, sub), from: sub.count };
    }
  }
}

/** Shifts the dependency indices of input leaves by `by` (when two block programs are joined). */
export function shiftDeps(e: Expr, by: number): Expr {
  if (by === 0) return e;
  switch (e.kind) {
    case 'leaf':
      return e.leaf.kind === 'input' ? { kind: 'leaf', leaf: { ...e.leaf, dep: e.leaf.dep + by } } : e;
    case 'unary':
    case 'clip':
      return { ...e, arg: shiftDeps(e.arg, by) };
    case 'binary':
      return { ...e, a: shiftDeps(e.a, by), b: shiftDeps(e.b, by) };
    case 'where':
      return { ...e, cond: shiftDeps(e.cond, by), a: shiftDeps(e.a, by), b: shiftDeps(e.b, by) };
    case 'broadcast':
      return { ...e, arg: shiftDeps(e.arg, by) };
  }
}
