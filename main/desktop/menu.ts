/**
 * The application menu: File, Edit, View, Run, Help. The editor's commands already have keyboard
 * shortcuts in the renderer (renderer/ui/shortcuts.ts), so a menu item does not reimplement them:
 * it shows the same accelerator without registering it (the key still reaches the page), and a
 * click sends that key to the page. One code path for key and menu, and no renderer change.
 */
import type { MenuItemOptions } from '../electron-api';

/** An editor command as the renderer's shortcut table names its keys ('Mod+Shift+Enter'). */
export interface EditorCommand {
  label: string;
  keys: string;
}

export const MENU_COMMANDS: Record<'File' | 'Edit' | 'View' | 'Run', EditorCommand[]> = {
  File: [{ label: 'Open…', keys: 'Mod+O' }, { label: 'Save', keys: 'Mod+S' }],
  Edit: [
    { label: 'Undo', keys: 'Mod+Z' },
    { label: 'Redo', keys: 'Mod+Shift+Z' },
    { label: 'Copy', keys: 'Mod+C' },
    { label: 'Paste', keys: 'Mod+V' },
    { label: 'Delete', keys: 'Delete' },
    { label: 'Select All', keys: 'Mod+A' },
    { label: 'Group', keys: 'Mod+G' },
    { label: 'Ungroup', keys: 'Mod+Shift+G' },
  ],
  View: [{ label: 'Auto-layout', keys: 'Mod+L' }],
  Run: [{ label: 'Run', keys: 'Mod+Enter' }, { label: 'Run Selected Node', keys: 'Mod+Shift+Enter' }],
};

/** 'Mod+Shift+Enter' as Electron's accelerator ('CmdOrCtrl+Shift+Enter'). */
export function accelerator(keys: string): string {
  return keys.replace(/^Mod\+/, 'CmdOrCtrl+');
}

/** The key event a click sends, in webContents.sendInputEvent's terms. */
export function keyEvent(keys: string): { keyCode: string; modifiers: Array<'control' | 'meta' | 'shift'> } {
  const parts = keys.split('+');
  const key = parts.pop() ?? '';
  const modifiers: Array<'control' | 'meta' | 'shift'> = [];
  for (const p of parts) {
    if (p === 'Mod') modifiers.push(process.platform === 'darwin' ? 'meta' : 'control');
    if (p === 'Shift') modifiers.push('shift');
  }
  return { keyCode: key, modifiers };
}

export interface MenuActions {
  /** Sends a command's key to the window. */
  press(keys: string): void;
  about(): void;
  toggleDevTools(): void;
  reload(): void;
  quit(): void;
}

export function menuTemplate(actions: MenuActions): MenuItemOptions[] {
  const items = (cmds: EditorCommand[]): MenuItemOptions[] =>
    cmds.map((c) => ({ label: c.label, accelerator: accelerator(c.keys), registerAccelerator: false, click: () => actions.press(c.keys) }));
  return [
    { label: 'File', submenu: [...items(MENU_COMMANDS.File), { type: 'separator' }, { label: 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() }] },
    { label: 'Edit', submenu: items(MENU_COMMANDS.Edit) },
    {
      label: 'View',
      submenu: [
        ...items(MENU_COMMANDS.View),
        { type: 'separator' },
        { label: 'Reload', accelerator: 'CmdOrCtrl+R', click: () => actions.reload() },
        { label: 'Toggle Developer Tools', accelerator: 'CmdOrCtrl+Shift+I', click: () => actions.toggleDevTools() },
      ],
    },
    { label: 'Run', submenu: items(MENU_COMMANDS.Run) },
    { label: 'Help', submenu: [{ label: 'About gpuflow', click: () => actions.about() }] },
  ];
}
