/** App settings kept in the store (table `settings`, key -> JSON), e.g. 'dask.target'. */
import type { JsonValue } from '../../common/store-types';
import type { Db } from './db';
import { fromJsonText, toJsonText } from './statements';

export function getSetting(db: Db, key: string): JsonValue | undefined {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row === undefined ? undefined : fromJsonText(row.value);
}

export function setSetting(db: Db, key: string, value: JsonValue | null): void {
  if (value === null) db.prepare('DELETE FROM settings WHERE key = ?').run(key);
  else db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, toJsonText(value));
}
