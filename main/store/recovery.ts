/**
 * Startup recovery. A run whose process died (crash, SIGKILL, power cut) stays 'running' in the
 * database. At startup, and whenever the history is opened, every 'running' run recorded on this
 * host whose owner token (process-token.ts) no longer names a live process becomes 'interrupted'.
 * That includes a run recorded under this very pid by an earlier process (pid reuse): its token
 * carries the old start time. Runs recorded on other hosts (a database on a shared disk) are left
 * alone: their processes cannot be checked from here.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import { ownerToken, thisHost } from './process-token';

export class Recovery {
  private readonly running: Statement;
  private readonly mark: Statement;

  constructor(private readonly db: Db) {
    this.running = db.prepare(`SELECT id, pid, owner FROM runs WHERE status = 'running' AND host = ?`);
    this.mark = db.prepare(`UPDATE runs SET status = 'interrupted', ended = ?, error = ? WHERE id = ? AND status = 'running'`);
  }

  /** Marks dead owners' runs interrupted; returns their ids. */
  markInterrupted(now: number = Date.now(), isOwnerAlive: (pid: number, owner: string) => boolean = defaultIsOwnerAlive): number[] {
    return this.db
      .transaction(() => {
        const ids: number[] = [];
        for (const row of this.running.all(thisHost()) as { id: number; pid: number; owner: string }[]) {
          if (isOwnerAlive(row.pid, row.owner)) continue;
          this.mark.run(now, `interrupted: process ${row.pid} ended without finishing the run`, row.id);
          ids.push(row.id);
        }
        return ids;
      })
      .immediate();
  }
}

function defaultIsOwnerAlive(pid: number, owner: string): boolean {
  return ownerToken(pid) === owner;
}
