/**
 * The order the task stream shows its lanes in: by worker kind (GPUs, virtual GPUs, CPU workers,
 * Dask workers, anything else), then by the worker's index as a number (gpu2 before gpu10), never
 * in the order the workers first reported.
 */
const KIND_RANK: Array<[RegExp, number]> = [
  [/^gpu/i, 0],
  [/^vgpu/i, 1],
  [/^cpu/i, 2],
  [/^dask-/i, 3],
];

function rankOf(id: string): number {
  for (const [re, r] of KIND_RANK) if (re.test(id)) return r;
  return KIND_RANK.length;
}

/** The lane ids' comparison: kind first, then the ids compared with their numbers as numbers. */
export function compareLanes(a: string, b: string): number {
  return rankOf(a) - rankOf(b) || a.localeCompare(b, 'en', { numeric: true });
}
