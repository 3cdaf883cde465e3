/**
 * The run queue behind the app's Run and Run selected buttons: pressing Run while a run is in
 * flight enqueues it; the queue starts its entries one at a time, in order, each when the
 * previous one ends (finished, failed or cancelled: cancelling the running entry starts the
 * next). A queued entry can be removed; the running one is stopped with cancel.
 *
 * It lives in the service, so every front end (serve's browsers, the Electron window) shares one
 * queue and sees it through the event stream ('queue' events carry the whole list). Runs started
 * directly (startRun, POST /api/runs) do not wait for it: they are for scripts and tests that
 * want concurrent runs, and overlap the queue's run on the same workers as runs always could.
 */
import { randomUUID } from 'node:crypto';
import type { QueueEntry } from '../../common/events';
import { WorkflowError, WorkflowErrors } from '../engine/errors';

export interface QueueStart {
  runId: string;
  storeId: number | null;
  done: Promise<unknown>;
}

export type QueueListener = (entries: QueueEntry[], refused?: { id: string; label: string; errors: string[] }) => void;

export class RunQueue {
  private readonly items: Array<{ entry: QueueEntry; start: () => QueueStart }> = [];

  constructor(private readonly onChange: QueueListener) {}

  /** Adds a run; it starts at once when nothing from the queue is running. */
  add(label: string, node: string | null, start: () => QueueStart): QueueEntry {
    const entry: QueueEntry = { id: randomUUID(), label, node, state: 'queued', runId: null, storeId: null, queuedAt: Date.now() };
    this.items.push({ entry, start });
    this.pump();
    this.changed();
    return { ...entry };
  }

  /** Removes a queued entry; false if there is none with that id. The running entry is cancelled, not removed. */
  remove(id: string): boolean {
    const i = this.items.findIndex((x) => x.entry.id === id);
    if (i < 0) return false;
    if (this.items[i].entry.state === 'running') throw new QueueError(`queue entry ${id} is running: cancel its run (${this.items[i].entry.runId}) instead`);
    this.items.splice(i, 1);
    this.changed();
    return true;
  }

  list(): QueueEntry[] {
    return this.items.map((x) => ({ ...x.entry }));
  }

  /** The running entry's run id, if any. */
  get running(): string | null {
    const first = this.items[0]?.entry;
    return first?.state === 'running' ? first.runId : null;
  }

  private pump(): void {
    while (this.items.length > 0 && this.items[0].entry.state === 'queued') {
      const item = this.items[0];
      try {
        const started = item.start();
        Object.assign(item.entry, { state: 'running', runId: started.runId, storeId: started.storeId });
        const next = () => {
          const i = this.items.indexOf(item);
          if (i >= 0) this.items.splice(i, 1);
          this.pump();
          this.changed();
        };
        started.done.then(next, next);
        return;
      } catch (e) {
        // It could not start (the workflow no longer compiles on these workers, …): say why and go on.
        this.items.shift();
        this.onChange(this.list(), { id: item.entry.id, label: item.entry.label, errors: errorsOf(e) });
      }
    }
  }

  private changed(): void {
    this.onChange(this.list());
  }
}

export class QueueError extends Error {}

function errorsOf(e: unknown): string[] {
  if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
  if (e instanceof WorkflowError) return [e.message];
  return [e instanceof Error ? e.message : String(e)];
}
