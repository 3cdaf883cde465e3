/**
 * Owner-computes placement for tasks that carry grid coordinates (TaskDef.place), as SUMMA lays
 * out a distributed matrix product: the P workers that may run them (the GPU workers when there
 * are any, else all candidates; ordered by id so every decision is deterministic) form a pr x pc
 * process grid, pr the largest divisor of P not above its square root, and block (i, j) belongs
 * to worker (i mod pr, j mod pc). The matmul compiler gives A[i,l] the coordinates (i, l),
 * B[l,j] (l, j) and C[i,j] (i, j): each worker then generates its share of A and B, computes the
 * C blocks it owns, and fetches only the A blocks of its grid row and the B blocks of its grid
 * column that others own, once each (a fetched copy stays for the worker's next task). With two
 * workers (1 x 2) that is half of A moved, 1 x |A| in all; with four (2 x 2), |A| + |B|.
 *
 * A 1-D place ({ index: i }, TSQR's row blocks, their QR and their recombination) belongs to
 * worker i mod P, so each row block is made, factored and recombined where it lives.
 *
 * A share ({ share: [k, n] }, a reduction's k-th chunk partial of n, or its k-th combine of n at
 * one level of the tree) belongs to worker floor(k P / n): each GPU gets a contiguous run of
 * chunks, and a combine of neighbouring partials runs where they were made, fetching none.
 *
 * Example, 2 workers, 2 x 2 blocks: worker 0 owns A[*,0], B[*,0], C[*,0]; worker 1 owns A[*,1],
 * B[*,1], C[*,1]. C[0,0] = A[0,0] B[0,0] + A[0,1] B[1,0] runs on worker 0, which fetches A[0,1].
 */
import type { WorkerKind } from '../../../common/messages';
import type { TaskPlace } from '../../../common/tasks';

export interface GridWorker {
  id: string;
  kind: WorkerKind;
}

/** The process grid's shape for P workers: pr x pc = P, pr <= pc, as square as P allows. */
export function processGrid(p: number): [number, number] {
  let pr = Math.max(1, Math.floor(Math.sqrt(p)));
  while (p % pr !== 0) pr--;
  return [pr, p / pr];
}

/** The workers a grid is laid over: GPU workers (real or virtual) when any, else all; by id. */
export function gridWorkers<W extends GridWorker>(candidates: W[]): W[] {
  const gpus = candidates.filter((w) => w.kind === 'gpu' || w.kind === 'virtual-gpu');
  return (gpus.length ? gpus : candidates).slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The worker still starting that a `deal` task (TaskDef.deal, no place: a search's trial) waits
 * for, or null to place it now as any other. While GPU workers start, such tasks are dealt round
 * robin over the grid (`seq`: how many were dealt so far), as 1-D places are, and the one dealt
 * to a starting worker is held for it, not taken by an idle ready one: without this the first
 * ready worker took every trial of a search (25 of 25 on four H100s). Unlike a grid share's
 * chunk, a trial lasts long enough that doing a late worker's share after one's own costs more
 * than waiting for it; the op that emits a task knows that, so it sets `deal` (the scheduler
 * does not infer it from a task's kind or resource). Held only when its node has at least one
 * such task per grid worker (`siblings`): a lone task has no share to keep and runs at once.
 * Tasks without `deal` (chunk programs, a dataframe's partitions, a search's leaderboard) run at
 * once on the ready workers.
 */
export function heldFor<W extends GridWorker>(seq: number, siblings: number, grid: W[], isStarting: (w: W) => boolean): W | null {
  if (grid.length < 2 || siblings < grid.length) return null;
  const owner = grid[seq % grid.length];
  return isStarting(owner) ? owner : null;
}

/** The owner of a block among `workers` (already ordered by gridWorkers); null for fewer than 2. */
export function ownerOf<W>(place: TaskPlace, workers: W[]): W | null {
  if (workers.length < 2) return null;
  if ('index' in place) return workers[place.index % workers.length];
  if ('share' in place) return workers[Math.min(workers.length - 1, Math.floor((place.share[0] * workers.length) / place.share[1]))];
  const [pr, pc] = processGrid(workers.length);
  return workers[(place.grid[0] % pr) * pc + (place.grid[1] % pc)];
}
