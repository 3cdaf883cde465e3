/**
 * Prepared statements, compiled once per database and SQL text. Repos with fixed SQL prepare in
 * their constructors; the history filter builds its SQL from a few fixed fragments, so it looks
 * its statements up here instead of compiling one per call.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';

export class StatementCache {
  private readonly cache = new Map<string, Statement>();
  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let st = this.cache.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.cache.set(sql, st);
    }
    return st;
  }
}

/** JSON column text for `value` (undefined is stored as null). */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function fromJsonText<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}
