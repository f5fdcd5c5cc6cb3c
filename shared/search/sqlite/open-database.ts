/**
 * Opens a SQLite file the way every Cairn store does: its folder created when missing (a fresh
 * clone has no data/ folder), write-ahead logging, and a busy timeout so that the API and the
 * worker can share a file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}
