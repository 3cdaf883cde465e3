/**
 * A mutable store that canvases read directly: mutations bump `version` and tell listeners, so a
 * canvas redraws at most once per frame instead of React re-rendering per event.
 */
export class Versioned {
  version = 0;
  private listeners = new Set<() => void>();

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  protected changed() {
    this.version++;
    for (const fn of this.listeners) fn();
  }
}
