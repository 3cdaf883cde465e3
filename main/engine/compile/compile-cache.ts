/**
 * Graphs compiled earlier in this process, by workflow and by what the compiler was told of the
 * pool: a warm `gpuflow serve` (or the app) given the same run again starts it without compiling
 * (issue 30: the 2 TB seed's 2 859-task graph took 22 ms of a warm compile, most of the 35 ms an
 * attached run waited between its POST and its run's start on the four-GPU machine).
 *
 * The compiler is a function of the validated document (params applied) and its options alone,
 * except where a workflow names files: a source's schema and row counts come from the file, which
 * may change between runs, so such workflows are never kept. A compiled graph is not changed by
 * the runs that take it (the engine already runs one graph twice when a cached output is lost).
 */
import { canonicalJson } from '../../../common/canonical-json';
import type { CompileOptions, Compiled } from './compile';
import { namesFiles, type ValidWorkflow } from '../validate';

/** The options that change the graph: all but the signal, which only stops a compile, and watchWorkers, which only records. */
export type GraphOptions = Omit<CompileOptions, 'signal' | 'watchWorkers'>;

/** Graphs kept at most, and their tasks in all: a few workflows re-run, not every graph ever compiled. */
const MAX_ENTRIES = 8;
const MAX_TASKS = 200_000;

export class CompileCache {
  /** Most recently used last (a Map keeps insertion order). */
  private readonly entries = new Map<string, Compiled>();
  private tasks = 0;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxTasks = MAX_TASKS,
  ) {}

  /** The entry's key, or null for a workflow that is never kept (it names files). */
  key(wf: ValidWorkflow, opts: GraphOptions): string | null {
    return namesFiles(wf) ? null : canonicalJson({ doc: wf.doc, opts });
  }

  get(key: string | null): Compiled | undefined {
    if (key === null) return undefined;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string | null, compiled: Compiled): void {
    if (key === null || compiled.tasks.size > this.maxTasks) return;
    this.drop(key);
    this.entries.set(key, compiled);
    this.tasks += compiled.tasks.size;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.tasks <= this.maxTasks) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.tasks -= old.tasks.size;
  }
}
