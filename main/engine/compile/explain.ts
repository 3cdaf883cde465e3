/**
 * What `gpuflow explain` prints: the task graph's size before and after optimisation (fusion and
 * culling), tasks per node and op, the critical path (the longest dependency chain), and what
 * each node's output ports hold (dtype and shape).
 */
import type { TaskDef } from '../../../common/tasks';
import type { Compiled } from './compile';

export interface Explanation {
  unfusedTasks: number;
  emittedTasks: number;
  tasks: number;
  byNode: Record<string, number>;
  byOp: Record<string, number>;
  criticalPath: string[];
  outputs: string[];
  /** Each node port's value: kind, dtype (NumPy's rules) and shape, e.g. "array float64 (6,)". */
  portTypes: Record<string, string>;
}

export function criticalPath(tasks: Map<string, TaskDef>): string[] {
  const depth = new Map<string, number>();
  const prev = new Map<string, string | null>();
  const visit = (key: string): number => {
    const known = depth.get(key);
    if (known !== undefined) return known;
    // Iterative post-order keeps deep graphs off the call stack.
    const stack: string[] = [key];
    while (stack.length) {
      const k = stack[stack.length - 1];
      const deps = tasks.get(k)?.deps ?? [];
      const pending = deps.filter((d) => !depth.has(d) && tasks.has(d));
      if (pending.length) {
        stack.push(...pending);
        continue;
      }
      stack.pop();
      if (depth.has(k)) continue;
      let best = 0;
      let from: string | null = null;
      for (const d of deps) {
        const dd = depth.get(d) ?? 0;
        if (dd > best) {
          best = dd;
          from = d;
        }
      }
      depth.set(k, best + 1);
      prev.set(k, from);
    }
    return depth.get(key)!;
  };
  let end: string | null = null;
  let longest = 0;
  for (const k of tasks.keys()) {
    const d = visit(k);
    if (d > longest) {
      longest = d;
      end = k;
    }
  }
  const path: string[] = [];
  for (let k = end; k !== null; k = prev.get(k) ?? null) path.unshift(k);
  return path;
}

export function explain(c: Compiled): Explanation {
  const byNode: Record<string, number> = {};
  const byOp: Record<string, number> = {};
  for (const t of c.tasks.values()) {
    byNode[t.node] = (byNode[t.node] ?? 0) + 1;
    byOp[t.op] = (byOp[t.op] ?? 0) + 1;
  }
  return {
    unfusedTasks: c.unfusedTasks,
    emittedTasks: c.emittedTasks,
    tasks: c.tasks.size,
    byNode,
    byOp,
    criticalPath: criticalPath(c.tasks),
    outputs: Object.keys(c.outputs),
    portTypes: c.portTypes,
  };
}
