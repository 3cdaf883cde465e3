/**
 * Loads each area's task handlers into the registry (worker/handlers.ts), on first use: a worker
 * loads an area's module (and what it imports: Arrow and the dataframe kernels, TensorFlow.js's
 * trial code) only when its first task of that kind arrives, so a worker that runs array
 * programs starts without parsing any of them. Each area's module still imports its heaviest
 * kernels (TensorFlow.js itself) lazily as well.
 */
const AREAS: Record<string, () => Promise<unknown>> = {
  // Areas add one line each, keyed by the task spec kind their handlers register.
  'array-op': () => import('./kernels/arrays/register'),
  trial: () => import('./kernels/tfjs/register'),
  df: () => import('./kernels/df/register'),
};

const loaded = new Map<string, Promise<unknown>>();

/** Loads the area whose handlers serve tasks of `kind` (once); false for a kind no area serves. */
export async function loadAreaFor(kind: string): Promise<boolean> {
  const load = AREAS[kind];
  if (!load) return false;
  let p = loaded.get(kind);
  if (!p) loaded.set(kind, (p = load()));
  await p;
  return true;
}

/** Loads every area now (tests and benches that call handlers directly). */
export async function registerAreaHandlers(): Promise<void> {
  for (const kind of Object.keys(AREAS)) await loadAreaFor(kind);
}
