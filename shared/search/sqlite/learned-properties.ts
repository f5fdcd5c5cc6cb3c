/**
 * The properties the SQLite catalogue learned from its records (their own, beyond the core
 * queryables), kept in the `learned_properties` table of the catalogue file: one row per name
 * and JSON type seen. Written in the transaction that writes the records, so every process
 * opening the file (API replicas, the ingest CLI) reads what any of them wrote.
 */
import type Database from 'better-sqlite3';
import {
  isCoreQueryableName,
  type LearnedProperty,
  type LearnedType,
} from '../../query/queryables.js';

export const LEARNED_PROPERTIES_SQL = `
CREATE TABLE IF NOT EXISTS learned_properties (
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  PRIMARY KEY (name, type)
) WITHOUT ROWID;
`;

/** Names this process already wrote or found refused, kept at most this many (then forgotten). */
const SEEN_KEPT = 20_000;

/** One bit per learned type, for the set of types a name was seen with. */
const TYPE_BITS: Readonly<Record<LearnedType, number>> = {
  string: 1,
  number: 2,
  boolean: 4,
  array: 8,
};

/** The JSON types sortby could order by on SQLite (JSON values compare as SQL values). */
const SORTABLE_TYPES: ReadonlySet<LearnedType> = new Set(['string', 'number', 'boolean']);

/** json_each's type names as learned types (null and objects are not learned). */
const JSON_EACH_TYPES: Readonly<Record<string, LearnedType>> = {
  text: 'string',
  integer: 'number',
  real: 'number',
  true: 'boolean',
  false: 'boolean',
  array: 'array',
};

/** Whether the catalogue file has the table (false for a file written before it existed). */
export function hasLearnedProperties(db: Database.Database): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'learned_properties'")
      .get() !== undefined
  );
}

export class SqliteLearnedProperties {
  private readonly db: Database.Database;
  private readonly max: number;
  /**
   * The types of each name this process has written (or seen refused at the cap), one bit per
   * type: a write-side shortcut only, so a repeated property costs a Map lookup rather than a
   * statement. Reads always go to the table.
   */
  private readonly seen = new Map<string, number>();
  private readonly statements;

  /** `max`: distinct names learned at most (QUERYABLES_MAX_LEARNED); later names are not. */
  constructor(db: Database.Database, max: number) {
    this.db = db;
    this.max = max;
    this.statements = {
      // A new name only while fewer than `max` names are known; a known name's new type always.
      learn: db.prepare(`
        INSERT INTO learned_properties (name, type)
        SELECT @name, @type
        WHERE EXISTS (SELECT 1 FROM learned_properties WHERE name = @name)
           OR (SELECT count(DISTINCT name) FROM learned_properties) < @max
        ON CONFLICT DO NOTHING`),
      list: db.prepare('SELECT name, type FROM learned_properties ORDER BY name, type').raw(),
    };
  }

  /**
   * Records the own properties of written rows (each row's `[name, type]` pairs); called inside
   * the writing transaction.
   */
  learn(pairs: readonly (readonly [string, LearnedType])[]): void {
    for (const [name, type] of pairs) {
      const bit = TYPE_BITS[type];
      const seen = this.seen.get(name) ?? 0;
      if ((seen & bit) !== 0) continue;
      if (this.max > 0) this.statements.learn.run({ name, type, max: this.max });
      if (seen === 0 && this.seen.size >= SEEN_KEPT) this.seen.clear();
      this.seen.set(name, seen | bit);
    }
  }

  /** Every learned property with its types, by name. */
  list(): LearnedProperty[] {
    const byName = new Map<string, LearnedType[]>();
    for (const [name, type] of this.statements.list.all() as [string, LearnedType][]) {
      const types = byName.get(name);
      if (types) types.push(type);
      else byName.set(name, [type]);
    }
    return [...byName].map(([name, types]) => ({
      name,
      types,
      sortable: types.every((type) => SORTABLE_TYPES.has(type)),
    }));
  }

  /**
   * Learns the properties of the records already stored (a file written before the table
   * existed): one pass over the stored properties, in one transaction.
   */
  learnStored(): void {
    const rows = this.db
      .prepare(
        "SELECT DISTINCT j.key, j.type FROM records, json_each(records.props) AS j WHERE j.type NOT IN ('null', 'object')",
      )
      .raw()
      .all() as [string, string][];
    const pairs = rows.flatMap(([name, type]): [string, LearnedType][] => {
      const learned = JSON_EACH_TYPES[type];
      return learned === undefined || isCoreQueryableName(name) ? [] : [[name, learned]];
    });
    this.db.transaction(() => this.learn(pairs))();
  }
}
