/**
 * How much one fused block program may hold (issue 29 item 7). Fusion composes a node's block
 * expression out of its inputs', so an unbroken chain of 2 000 elementwise nodes became one
 * program nested 2 000 levels deep: Node's IPC deserializer overflowed its stack in every worker
 * that received it, and the compiler's own recursion overflowed on longer chains. A diamond
 * (`binary(a, a)` repeated) doubles the expression at each node instead. So an input whose
 * program is deeper than FUSE_MAX_DEPTH levels or larger than FUSE_MAX_SIZE expression nodes is
 * materialised before its consumer fuses into it: a long chain becomes a chain of tasks, each
 * of bounded depth, at the cost of one extra chunk per FUSE_MAX_DEPTH ops.
 */
import type { Expr } from '../../../common/arrays';

/** Expression levels (one per elementwise op, one per broadcast) a fused program may nest. */
export const FUSE_MAX_DEPTH = 48;
/** Expression nodes a fused program may hold (bounds diamonds, which stay shallow but double). */
export const FUSE_MAX_SIZE = 512;

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'leaf':
      return [];
    case 'unary':
    case 'clip':
    case 'broadcast':
      return [e.arg];
    case 'binary':
      return [e.a, e.b];
    case 'where':
      return [e.cond, e.a, e.b];
  }
}

/**
 * True when a program of `e` may take one more op: walked with an explicit stack (never
 * recursion, so any input is measured safely) and stopped at the first bound crossed.
 */
export function fitsFusion(e: Expr): boolean {
  const stack: Array<[Expr, number]> = [[e, 1]];
  let size = 0;
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (depth >= FUSE_MAX_DEPTH || ++size >= FUSE_MAX_SIZE) return false;
    for (const c of children(x)) stack.push([c, depth + 1]);
  }
  return true;
}
