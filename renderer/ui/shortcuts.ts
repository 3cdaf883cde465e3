/**
 * Keyboard shortcuts as a controller factory ({update, destroy}); the bindings are a table so the
 * help text and the handler cannot disagree.
 */
export interface ShortcutActions {
  undo(): void;
  redo(): void;
  copy(): void;
  paste(): void;
  remove(): void;
  selectAll(): void;
  save(): void;
  open(): void;
  run(): void;
  runSelected(): void;
  layout(): void;
  group(): void;
  ungroup(): void;
}

export const SHORTCUTS: Array<{ keys: string; action: keyof ShortcutActions; label: string }> = [
  { keys: 'Mod+Z', action: 'undo', label: 'Undo' },
  { keys: 'Mod+Shift+Z', action: 'redo', label: 'Redo' },
  { keys: 'Mod+Y', action: 'redo', label: 'Redo' },
  { keys: 'Mod+C', action: 'copy', label: 'Copy' },
  { keys: 'Mod+V', action: 'paste', label: 'Paste' },
  { keys: 'Delete', action: 'remove', label: 'Delete selection' },
  { keys: 'Backspace', action: 'remove', label: 'Delete selection' },
  { keys: 'Mod+A', action: 'selectAll', label: 'Select all' },
  { keys: 'Mod+S', action: 'save', label: 'Save' },
  { keys: 'Mod+O', action: 'open', label: 'Open' },
  { keys: 'Mod+Enter', action: 'run', label: 'Run' },
  { keys: 'Mod+Shift+Enter', action: 'runSelected', label: 'Run selected node' },
  { keys: 'Mod+L', action: 'layout', label: 'Auto-layout' },
  { keys: 'Mod+G', action: 'group', label: 'Group the selected nodes' },
  { keys: 'Mod+Shift+G', action: 'ungroup', label: 'Ungroup' },
];

export function keyName(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey'>): string {
  const parts: string[] = [];
  if (e.ctrlKey || e.metaKey) parts.push('Mod');
  // Shift counts for characters and Enter (Mod+Shift+Enter is not Mod+Enter); Shift+Delete is still Delete.
  if (e.shiftKey && (e.key.length === 1 || e.key === 'Enter')) parts.push('Shift');
  parts.push(e.key.length === 1 ? e.key.toUpperCase() : e.key);
  return parts.join('+');
}

export function createShortcuts(target: Window, actions: ShortcutActions) {
  let current = actions;
  const onKey = (e: KeyboardEvent) => {
    const el = e.target as HTMLElement | null;
    // Typing in a field keeps its own undo, copy and delete.
    if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)) return;
    const name = keyName(e);
    const hit = SHORTCUTS.find((s) => s.keys === name);
    if (!hit) return;
    e.preventDefault();
    current[hit.action]();
  };
  target.addEventListener('keydown', onKey);
  return {
    update(a: ShortcutActions) {
      current = a;
    },
    destroy() {
      target.removeEventListener('keydown', onKey);
    },
  };
}
