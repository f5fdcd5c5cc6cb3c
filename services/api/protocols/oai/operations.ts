/**
 * Executes a parsed OAI-PMH request against the backend's change listing and writes the
 * response: one function per verb, each throwing OaiError for the protocol's error conditions
 * (the router writes those as `error` responses with HTTP 200).
 */
import type { Config } from '../../../../shared/config/index.js';
import type { ChangeQuery, ChangeSet, SearchBackend } from '../../../../shared/search/backend.js';
import { findMetadataFormat, OAI_METADATA_FORMATS, type OaiMetadataFormat } from './formats.js';
import { OaiError, type OaiRequest } from './model.js';
import { parseWindow, recordIdOf } from './parse.js';
import {
  presentGetRecord,
  presentIdentify,
  presentListing,
  presentMetadataFormats,
  presentSets,
  type OaiEnvelope,
} from './present.js';
import { parseSetSpec, SET_ROOTS, setSpecOf } from './sets.js';
import { decodeToken, encodeToken, type ListingState } from './token.js';

/** What a request is executed with. */
export interface OaiContext {
  backend: SearchBackend;
  config: Readonly<Config>;
  /** The key resumption tokens are signed with. */
  tokenKey: Buffer;
  envelope: OaiEnvelope;
}

/** Most values of each set kind ListSets lists. */
const MAX_SETS_PER_KIND = 10_000;

function requireFormat(prefix: string): OaiMetadataFormat {
  const format = findMetadataFormat(prefix);
  if (format === undefined)
    throw new OaiError(
      'cannotDisseminateFormat',
      `${prefix} is not a metadata format of this repository`,
    );
  return format;
}

function requireSet(spec: string): ChangeSet {
  const set = parseSetSpec(spec);
  if (set === undefined)
    throw new OaiError('badArgument', `${spec} is not a set of this repository`);
  return set;
}

async function identify({ backend, config, envelope }: OaiContext): Promise<string> {
  const earliest = (await backend.earliestChange()) ?? envelope.now;
  return presentIdentify(
    {
      repositoryName: config.service.title,
      adminEmails: [config.service.contact.email ?? `admin@${config.oai.repositoryIdentifier}`],
      earliestDatestamp: earliest,
      deletedRecord: config.oai.tombstoneMaxAgeDays === undefined ? 'persistent' : 'transient',
    },
    envelope,
  );
}

async function listMetadataFormats(
  { backend, config, envelope }: OaiContext,
  identifier: string | undefined,
): Promise<string> {
  if (identifier === undefined) return presentMetadataFormats(OAI_METADATA_FORMATS, envelope);
  const id = recordIdOf(identifier, config.oai.repositoryIdentifier);
  const entry = id === undefined ? null : await backend.change(id);
  if (entry === null)
    throw new OaiError('idDoesNotExist', `${identifier} is not in this repository`);
  const record = entry.record;
  const formats = record
    ? OAI_METADATA_FORMATS.filter((format) => format.canDisseminate(record))
    : OAI_METADATA_FORMATS;
  if (formats.length === 0)
    throw new OaiError('noMetadataFormats', `${identifier} has no metadata format`);
  return presentMetadataFormats(formats, envelope);
}

async function listSets({ backend, envelope }: OaiContext): Promise<string> {
  const [types, collections] = await Promise.all([
    backend.domain('type', { limit: MAX_SETS_PER_KIND }),
    backend.domain('parentId', { limit: MAX_SETS_PER_KIND }),
  ]);
  const sets = [
    { spec: SET_ROOTS.type, name: 'Records by resource type' },
    ...types.map(({ value }) => ({
      spec: setSpecOf({ field: 'type', value }),
      name: `Resource type ${value}`,
    })),
    { spec: SET_ROOTS.parentId, name: 'Records by parent collection' },
    ...collections.map(({ value }) => ({
      spec: setSpecOf({ field: 'parentId', value }),
      name: `Records of collection ${value}`,
    })),
  ];
  return presentSets(sets, envelope);
}

async function getRecord(
  { backend, config, envelope }: OaiContext,
  identifier: string,
  prefix: string,
): Promise<string> {
  const format = requireFormat(prefix);
  const id = recordIdOf(identifier, config.oai.repositoryIdentifier);
  const entry = id === undefined ? null : await backend.change(id);
  if (entry === null)
    throw new OaiError('idDoesNotExist', `${identifier} is not in this repository`);
  if (entry.record && !format.canDisseminate(entry.record))
    throw new OaiError('cannotDisseminateFormat', `${identifier} is not available as ${prefix}`);
  return presentGetRecord(entry, format, config.oai.repositoryIdentifier, envelope);
}

/** The listing a request starts, or the one its token continues. */
function listingOf(
  request: Extract<OaiRequest, { verb: 'ListIdentifiers' | 'ListRecords' }>,
  tokenKey: Buffer,
  now: number,
): {
  state: Omit<ListingState, 'after' | 'cursor' | 'completeListSize' | 'expires'>;
  resumed?: ListingState;
} {
  if (request.resumptionToken !== undefined) {
    const resumed = decodeToken(request.resumptionToken, request.verb, tokenKey, now);
    return { state: resumed, resumed };
  }
  const metadataPrefix = request.metadataPrefix ?? '';
  requireFormat(metadataPrefix);
  const window = parseWindow(request.from, request.until);
  return {
    state: {
      verb: request.verb,
      metadataPrefix,
      ...window,
      ...(request.set === undefined ? {} : { set: requireSet(request.set) }),
    },
  };
}

async function list(
  { backend, config, tokenKey, envelope }: OaiContext,
  request: Extract<OaiRequest, { verb: 'ListIdentifiers' | 'ListRecords' }>,
): Promise<string> {
  const now = Date.parse(envelope.now);
  const { state, resumed } = listingOf(request, tokenKey, now);
  const format = requireFormat(state.metadataPrefix);
  const pageSize = config.oai.pageSize;
  const query: ChangeQuery = {
    limit: pageSize + 1,
    withRecords: request.verb === 'ListRecords',
    count: resumed === undefined,
    ...(state.from === undefined ? {} : { from: state.from }),
    ...(state.before === undefined ? {} : { before: state.before }),
    ...(state.set === undefined ? {} : { set: state.set }),
    ...(resumed === undefined ? {} : { after: resumed.after }),
  };
  const page = await backend.changes(query);
  const entries = page.entries.slice(0, pageSize);
  if (resumed === undefined && entries.length === 0)
    throw new OaiError('noRecordsMatch', 'No record matches the arguments');
  const cursor = resumed?.cursor ?? 0;
  const completeListSize = resumed?.completeListSize ?? page.total ?? entries.length;
  const last = entries.at(-1);
  let resumption;
  if (page.entries.length > pageSize && last !== undefined) {
    const expires = now + config.oai.tokenTtlSeconds * 1000;
    const next: ListingState = {
      ...state,
      verb: request.verb,
      after: { changed: last.changed, id: last.id },
      cursor: cursor + entries.length,
      completeListSize: Math.max(completeListSize, cursor + entries.length + 1),
      expires,
    };
    resumption = {
      token: encodeToken(next, tokenKey),
      expirationDate: new Date(expires).toISOString(),
      cursor,
      completeListSize: next.completeListSize,
    };
  } else if (resumed !== undefined) {
    // The last page of a resumed listing: an empty token says the list is complete.
    resumption = { cursor, completeListSize: Math.max(completeListSize, cursor + entries.length) };
  }
  return presentListing(
    request.verb,
    entries,
    format,
    config.oai.repositoryIdentifier,
    resumption,
    envelope,
  );
}

/** Executes a request; OaiError for the protocol's error conditions. */
export function executeOaiRequest(request: OaiRequest, context: OaiContext): Promise<string> {
  switch (request.verb) {
    case 'Identify':
      return identify(context);
    case 'ListMetadataFormats':
      return listMetadataFormats(context, request.identifier);
    case 'ListSets':
      return listSets(context);
    case 'GetRecord':
      return getRecord(context, request.identifier, request.metadataPrefix);
    case 'ListIdentifiers':
    case 'ListRecords':
      return list(context, request);
  }
}
