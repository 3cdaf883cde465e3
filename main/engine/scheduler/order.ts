/**
 * Static task priorities, computed once per graph and deterministic: a depth-first post-order
 * from the outputs, visiting dependencies in key order. Running tasks in this order finishes one
 * branch of a reduction tree before starting the next, so partials are combined (and their inputs
 * released) early, as dask.order aims to.
 */
import type { TaskDef } from '../../../common/tasks';
import { runToEnd, YIELD_EVERY, type Steps } from '../slices';

export function staticPriorities(tasks: Map<string, TaskDef>, roots: string[]): Map<string, number> {
  return runToEnd(staticPrioritiesSteps(tasks, roots));
}

/** `staticPriorities` as cooperative work (main/engine/slices.ts): ~0.4 s for 115k tasks in one go. */
export function* staticPrioritiesSteps(tasks: Map<string, TaskDef>, roots: string[]): Steps<Map<string, number>> {
  let steps = 0;
  const prio = new Map<string, number>();
  const visiting = new Set<string>();
  let n = 0;
  for (const root of roots) {
    // Iterative DFS: (key, next dep index).
    const stack: Array<[string, number]> = [[root, 0]];
    while (stack.length) {
      if (++steps % YIELD_EVERY === 0) yield;
      const top = stack[stack.length - 1];
      const [key, i] = top;
      if (prio.has(key)) {
        stack.pop();
        continue;
      }
      const deps = tasks.get(key)?.deps ?? [];
      if (i === 0) visiting.add(key);
      if (i < deps.length) {
        top[1]++;
        const d = deps[i];
        if (!prio.has(d) && !visiting.has(d) && tasks.has(d)) stack.push([d, 0]);
        continue;
      }
      visiting.delete(key);
      prio.set(key, n++);
      stack.pop();
    }
  }
  for (const k of tasks.keys()) {
    if (!prio.has(k)) prio.set(k, n++);
    if (++steps % YIELD_EVERY === 0) yield;
  }
  return prio;
}
