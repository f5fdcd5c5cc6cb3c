/**
 * A CSW-T Transaction resolved into the writes it stands for, before anything is written.
 *
 * The actions are followed in order over a view of the catalogue: the backend as it is, overlaid
 * with what the earlier actions of the same Transaction inserted, replaced or deleted. Inserts
 * of existing or repeated ids, updates of missing records and bad Delete constraints are
 * exceptions; a Delete's constraint is evaluated now, against the backend for records the
 * Transaction has not touched and against the Transaction's own records (in a throwaway
 * in-memory SQLite catalogue) for those it has. The result is the final state of every touched
 * id, which the backend then applies as one unit (SearchBackend.applyAtomically).
 */
import { CairnError } from '../../../../shared/errors/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type { AtomicChanges, SearchBackend } from '../../../../shared/search/backend.js';
import { openScratchBackend } from '../../../../shared/search/scratch-backend.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import { checkFilter } from '../../../../shared/query/check-filter.js';
import { CswError, invalidParameter } from './csw-errors.js';
import { parseConstraint, type ConstraintInput, type ConstraintParts } from './parse-constraint.js';

/** One action of a Transaction, parsed and ready to resolve. */
export type TransactionAction =
  | { kind: 'insert'; handle?: string; records: CoreRecord[] }
  | { kind: 'update'; record: CoreRecord }
  | { kind: 'delete'; constraint: ConstraintInput };

/** The counts a TransactionResponse reports. */
export interface TransactionTotals {
  inserted: number;
  updated: number;
  deleted: number;
}

/** What a Transaction writes, and the totals it reports. */
export interface TransactionPlan {
  changes: AtomicChanges;
  totals: TransactionTotals;
}

/** Records per backend search page when collecting the ids a Delete matches. */
const DELETE_PAGE = 500;

/** A Delete constraint's failure as the CSW exception for its Constraint (never a 500). */
function constraintError(error: unknown): unknown {
  if (error instanceof CswError) return error;
  if (error instanceof CairnError && error.expose && error.status < 500)
    return invalidParameter(
      'Constraint',
      `the Delete constraint cannot be evaluated: ${error.message}`,
    );
  return error;
}

/** The ids of every record a query matches, page by page. */
async function allMatches(backend: SearchBackend, parts: ConstraintParts): Promise<string[]> {
  const ids: string[] = [];
  const filter = parts.filter && checkFilter(parts.filter);
  for (let offset = 0; ;) {
    const query: SearchQuery = {
      ...(parts.text ? { text: parts.text } : {}),
      ...(filter ? { filter } : {}),
      sort: [],
      offset,
      limit: DELETE_PAGE,
    };
    const page = await backend.search(query);
    ids.push(...page.records.map((record) => record.id));
    offset += page.records.length;
    if (page.records.length === 0 || offset >= page.total) return ids;
  }
}

/** The ids among `records` a constraint matches, evaluated in a throwaway in-memory catalogue. */
async function pendingMatches(records: CoreRecord[], parts: ConstraintParts): Promise<string[]> {
  if (records.length === 0) return [];
  const scratch = await openScratchBackend();
  try {
    const applied = await scratch.upsert(records);
    if (applied.failures.length > 0)
      throw invalidParameter(
        'Transaction',
        `record(s) cannot be stored: ${applied.failures.map((f) => `${f.id}: ${f.reason}`).join('; ')}`,
      );
    return await allMatches(scratch, parts);
  } finally {
    await scratch.close();
  }
}

/**
 * Resolves a Transaction's actions, in order, into its final writes; throws the CSW exception
 * of the first action that cannot be applied. Reads the backend, never writes.
 */
export async function planTransaction(
  backend: SearchBackend,
  actions: readonly TransactionAction[],
  options: { maxBytes: number },
): Promise<TransactionPlan> {
  /** Every id an earlier action touched: its record, or null once deleted. */
  const state = new Map<string, CoreRecord | null>();
  const inserted = new Set<string>();
  const totals: TransactionTotals = { inserted: 0, updated: 0, deleted: 0 };
  const exists = async (id: string): Promise<boolean> =>
    state.has(id) ? state.get(id) !== null : (await backend.get(id)) !== null;

  for (const action of actions) {
    if (action.kind === 'insert') {
      for (const record of action.records) {
        if (inserted.has(record.id))
          throw invalidParameter('Insert', `record "${record.id}" is inserted twice`);
        inserted.add(record.id);
        if (await exists(record.id))
          throw new CswError(
            'NoApplicableCode',
            'Insert',
            `record "${record.id}" already exists; replace it with an Update`,
            409,
          );
        state.set(record.id, record);
        totals.inserted += 1;
      }
    } else if (action.kind === 'update') {
      const { id } = action.record;
      if (!(await exists(id)))
        throw invalidParameter('Update', `no record "${id}" to update (Insert it instead)`);
      state.set(id, action.record);
      totals.updated += 1;
    } else {
      let matched: string[];
      try {
        const parts = parseConstraint(action.constraint, { maxBytes: options.maxBytes });
        const stored = (await allMatches(backend, parts)).filter((id) => !state.has(id));
        const pending = [...state.values()].filter((record): record is CoreRecord => !!record);
        matched = [...stored, ...(await pendingMatches(pending, parts))];
      } catch (error) {
        throw constraintError(error);
      }
      for (const id of matched) state.set(id, null);
      totals.deleted += matched.length;
    }
  }

  const changes: AtomicChanges = { upsert: [], delete: [] };
  for (const [id, record] of state) {
    if (record) changes.upsert.push(record);
    else changes.delete.push(id);
  }
  return { changes, totals };
}
