/**
 * Throttled change notifications, for what the page shows as counts (progress bars, done/total):
 * while a run streams, the run store changes with every progress event (tens a second, each one
 * re-rendering every node card and bar), but a count read a few times a second looks the same.
 * A listener wrapped here hears the first change at once, then at most one change per `ms`, and
 * always a trailing one after the last change, so what is shown ends on the store's final state.
 * Framework-free (React reads it through useSyncExternalStore in ui/hooks.ts).
 */

/** Subscribes a listener; returns the unsubscribe function (zustand's and Versioned's shape). */
export type Subscribe = (fn: () => void) => () => void;

/** The clock and timer the throttle uses (injected in tests). */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Wraps one listener: called at most once per `ms`, with a trailing call after the last change. */
export function throttle(fn: () => void, ms: number, timers: Timers = realTimers): { call(): void; cancel(): void } {
  let last = -Infinity;
  let timer: unknown = null;
  const fire = () => {
    timer = null;
    last = timers.now();
    fn();
  };
  return {
    call() {
      if (timer !== null) return;
      const wait = ms - (timers.now() - last);
      if (wait <= 0) fire();
      else timer = timers.setTimeout(fire, wait);
    },
    cancel() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
  };
}

/**
 * One clock for many throttled listeners, over any number of sources: a listener whose source
 * changed is called at the group's next tick, together with every other such listener, in one
 * task. In the page that makes one React commit per tick for all the counts (node cards, bars,
 * the run status): a timer per listener made a commit each, up to a dozen per window.
 */
export function throttleGroup(ms: number, timers: Timers = realTimers) {
  const dirty = new Set<() => void>();
  const t = throttle(
    () => {
      const due = [...dirty];
      dirty.clear();
      for (const fn of due) fn();
    },
    ms,
    timers,
  );
  return {
    /** `source`'s changes reach a listener at the group's ticks. */
    wrap(source: Subscribe): Subscribe {
      return (fn) => {
        // Its own wrapper: one function subscribed twice is two listeners.
        const mine = () => fn();
        const unsub = source(() => {
          dirty.add(mine);
          t.call();
        });
        return () => {
          unsub();
          dirty.delete(mine);
        };
      };
    },
  };
}
