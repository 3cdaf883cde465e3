/**
 * Workflow versions. A version is identified by the sha256 of its document's canonical JSON, so
 * saving the same document twice (whatever its key order) stores it once, and a run can always
 * name the exact document it ran. Layout (node positions) is part of the document, so moving a
 * node makes a new version: replay shows the graph as it was drawn.
 */
import type { Statement } from 'better-sqlite3';
import { canonicalJson } from '../../common/canonical-json';
import { contentHash } from '../../common/digest';
import type { WorkflowVersionRecord, WorkflowVersionSummary } from '../../common/store-types';
import type { WorkflowDoc } from '../../common/workflow';
import type { Db } from './db';

interface WorkflowRow {
  id: number;
  hash: string;
  name: string;
  doc: string;
  created: number;
}

export const UNNAMED_WORKFLOW = 'untitled';

export class WorkflowRepo {
  private readonly insert: Statement;
  private readonly byHash: Statement;
  private readonly byPrefix: Statement;
  private readonly list: Statement;
  private readonly listByName: Statement;

  constructor(private readonly db: Db) {
    this.insert = db.prepare('INSERT INTO workflows (hash, name, doc, created) VALUES (?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING');
    this.byHash = db.prepare('SELECT * FROM workflows WHERE hash = ?');
    this.byPrefix = db.prepare(`SELECT * FROM workflows WHERE hash LIKE ? || '%' LIMIT 2`);
    this.list = db.prepare('SELECT id, hash, name, created FROM workflows ORDER BY created DESC, id DESC');
    this.listByName = db.prepare('SELECT id, hash, name, created FROM workflows WHERE name = ? ORDER BY created DESC, id DESC');
  }

  /** Stores `doc` unless this exact version is already there. `created` says whether it was new. */
  save(doc: WorkflowDoc, now: number = Date.now()): { hash: string; id: number; created: boolean } {
    const hash = contentHash(doc);
    const info = this.insert.run(hash, doc.name ?? UNNAMED_WORKFLOW, canonicalJson(doc), now);
    const row = this.byHash.get(hash) as WorkflowRow;
    return { hash, id: row.id, created: info.changes === 1 };
  }

  get(hash: string): WorkflowVersionRecord | undefined {
    const row = this.byHash.get(hash) as WorkflowRow | undefined;
    return row && toRecord(row);
  }

  /** The version whose hash starts with `prefix` (hex), if exactly one does. */
  findByPrefix(prefix: string): WorkflowVersionRecord | undefined {
    if (!/^[0-9a-f]{4,64}$/.test(prefix)) return undefined;
    const rows = this.byPrefix.all(prefix) as WorkflowRow[];
    return rows.length === 1 ? toRecord(rows[0]) : undefined;
  }

  /** Versions, newest first; only those named `name` when given. */
  versions(name?: string): WorkflowVersionSummary[] {
    return (name === undefined ? this.list.all() : this.listByName.all(name)) as WorkflowVersionSummary[];
  }
}

function toRecord(row: WorkflowRow): WorkflowVersionRecord {
  return { id: row.id, hash: row.hash, name: row.name, created: row.created, doc: JSON.parse(row.doc) as WorkflowDoc };
}
