/**
 * A group's frame on the canvas: xyflow's parent node for its members, so dragging the frame
 * moves them. The title renames on double-click (Enter keeps, Escape drops the edit).
 */
import type { NodeProps } from '@xyflow/react';
import { memo, useState } from 'react';
import { useEditor, useSession } from './hooks';

function GroupNodeImpl({ data, selected }: NodeProps) {
  const session = useSession();
  const groupId = (data as { groupId: string }).groupId;
  const group = useEditor((s) => s.graph.groups?.find((g) => g.id === groupId));
  const [editing, setEditing] = useState<string | null>(null);
  if (!group) return null;
  const done = (keep: boolean) => {
    if (keep && editing !== null && editing.trim() && editing !== group.label) session.editor.getState().renameGroup(groupId, editing.trim());
    setEditing(null);
  };
  return (
    <div className={`gf-group${selected ? ' selected' : ''}`} data-testid={`group-${groupId}`} data-members={group.nodes.join(',')}>
      {editing === null ? (
        <div className="gf-group-title" onDoubleClick={() => setEditing(group.label)} title="double-click to rename">
          {group.label} <span className="gf-muted">({group.nodes.length})</span>
        </div>
      ) : (
        <input
          className="gf-group-title nodrag"
          autoFocus
          value={editing}
          aria-label="group title"
          onChange={(e) => setEditing(e.target.value)}
          onBlur={() => done(true)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') done(true);
            if (e.key === 'Escape') done(false);
          }}
        />
      )}
    </div>
  );
}

export const GroupNode = memo(GroupNodeImpl);
