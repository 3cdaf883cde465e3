/**
 * Content digests of tasks, the identity the result cache (result-cache.ts) keys outputs by.
 *
 * A task's digest is sha256 over the canonical JSON of what it executes (its `spec`: the fused
 * chunk program with its generators' seeds, dtypes, shapes and offsets, or an op and its params)
 * and the digests of its inputs, in order: a Merkle hash over the task graph. Two tasks with the
 * same digest compute the same value, so "unchanged upstream" is exact. It is finer than a
 * per-node digest (op + params + input digests) and agrees with it: a node's params all end up in
 * its tasks' specs, and fusion (an elementwise node folded into its consumer's program) is
 * covered because the fused program is what is hashed. Task keys, node ids and display names are
 * left out, so renaming a node or running a sub-graph does not change a digest.
 *
 * Speed: JSON.stringify, not canonical JSON (common/canonical-json.ts, 10x slower on 16 000
 * tasks): specs are built by the compiler's own code, so equal specs list their keys in the same
 * order; a spec whose keys came in another order (user params reordered) only misses the cache.
 * Values JSON cannot write (bigint) fall back to canonical JSON.
 *
 * A task that reads or writes outside the engine (files) has no digest (null), and neither has
 * anything downstream of it: a file may change between runs and a writer must write again, so
 * their outputs are never reused.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../common/canonical-json';
import type { TaskDef, TaskSpec } from '../../../common/tasks';
import { runToEnd, YIELD_EVERY, type Steps } from '../slices';

/** Ops that read or write files (their output depends on more than their spec). */
const OUTSIDE_OP = /^(read|write|npy)[-_]/;
/** Params that name a file or folder. */
const OUTSIDE_PARAMS = ['path', 'saveTo', 'dir', 'file'];

/** Whether a task's output depends on (or changes) something outside the task graph. */
export function touchesOutside(spec: TaskSpec): boolean {
  if (spec.kind === 'program' || spec.kind === 'combine') return false;
  return OUTSIDE_OP.test(spec.op) || OUTSIDE_PARAMS.some((p) => p in spec.params);
}

function digestOf(spec: TaskSpec, deps: string[]): string {
  let text: string;
  try {
    text = JSON.stringify(spec);
  } catch {
    text = canonicalJson(spec);
  }
  return createHash('sha256').update(text).update('\0').update(deps.join(',')).digest('hex');
}

/** Digest of every task (null where it cannot be reused). Iterative, so deep chains do not overflow the stack. */
export function taskDigests(tasks: ReadonlyMap<string, TaskDef>): Map<string, string | null> {
  return runToEnd(taskDigestSteps(tasks));
}

/** `taskDigests` as cooperative work (main/engine/slices.ts): a 100 000-task graph hashes in slices. */
export function* taskDigestSteps(tasks: ReadonlyMap<string, TaskDef>): Steps<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  let n = 0;
  for (const root of tasks.keys()) {
    if (out.has(root)) continue;
    const stack: Array<{ key: string; expanded: boolean }> = [{ key: root, expanded: false }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (out.has(top.key)) {
        stack.pop();
        continue;
      }
      const def = tasks.get(top.key);
      if (!def) throw new Error(`task digests: unknown task ${top.key}`);
      if (!top.expanded) {
        top.expanded = true;
        for (const d of def.deps) if (!out.has(d)) stack.push({ key: d, expanded: false });
        continue;
      }
      stack.pop();
      const deps = def.deps.map((d) => out.get(d) ?? null);
      out.set(top.key, touchesOutside(def.spec) || deps.includes(null) ? null : digestOf(def.spec, deps as string[]));
      if (++n % YIELD_EVERY === 0) yield;
    }
  }
  return out;
}
