/**
 * Runs a parsed CSW request against the search backend and presents the answer: the one place
 * where CSW touches the backend. Every branch is short; parsing and writing live elsewhere.
 */
import type { Config } from '../../../../shared/config/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { GEOJSON } from '../../common/media-types.js';
import { cswUrl, oaiUrl, openSearchDescriptionUrl, recordUrl } from '../../common/urls.js';
import { describeOpenSearch } from '../opensearch/describe.js';
import { presentAtomFeed, type EntryLink } from '../opensearch/present.js';
import { presentCapabilities, presentDescribeRecord } from './capabilities.js';
import { CswError, invalidParameter } from './csw-errors.js';
import { ATOM, findParameterDomain } from './csw-model.js';
import { resolveDomainProperty } from './parse-constraint.js';
import {
  presentAcknowledgement,
  presentGetDomain,
  presentGetRecordById,
  presentGetRecords,
  type CswResponse,
  type DomainEntry,
} from './present.js';
import type { CswRequest, GetRecordByIdRequest, GetRecordsRequest } from './request.js';
import { writesConfigured } from './transaction.js';
import type { SearchScope } from '../../../../shared/search/search-scope.js';

export interface CswDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
}

/** Per-request facts the responses link with. */
export interface RequestFacts {
  /** Public base URL of the deployment, without a trailing slash. */
  baseUrl: string;
  /** The request's search scope (its client, deadline and abort signal). */
  scope?: SearchScope | undefined;
}

/** Largest number of distinct values GetDomain reports for one property. */
const DOMAIN_LIMIT = 1000;

/** Links an Atom entry carries to the record's other encodings. */
function entryLinks(baseUrl: string, record: CoreRecord): EntryLink[] {
  const id = encodeURIComponent(record.id);
  const csw = cswUrl(baseUrl);
  return [
    {
      rel: 'alternate',
      type: 'application/xml',
      title: 'CSW record',
      href: `${csw}?service=CSW&version=3.0.0&request=GetRecordById&elementSetName=full&id=${id}`,
    },
    {
      rel: 'alternate',
      type: GEOJSON,
      title: 'OGC API – Records record',
      href: recordUrl(baseUrl, record.id),
    },
    {
      rel: 'via',
      type: record.source.mediaType,
      title: 'Source metadata document',
      href: `${csw}?service=CSW&version=3.0.0&request=GetRepositoryItem&id=${id}`,
    },
  ];
}

async function getRecords(
  request: GetRecordsRequest,
  { config, backend }: CswDependencies,
  facts: RequestFacts,
): Promise<CswResponse> {
  const timeStamp = new Date().toISOString();
  if (request.resultType === 'validate')
    return presentAcknowledgement(request, { timeStamp, baseUrl: facts.baseUrl });
  const started = process.hrtime.bigint();
  const result = await backend.search(request.query, { scope: facts.scope });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (request.notFoundLocator !== undefined && result.total === 0) {
    throw new CswError(
      'NotFound',
      request.notFoundLocator,
      `No record found for ${request.notFoundLocator} "${(request.query.ids ?? []).join(',')}"`,
    );
  }
  if (request.outputFormat === 'atom') {
    const body = presentAtomFeed(result.records, {
      service: config.service,
      endpoint: cswUrl(facts.baseUrl),
      query: request.openSearch?.query ?? [],
      parameters: request.openSearch?.parameters ?? {
        startIndex: String(request.startPosition),
        count: String(request.maxRecords),
      },
      startPosition: request.startPosition,
      maxRecords: request.maxRecords,
      total: result.total,
      descriptionUrl: openSearchDescriptionUrl(facts.baseUrl),
      updated: timeStamp,
      entryLinks: (record) => entryLinks(facts.baseUrl, record),
    });
    return { status: 200, mediaType: ATOM, body };
  }
  return presentGetRecords(request, result.records, result.total, {
    timeStamp,
    elapsedMs,
    baseUrl: facts.baseUrl,
  });
}

async function getDomain(
  request: Extract<CswRequest, { operation: 'GetDomain' }>,
  { backend }: CswDependencies,
): Promise<CswResponse> {
  const entries: DomainEntry[] = [];
  for (const name of request.parameterNames) {
    const domain = findParameterDomain(request.version, name);
    if (domain === undefined) {
      throw invalidParameter('parameterName', `"${name}" is not a parameter of this service`);
    }
    entries.push({ kind: 'parameter', name: domain.name, values: domain.values });
  }
  for (const name of request.valueReferences) {
    const field = resolveDomainProperty(name);
    const values = await backend.domain(field, { limit: DOMAIN_LIMIT });
    entries.push({ kind: 'property', name, values });
  }
  return presentGetDomain(request.version, entries);
}

async function getRecordById(
  request: GetRecordByIdRequest,
  { backend }: CswDependencies,
  facts: RequestFacts,
): Promise<CswResponse> {
  const literal = request.literalId === undefined ? null : await backend.get(request.literalId);
  const found =
    literal !== null ? [literal] : await Promise.all(request.ids.map((id) => backend.get(id)));
  const records = found.filter((record): record is CoreRecord => record !== null);
  if (request.version === '3.0.0' && records.length === 0) {
    const written = request.literalId ?? request.ids.join(',');
    throw new CswError('NotFound', 'id', `No record found for id "${written}"`);
  }
  // Several ids get a list, unless the whole comma-separated value was one record's id.
  const asResultList = request.asResultList || (literal === null && request.ids.length > 1);
  return presentGetRecordById(
    records,
    { ...request, asResultList },
    { timeStamp: new Date().toISOString(), baseUrl: facts.baseUrl },
  );
}

/** Executes a parsed CSW request and returns the response to send. */
export async function executeCswRequest(
  request: CswRequest,
  dependencies: CswDependencies,
  facts: RequestFacts,
): Promise<CswResponse> {
  const { config, backend } = dependencies;
  switch (request.operation) {
    case 'GetCapabilities': {
      if (request.openSearch) return describeOpenSearch(backend, config.service, facts.baseUrl);
      const body = presentCapabilities(request.version, request.sections, {
        service: config.service,
        endpoint: cswUrl(facts.baseUrl),
        openSearchUrl: openSearchDescriptionUrl(facts.baseUrl),
        oaiUrl: oaiUrl(facts.baseUrl),
        maxRecordDefault: config.limits.defaultLimit,
        backend: backend.kind,
        spatial: backend.spatial,
        transactions: writesConfigured(config),
      });
      return { status: 200, mediaType: request.mediaType, body };
    }
    case 'DescribeRecord':
      return { status: 200, mediaType: 'application/xml', body: presentDescribeRecord() };
    case 'GetRecords':
      return getRecords(request, dependencies, facts);
    case 'GetRecordById':
      return getRecordById(request, dependencies, facts);
    case 'GetRepositoryItem': {
      const record = await backend.get(request.id);
      if (record === null) {
        throw new CswError('NotFound', 'id', `No repository item found for id "${request.id}"`);
      }
      return { status: 200, mediaType: record.source.mediaType, body: record.source.content };
    }
    case 'GetDomain':
      return getDomain(request, dependencies);
  }
}
