/**
 * The window's panels (react-resizable-panels): the main area above the task stream / progress /
 * workers strip; in the editor, palette | canvas | inspector + results. Every group saves its sizes
 * in localStorage (autoSaveId), so a reload keeps them. Collapsible panels are folded and unfolded
 * from the toolbar through PanelToggles (imperative handles), or by dragging a handle to the edge.
 */
import { createContext, useContext, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { Panel, PanelGroup, PanelResizeHandle, type ImperativePanelHandle } from 'react-resizable-panels';

export type PanelName = 'palette' | 'side' | 'bottom';

interface Toggles {
  refs: Record<PanelName, RefObject<ImperativePanelHandle | null>>;
  collapsed: Record<PanelName, boolean>;
  setCollapsed(name: PanelName, c: boolean): void;
}

const TogglesContext = createContext<Toggles | null>(null);

export function PanelToggles({ children }: { children: ReactNode }) {
  const palette = useRef<ImperativePanelHandle>(null);
  const side = useRef<ImperativePanelHandle>(null);
  const bottom = useRef<ImperativePanelHandle>(null);
  const [collapsed, setAll] = useState<Record<PanelName, boolean>>({ palette: false, side: false, bottom: false });
  const value = useMemo<Toggles>(
    () => ({ refs: { palette, side, bottom }, collapsed, setCollapsed: (name, c) => setAll((s) => (s[name] === c ? s : { ...s, [name]: c })) }),
    [collapsed],
  );
  return <TogglesContext.Provider value={value}>{children}</TogglesContext.Provider>;
}

export function usePanelToggles() {
  const t = useContext(TogglesContext);
  return {
    collapsed: (name: PanelName) => t?.collapsed[name] ?? false,
    toggle(name: PanelName) {
      const p = t?.refs[name].current;
      if (!p) return;
      if (p.isCollapsed()) p.expand();
      else p.collapse();
    },
  };
}

/** A collapsible panel wired to the toggles. */
export function FoldingPanel({ name, children, ...props }: { name: PanelName; children: ReactNode; defaultSize: number; minSize: number; order: number; className?: string }) {
  const t = useContext(TogglesContext);
  return (
    <Panel
      {...props}
      id={name}
      ref={t?.refs[name]}
      collapsible
      collapsedSize={0}
      onCollapse={() => t?.setCollapsed(name, true)}
      onExpand={() => t?.setCollapsed(name, false)}
      data-testid={`panel-${name}`}
    >
      {children}
    </Panel>
  );
}

export function Handle({ direction }: { direction: 'horizontal' | 'vertical' }) {
  return <PanelResizeHandle className={`gf-handle ${direction}`} />;
}

export { Panel, PanelGroup };
