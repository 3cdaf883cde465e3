/**
 * A cache of builds by key that keeps the promise, not the value: tasks asking for the same key
 * while it is being built share the one build (a trial's rows: hundreds of MB, built off the JS
 * thread). A build that fails is dropped, so the next ask builds again (and gets the error again,
 * or the value).
 */
export function builtOnce<T>(cache: Map<string, Promise<T>>, key: string, build: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit) return hit;
  const built = build();
  cache.set(key, built);
  built.catch(() => cache.get(key) === built && cache.delete(key));
  return built;
}
