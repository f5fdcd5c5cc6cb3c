/**
 * Resumption tokens: stateless, so that any API process answers them. A token carries the
 * listing it continues (verb, format, window, set), the checkpoint of the last entry given
 * (its change time and id: the next page is a keyset page after it), the cursor, the complete
 * list size counted on the first page, and its expiry; it is signed with HMAC-SHA256, so a
 * forged or altered token, or one made with another key, is refused as badResumptionToken
 * rather than read. Pure, given the key.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChangeCheckpoint, ChangeSet } from '../../../../shared/search/backend.js';
import { OaiError } from './model.js';

/** What a token carries. */
export interface ListingState {
  verb: 'ListIdentifiers' | 'ListRecords';
  metadataPrefix: string;
  from?: string;
  before?: string;
  set?: ChangeSet;
  after: ChangeCheckpoint;
  /** Entries given before the next page. */
  cursor: number;
  completeListSize: number;
  /** Epoch milliseconds after which the token is refused. */
  expires: number;
}

/** The longest token accepted (an id is at most a few kilobytes). */
const MAX_TOKEN_LENGTH = 16_384;

function sign(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** The token of a listing state. */
export function encodeToken(state: ListingState, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

function badToken(message: string): OaiError {
  return new OaiError('badResumptionToken', message);
}

function isSet(value: unknown): value is ChangeSet {
  if (typeof value !== 'object' || value === null) return false;
  const set = value as Record<string, unknown>;
  return (
    (set.field === 'type' || set.field === 'parentId') &&
    (set.value === undefined || typeof set.value === 'string')
  );
}

function isState(value: unknown): value is ListingState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Record<string, unknown>;
  const after = state.after as Record<string, unknown> | undefined;
  const optionalText = (key: string): boolean =>
    state[key] === undefined || typeof state[key] === 'string';
  return (
    (state.verb === 'ListIdentifiers' || state.verb === 'ListRecords') &&
    typeof state.metadataPrefix === 'string' &&
    optionalText('from') &&
    optionalText('before') &&
    (state.set === undefined || isSet(state.set)) &&
    typeof after === 'object' &&
    after !== null &&
    typeof after.changed === 'string' &&
    typeof after.id === 'string' &&
    Number.isInteger(state.cursor) &&
    Number.isInteger(state.completeListSize) &&
    typeof state.expires === 'number'
  );
}

/**
 * The listing state of a token given to `verb`; badResumptionToken when it is malformed,
 * forged, expired at `now`, or made for another verb.
 */
export function decodeToken(
  token: string,
  verb: ListingState['verb'],
  key: Buffer,
  now: number = Date.now(),
): ListingState {
  const dot = token.indexOf('.');
  if (token.length > MAX_TOKEN_LENGTH || dot === -1) throw badToken('The token is not one of ours');
  const payload = token.slice(0, dot);
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(token.slice(dot + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw badToken('The token is not one of ours');
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw badToken('The token is not one of ours');
  }
  if (!isState(state)) throw badToken('The token is not one of ours');
  if (state.verb !== verb) throw badToken(`The token continues a ${state.verb} listing`);
  if (state.expires <= now) throw badToken('The token has expired');
  return state;
}
