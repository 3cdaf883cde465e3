/** The run queue alone, with runs that end when the test says: order, removal, cancel -> next, a refused start. */
import { describe, expect, it } from 'vitest';
import type { QueueEntry } from '../../../common/events';
import { MAX_LABEL_CHARS, MAX_QUEUE_BYTES, MAX_QUEUE_ENTRIES, QueueFullError, RunQueue } from '../../../main/api/run-queue';
import { WorkflowError } from '../../../main/engine/errors';

function harness() {
  const changes: QueueEntry[][] = [];
  const refusals: string[][] = [];
  const q = new RunQueue((entries, refused) => {
    changes.push(entries);
    if (refused) refusals.push(refused.errors);
  });
  const ends = new Map<string, () => void>();
  const started: string[] = [];
  const runOf = (name: string) => async () => {
    started.push(name);
    let end!: () => void;
    const done = new Promise<void>((r) => (end = r));
    ends.set(name, end);
    return { runId: `run-${name}`, storeId: null, done };
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { q, changes, refusals, started, ends, runOf, settle };
}

describe('RunQueue', () => {
  it('runs one entry at a time, in order', async () => {
    const h = harness();
    const a = await h.q.add('a', null, h.runOf('a'));
    await h.q.add('b', 'n1', h.runOf('b'));
    await h.q.add('c', null, h.runOf('c'));
    expect(a).toMatchObject({ state: 'running', runId: 'run-a' });
    expect(h.q.list().map((e) => `${e.label}:${e.state}`)).toEqual(['a:running', 'b:queued', 'c:queued']);
    expect(h.q.running).toBe('run-a');
    h.ends.get('a')!(); // finished, failed or cancelled: all end the same way for the queue
    await h.settle();
    expect(h.started).toEqual(['a', 'b']);
    expect(h.q.list()[0]).toMatchObject({ label: 'b', node: 'n1', state: 'running' });
    h.ends.get('b')!();
    await h.settle();
    h.ends.get('c')!();
    await h.settle();
    expect(h.started).toEqual(['a', 'b', 'c']);
    expect(h.q.list()).toEqual([]);
    expect(h.changes.at(-1)).toEqual([]);
  });

  it('removes a queued entry, never the running one', async () => {
    const h = harness();
    const a = await h.q.add('a', null, h.runOf('a'));
    const b = await h.q.add('b', null, h.runOf('b'));
    const c = await h.q.add('c', null, h.runOf('c'));
    expect(() => h.q.remove(a.id)).toThrow(/running: cancel its run/);
    expect(h.q.remove(b.id)).toBe(true);
    expect(h.q.remove(b.id)).toBe(false);
    h.ends.get('a')!();
    await h.settle();
    expect(h.started).toEqual(['a', 'c']);
    expect(h.q.list().map((e) => e.id)).toEqual([c.id]);
  });

  it('with nothing running, a run that cannot start is refused at once (the caller gets the error)', async () => {
    const h = harness();
    await expect(
      h.q.add('bad', null, async () => {
        throw new Error('no worker can hold a task');
      }),
    ).rejects.toThrow('no worker can hold a task');
    expect(h.q.list()).toEqual([]);
    await h.q.add('a', null, h.runOf('a'));
    expect(h.started).toEqual(['a']);
  });

  it('an entry that cannot start when its turn comes is reported and the next one starts', async () => {
    const h = harness();
    await h.q.add('a', null, h.runOf('a'));
    await h.q.add('bad', null, async () => {
      throw new WorkflowError('nodes[0].params.chunks', 'must be greater than 0', 'x');
    });
    await h.q.add('c', null, h.runOf('c'));
    h.ends.get('a')!();
    await h.settle();
    expect(h.refusals).toEqual([["nodes[0].params.chunks (node 'x'): must be greater than 0"]]);
    expect(h.started).toEqual(['a', 'c']);
  });

  it('holds at most MAX_QUEUE_ENTRIES entries and MAX_QUEUE_BYTES of documents, and shows labels cut to MAX_LABEL_CHARS (issue 29 item 8)', async () => {
    const h = harness();
    await h.q.add('x'.repeat(4 * 1024 * 1024), null, h.runOf('big-name'));
    expect(h.q.list()[0].label).toHaveLength(MAX_LABEL_CHARS);
    expect(h.q.list()[0].label.endsWith('…')).toBe(true);
    for (let i = 1; i < MAX_QUEUE_ENTRIES; i++) await h.q.add(`e${i}`, null, h.runOf(`e${i}`));
    await expect(h.q.add('one too many', null, h.runOf('late'))).rejects.toThrow(new QueueFullError(`the run queue is full (${MAX_QUEUE_ENTRIES} entries): wait for a run to end or remove queued ones`));
    expect(h.q.list()).toHaveLength(MAX_QUEUE_ENTRIES);
    // Every 'queue' event carries the whole list: its size stays bounded too.
    expect(JSON.stringify(h.q.list()).length).toBeLessThan(MAX_QUEUE_ENTRIES * (MAX_LABEL_CHARS + 200));

    const b = harness();
    await b.q.add('a', null, b.runOf('a'), MAX_QUEUE_BYTES - 10);
    await expect(b.q.add('b', null, b.runOf('b'), 11)).rejects.toThrow(QueueFullError);
    await b.q.add('c', null, b.runOf('c'), 10);
    expect(b.q.list().map((e) => e.label)).toEqual(['a', 'c']);
    // The bytes are freed once the entry has run.
    b.ends.get('a')!();
    await b.settle();
    await b.q.add('d', null, b.runOf('d'), MAX_QUEUE_BYTES - 20);
    expect(b.q.list().map((e) => e.label)).toEqual(['c', 'd']);
  });
});
