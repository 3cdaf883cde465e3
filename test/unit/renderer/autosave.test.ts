import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromDoc } from '../../../renderer/logic/graph-model';
import { attachAutosave, autosaveKey, type DraftStorage } from '../../../renderer/state/autosave';
import { createEditorStore } from '../../../renderer/state/editor-store';

const seed = () => fromDoc(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')));

function memoryStorage(): DraftStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

/** A clock the test advances: writes wait for it, as they wait for the page's timer. */
function manualClock() {
  let due: Array<() => void> = [];
  return {
    schedule: (fn: () => void) => {
      due.push(fn);
      return () => (due = due.filter((f) => f !== fn));
    },
    run: () => due.splice(0).forEach((f) => f()),
  };
}

describe('autosave: the open workflow survives a reload', () => {
  it('brings back the graph, its unsaved flag and its undo history, per server', () => {
    const storage = memoryStorage();
    const clock = manualClock();
    const key = autosaveKey('http://127.0.0.1:7077');
    const before = createEditorStore();
    attachAutosave(before, storage, key, clock.schedule);
    before.getState().load(seed(), null);
    before.getState().setParam('plus1', 'value', 5);
    before.getState().setParam('plus1', 'value', 6);
    clock.run();

    // The reload: a new store, the same storage.
    const after = createEditorStore();
    const a = attachAutosave(after, storage, key, clock.schedule);
    expect(a.restored).toBe(true);
    expect(after.getState().graph.nodes.find((n) => n.id === 'plus1')?.params.value).toBe(6);
    expect(after.getState().dirty).toBe(true);
    after.getState().undo();
    expect(after.getState().graph.nodes.find((n) => n.id === 'plus1')?.params.value).toBe(5);
    after.getState().undo();
    expect(after.getState().graph.nodes.find((n) => n.id === 'plus1')?.params.value).toBe(1);

    // Another server's page starts empty.
    const other = createEditorStore();
    expect(attachAutosave(other, storage, autosaveKey('http://127.0.0.1:7078'), clock.schedule).restored).toBe(false);
    expect(other.getState().graph.nodes).toEqual([]);
  });

  it('drops a draft that does not read back as a workflow', () => {
    const storage = memoryStorage();
    const key = autosaveKey('x');
    storage.setItem(key, JSON.stringify({ v: 1, graph: { format: 'nope' }, filePath: null, dirty: true, past: [], future: [] }));
    const ed = createEditorStore();
    expect(attachAutosave(ed, storage, key, manualClock().schedule).restored).toBe(false);
    expect(storage.map.has(key)).toBe(false);
    expect(ed.getState().graph.nodes).toEqual([]);
  });
});
