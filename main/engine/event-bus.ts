/**
 * The engine's one event stream: assigns sequence numbers and times, fans events out to
 * subscribers (task stream, store, CLI progress), and keeps a bounded ring so a renderer that
 * reconnects can resume from the last sequence number it saw without losing events.
 */
import type { EngineEvent, EventDraft } from '../../common/events';

export type EventListener = (e: EngineEvent) => void;

export class EventBus {
  private seq = 0;
  /** Circular: event `seq` lives at slot `seq % capacity`, so keeping the last N costs O(1) per event. */
  private readonly ring: Array<EngineEvent | undefined> = [];
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly capacity = 200_000) {}

  emit(draft: EventDraft): EngineEvent {
    // Stamped in place, not copied: every caller passes a fresh literal, and a run emits five
    // events a task (main's garbage collection was its largest per-task cost; bench/engine/overhead.ts).
    const e = Object.assign(draft, { seq: ++this.seq, t: draft.t ?? Date.now() }) as EngineEvent;
    this.ring[e.seq % this.capacity] = e;
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        // One failing listener must not stop the others or the engine.
        process.stderr.write(`event listener failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
    return e;
  }

  subscribe(l: EventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Events after `seq` still in the ring; `complete` is false when some were dropped. */
  since(seq: number): { events: EngineEvent[]; complete: boolean } {
    const first = Math.max(1, this.seq - this.capacity + 1);
    const events: EngineEvent[] = [];
    for (let s = Math.max(seq + 1, first); s <= this.seq; s++) events.push(this.ring[s % this.capacity]!);
    return { events, complete: seq + 1 >= first };
  }

  get lastSeq(): number {
    return this.seq;
  }
}
