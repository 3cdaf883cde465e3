/** Every catalog node kind, grouped by category, with search; drag one onto the canvas (or double-click). */
import { useMemo, useState } from 'react';
import type { NodeKindSpec } from '../../common/catalog';
import { PALETTE_MIME } from './GraphEditor';
import { useEditor, useSession } from './hooks';

const ORDER = ['arrays', 'dataframes', 'model tuning', 'files'];

export function Palette() {
  const session = useSession();
  const kinds = useEditor((s) => s.kinds);
  const [q, setQ] = useState('');
  const groups = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const hit = (k: NodeKindSpec) => !needle || `${k.label} ${k.op} ${k.doc} ${k.category}`.toLowerCase().includes(needle);
    const by = new Map<string, NodeKindSpec[]>();
    for (const k of kinds.filter(hit)) by.set(k.category, [...(by.get(k.category) ?? []), k]);
    return [...by.entries()].sort((a, b) => ORDER.indexOf(a[0]) - ORDER.indexOf(b[0]));
  }, [kinds, q]);
  return (
    <aside className="gf-palette" data-testid="palette">
      <input className="gf-search" placeholder="Search nodes…" value={q} onChange={(e) => setQ(e.target.value)} aria-label="search nodes" />
      {groups.map(([cat, ks]) => (
        <section key={cat}>
          <h4>{cat}</h4>
          {ks.map((k) => (
            <div
              key={k.op}
              className="gf-palette-item"
              draggable
              data-op={k.op}
              title={k.doc}
              onDragStart={(e) => {
                e.dataTransfer.setData(PALETTE_MIME, k.op);
                e.dataTransfer.effectAllowed = 'copy';
              }}
              onDoubleClick={() => session.editor.getState().addNode(k.op, { x: 80 + 40 * session.editor.getState().graph.nodes.length, y: 80 })}
            >
              <strong>{k.label}</strong>
              <small>
                {k.inputs.map((p) => p.type).join(', ') || '—'} → {k.outputs.map((p) => p.type).join(', ')}
              </small>
            </div>
          ))}
        </section>
      ))}
      {!groups.length && <p className="gf-muted">{kinds.length ? 'No node matches.' : 'Loading catalog…'}</p>}
    </aside>
  );
}
