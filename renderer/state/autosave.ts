/**
 * Nothing lost on a reload or a crash: the open workflow, its file name, unsaved-changes flag and
 * undo history are written to local storage as they are edited (a moment after the last change,
 * and at once when the page is hidden), under a key per server (the page's origin: two `serve`s on
 * two ports keep two drafts), and put back when the page loads.
 *
 * What comes back from storage is read like a file a person opened: the envelope through zod, each
 * graph through graph-model's fromDoc, so a damaged or foreign entry is dropped, never trusted.
 * History is capped (HISTORY_KEPT snapshots each way) so one draft stays well inside the quota.
 */
import * as z from 'zod';
import { fromDoc, toDoc, type Graph } from '../logic/graph-model';
import type { EditorStore } from './editor-store';

export const AUTOSAVE_PREFIX = 'gpuflow.autosave:';
const HISTORY_KEPT = 50;
const DELAY_MS = 250;

export type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const envelope = z.object({
  v: z.literal(1),
  graph: z.unknown(),
  filePath: z.string().nullable(),
  dirty: z.boolean(),
  past: z.array(z.unknown()),
  future: z.array(z.unknown()),
});

export const autosaveKey = (origin: string) => `${AUTOSAVE_PREFIX}${origin}`;

/** The draft in storage, or null when there is none or it does not read back as workflows. */
export function readDraft(storage: DraftStorage, key: string): { graph: Graph; filePath: string | null; dirty: boolean; past: Graph[]; future: Graph[] } | null {
  const text = storage.getItem(key);
  if (!text) return null;
  try {
    const e = envelope.parse(JSON.parse(text));
    return { graph: fromDoc(e.graph), filePath: e.filePath, dirty: e.dirty, past: e.past.map(fromDoc), future: e.future.map(fromDoc) };
  } catch {
    // Not ours to repair: a draft that does not read back is dropped, and the editor starts empty.
    storage.removeItem(key);
    return null;
  }
}

/**
 * Restores the draft into the editor (when there is one), then keeps storage in step with it.
 * `schedule` defers a write (tests pass their own clock); returns flush (write now) and dispose.
 */
export function attachAutosave(editor: EditorStore, storage: DraftStorage, key: string, schedule: (fn: () => void, ms: number) => () => void) {
  const draft = readDraft(storage, key);
  if (draft) {
    editor.getState().load(draft.graph, draft.filePath);
    editor.setState({ past: draft.past, future: draft.future, dirty: draft.dirty });
  }
  let cancel: (() => void) | null = null;
  const flush = () => {
    cancel?.();
    cancel = null;
    const s = editor.getState();
    const body = { v: 1, graph: toDoc(s.graph), filePath: s.filePath, dirty: s.dirty, past: s.past.slice(-HISTORY_KEPT).map(toDoc), future: s.future.slice(0, HISTORY_KEPT).map(toDoc) };
    try {
      storage.setItem(key, JSON.stringify(body));
    } catch {
      // Quota full or storage off: keep only the graph, which is what matters most.
      try {
        storage.setItem(key, JSON.stringify({ ...body, past: [], future: [] }));
      } catch {
        /* nothing more we can do; the unsaved-changes prompt still guards the work */
      }
    }
  };
  const unsubscribe = editor.subscribe((s, prev) => {
    // A drag writes once it ends (endDrag commits), not on every move.
    if (s.dragStart !== null) return;
    if (s.graph === prev.graph && s.past === prev.past && s.future === prev.future && s.filePath === prev.filePath && s.dirty === prev.dirty) return;
    cancel?.();
    cancel = schedule(flush, DELAY_MS);
  });
  return {
    restored: draft !== null,
    flush,
    dispose() {
      cancel?.();
      unsubscribe();
    },
  };
}
