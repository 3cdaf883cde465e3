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

/**
 * Bounds on what clients can make the queue hold (issue 29 item 8): every entry keeps its
 * document until it runs, and every 'queue' event and GET /api/queue carries every entry, so 12
 * entries named with 4 MB strings made each of those 48 MB. Entries, their documents' bytes and
 * the label shown are all bounded; a full queue refuses the click saying why.
 */
export const MAX_QUEUE_ENTRIES = 100;
export const MAX_QUEUE_BYTES = 64 * 1024 * 1024;
export const MAX_LABEL_CHARS = 200;

export type QueueListener = (entries: QueueEntry[], refused?: { id: string; label: string; errors: string[] }) => void;

interface Item {
  entry: QueueEntry;
  /** What the entry holds until it runs (its document's JSON length), counted against MAX_QUEUE_BYTES. */
  bytes: number;
  /** Starts the run (compiling in slices, so it may take a while); throws when it cannot. */
  start: () => Promise<QueueStart>;
}

export class RunQueue {
  private readonly items: Item[] = [];
  /** The head entry while its run is being started (compiled): neither removable nor startable twice. */
  private starting: Item | null = null;

  constructor(private readonly onChange: QueueListener) {}

  /**
   * Adds a run. With nothing from the queue running it starts now, and a run that cannot start
   * throws here (the click gets the errors); otherwise it waits and a failure to start is
   * reported with the 'refused' of a queue change.
   */
  async add(label: string, node: string | null, start: () => Promise<QueueStart>, bytes = 0): Promise<QueueEntry> {
    if (this.items.length >= MAX_QUEUE_ENTRIES) throw new QueueFullError(`the run queue is full (${MAX_QUEUE_ENTRIES} entries): wait for a run to end or remove queued ones`);
    const held = this.items.reduce((n, x) => n + x.bytes, 0);
    if (held + bytes > MAX_QUEUE_BYTES) throw new QueueFullError(`the run queue holds ${held} bytes of documents and this one is ${bytes}: more than ${MAX_QUEUE_BYTES} in all; wait for a run to end or remove queued ones`);
    const shown = label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1)}…` : label;
    const item: Item = { entry: { id: randomUUID(), label: shown, node, state: 'queued', runId: null, storeId: null, queuedAt: Date.now() }, start, bytes };
    this.items.push(item);
    if (this.items.length > 1) {
      this.changed();
      return { ...item.entry };
    }
    try {
      await this.startHead(item);
    } catch (e) {
      this.drop(item);
      this.changed();
      this.pump();
      throw e;
    }
    return { ...item.entry };
  }

  /** Removes a queued entry; false if there is none with that id. The running entry is cancelled, not removed. */
  remove(id: string): boolean {
    const i = this.items.findIndex((x) => x.entry.id === id);
    if (i < 0) return false;
    const item = this.items[i];
    if (item.entry.state === 'running' || item === this.starting) throw new QueueError(`queue entry ${id} is running: cancel its run${item.entry.runId ? ` (${item.entry.runId})` : ''} instead`);
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

  private async startHead(item: Item): Promise<void> {
    this.starting = item;
    try {
      const started = await item.start();
      Object.assign(item.entry, { state: 'running', runId: started.runId, storeId: started.storeId });
      const next = () => {
        this.drop(item);
        this.changed();
        this.pump();
      };
      started.done.then(next, next);
    } finally {
      this.starting = null;
    }
    this.changed();
  }

  /** Starts the next entry once the head is over; one that cannot start is reported and skipped. */
  private pump(): void {
    const head = this.items[0];
    if (!head || head.entry.state !== 'queued' || this.starting) return;
    this.startHead(head).catch((e: unknown) => {
      // It could not start (the workflow no longer compiles on these workers, …): say why and go on.
      this.drop(head);
      this.onChange(this.list(), { id: head.entry.id, label: head.entry.label, errors: errorsOf(e) });
      this.pump();
    });
  }

  private drop(item: Item): void {
    const i = this.items.indexOf(item);
    if (i >= 0) this.items.splice(i, 1);
  }

  private changed(): void {
    this.onChange(this.list());
  }
}

export class QueueError extends Error {}
/** The queue is at one of its bounds: the entry is not added. */
export class QueueFullError extends Error {}

function errorsOf(e: unknown): string[] {
  if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
  if (e instanceof WorkflowError) return [e.message];
  return [e instanceof Error ? e.message : String(e)];
}
