/**
 * CSW-T (CSW 2.0.2 and 3.0): Transaction (Insert, Update by full replacement, Delete by
 * constraint) and Harvest, for tokens with the write role. The CSW router hands over POSTed
 * Transaction and Harvest documents when writes are configured (an identity provider is set);
 * otherwise they stay OperationNotSupported, as the capabilities then say.
 *
 * A Transaction is checked and resolved whole before anything is written (transaction-plan.ts:
 * bad records, missing update targets, duplicate inserts and Delete constraints that cannot be
 * evaluated are exceptions, nothing written), then its writes are applied as one unit: by the
 * backend at once in embedded mode, as one atomic ingest job the response waits for in scaled
 * mode. A failure while applying leaves the catalogue as it was.
 * Update by RecordProperty is OperationNotSupported. Harvest registers (or updates) the source
 * and runs it through shared/harvest; scaled mode answers an Acknowledgement with the job link.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import type { HarvestSourceDefinition } from '../../../../shared/harvest/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import { parseDocuments } from '../../../../shared/records/formats/index.js';
import {
  appendCswRecord,
  appendParsedElement,
  createDocument,
  serialise,
} from '../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import {
  attr,
  elementSource,
  parseXml,
  type XmlDocument,
  type XmlElement,
} from '../../../../shared/xml/index.js';
import { jobUrl } from '../../common/urls.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import { registerSource, runSource, type HarvestContext } from '../../commands/harvest.js';
import {
  AtomicWriteIncompleteError,
  AtomicWriteRefusedError,
  applyAtomically,
} from '../../commands/atomic-write.js';
import { logAppliedWrite } from '../../commands/write-records.js';
import { CswError, invalidParameter, missingParameter, optionNotSupported } from './csw-errors.js';
import {
  CSW_NAMESPACE,
  CSW_NS,
  CSW_PREFIX,
  SCHEMA_LOCATION,
  type CswVersion,
} from './csw-model.js';
import { type ConstraintInput } from './parse-constraint.js';
import {
  planTransaction,
  type TransactionAction,
  type TransactionPlan,
  type TransactionTotals,
} from './transaction-plan.js';
import { checkOperationVersion, checkService } from './parse.js';
import { checkVersionAttribute } from './parse-post.js';
import type { CswResponse } from './present.js';
import type { CommandContext } from '../../commands/context.js';

/** The CSW-T operations, as capabilities list them when writes are configured. */
export const TRANSACTION_OPERATIONS = ['Transaction', 'Harvest'] as const;

/** Harvest ResourceType values and what they harvest. */
export const HARVEST_RESOURCE_TYPES: Readonly<
  Record<string, Pick<HarvestSourceDefinition, 'protocol' | 'version' | 'outputSchema' | 'format'>>
> = Object.freeze({
  'http://www.opengis.net/cat/csw/2.0.2': { protocol: 'csw', version: '2.0.2', outputSchema: 'dc' },
  'http://www.opengis.net/cat/csw/3.0': { protocol: 'csw', version: '3.0.0', outputSchema: 'dc' },
  'http://www.isotc211.org/2005/gmd': { protocol: 'document', format: 'iso19139' },
  'http://www.isotc211.org/2005/gmi': { protocol: 'document', format: 'iso19139' },
  'http://purl.org/dc/elements/1.1/': { protocol: 'document', format: 'dublin-core' },
  'http://www.opengis.net/spec/ogcapi-records-1/1.0': { protocol: 'records' },
  'https://api.stacspec.org/v1.0.0/core': { protocol: 'stac' },
  // An OAI-PMH data provider's base URL, as pycsw names it; harvested in ISO 19139.
  'http://www.openarchives.org/OAI/2.0/': { protocol: 'oai-pmh', outputSchema: 'gmd' },
});

/** Whether CSW-T is offered: only with an identity provider to check the write role. */
export function writesConfigured(config: Readonly<Config>): boolean {
  return config.auth.provider !== undefined;
}

/** Whether a POSTed CSW document is a Transaction or Harvest request. */
export function isTransactionDocument(document: XmlDocument): boolean {
  const { root } = document;
  return (
    (root.ns === CSW_NAMESPACE['2.0.2'] || root.ns === CSW_NAMESPACE['3.0.0']) &&
    (TRANSACTION_OPERATIONS as readonly string[]).includes(root.local)
  );
}

export interface CswTransactionDependencies extends CommandContext {
  auth: AuthMiddleware;
  harvest: HarvestContext;
}

/**
 * Handles a Transaction or Harvest document (version from its namespace): POSTed, or built
 * from a KVP Harvest once the caller is known to have write access.
 */
export type CswTransactionHandler = (
  request: Request,
  response: Response,
  document: XmlDocument | (() => XmlDocument),
) => Promise<CswResponse>;

function plain(element: XmlElement, name: string): string | undefined {
  return attr(element, '', name);
}

function versionOf(root: XmlElement): CswVersion {
  return root.ns === CSW_NAMESPACE['2.0.2'] ? '2.0.2' : '3.0.0';
}

function checkRequestAttributes(root: XmlElement, version: CswVersion): void {
  checkService(plain(root, 'service'), true);
  const written = plain(root, 'version');
  if (written === undefined) throw missingParameter('version');
  checkVersionAttribute(written, version);
}

/** Parses the record elements of an Insert or Update; every bad one named in one exception. */
function parseRecordElements(
  document: XmlDocument,
  elements: readonly XmlElement[],
  locator: string,
  maxBytes: number,
): CoreRecord[] {
  const records: CoreRecord[] = [];
  const problems: string[] = [];
  elements.forEach((element, index) => {
    const parsed = parseDocuments(elementSource(document, element), {
      name: `${locator} record ${index + 1} (${element.local})`,
      maxBytes,
    });
    records.push(...parsed.records);
    problems.push(...parsed.failures.map((failure) => `${failure.name}: ${failure.reason}`));
  });
  if (problems.length > 0)
    throw invalidParameter(locator, `bad record(s), nothing was written: ${problems.join('; ')}`);
  return records;
}

function constraintOf(action: XmlElement): ConstraintInput {
  const constraint = action.children.find((item) => item.local === 'Constraint');
  if (constraint === undefined) throw missingParameter('Constraint', 'Delete needs a Constraint');
  const cql = constraint.children.find((item) => item.local === 'CqlText');
  const filter = constraint.children.find((item) => item.local === 'Filter');
  if (cql !== undefined && filter !== undefined)
    throw invalidParameter('Constraint', 'A Constraint holds either a Filter or CqlText');
  if (cql !== undefined) return { language: 'CQL_TEXT', text: cql.text.trim() };
  if (filter === undefined)
    throw missingParameter('Constraint', 'The Constraint holds neither a Filter nor CqlText');
  return { language: 'FILTER', xml: filter, version: plain(constraint, 'version') };
}

function parseActions(document: XmlDocument, maxBytes: number): TransactionAction[] {
  const actions: TransactionAction[] = [];
  for (const element of document.root.children) {
    if (element.ns !== document.root.ns)
      throw invalidParameter('Transaction', `unexpected element "${element.local}"`);
    switch (element.local) {
      case 'Insert': {
        if (element.children.length === 0)
          throw missingParameter('Insert', 'Insert needs at least one record');
        const handle = plain(element, 'handle');
        actions.push({
          kind: 'insert',
          ...(handle ? { handle } : {}),
          records: parseRecordElements(document, element.children, 'Insert', maxBytes),
        });
        break;
      }
      case 'Update': {
        if (element.children.some((item) => item.local === 'RecordProperty'))
          throw new CswError(
            'OperationNotSupported',
            'RecordProperty',
            'Update by RecordProperty is not supported; send the whole new record in the Update',
          );
        if (element.children.length !== 1)
          throw invalidParameter('Update', 'Update takes exactly one record (a full replacement)');
        const [record] = parseRecordElements(document, element.children, 'Update', maxBytes);
        if (record === undefined)
          throw invalidParameter('Update', 'Update takes exactly one record (a full replacement)');
        actions.push({ kind: 'update', record });
        break;
      }
      case 'Delete':
        actions.push({ kind: 'delete', constraint: constraintOf(element) });
        break;
      default:
        throw invalidParameter('Transaction', `unknown action "${element.local}"`);
    }
  }
  if (actions.length === 0)
    throw missingParameter('Transaction', 'A Transaction needs an Insert, Update or Delete');
  return actions;
}

/**
 * Applies a resolved Transaction as one unit (commands/atomic-write.ts), its refusals as CSW
 * exceptions: 400 when refused (nothing written), 503 when the ingest job did not complete.
 */
async function applyPlan(
  dependencies: CswTransactionDependencies,
  plan: TransactionPlan,
  requestedBy: string | undefined,
): Promise<void> {
  try {
    await applyAtomically(dependencies, plan.changes, requestedBy);
  } catch (error) {
    if (error instanceof AtomicWriteRefusedError)
      throw new CswError(
        'NoApplicableCode',
        'Transaction',
        error.by === 'backend'
          ? `the catalogue refused the Transaction, nothing was written: ${error.reason}`
          : `${error.reason}; nothing was written`,
        400,
      );
    if (error instanceof AtomicWriteIncompleteError)
      throw new CswError(
        'NoApplicableCode',
        'Transaction',
        `the ingest job ${error.jobId} did not complete: ${error.reason}`,
        503,
      );
    throw error;
  }
}

/** The schema location written on a response root of each version. */
function schemaLocation(version: CswVersion): string {
  const location =
    version === '2.0.2'
      ? 'http://schemas.opengis.net/csw/2.0.2/CSW-publication.xsd'
      : SCHEMA_LOCATION[version];
  return `${CSW_NAMESPACE[version]} ${location}`;
}

/** Appends a csw element with the version's namespaces declared on it. */
function appendCswElement(parent: XmlNode, version: CswVersion, local: string): XmlNode {
  const prefix = CSW_PREFIX[version];
  const element = parent.ele(CSW_NAMESPACE[version], `${prefix}:${local}`);
  declareNamespaces(element, { [prefix]: CSW_NAMESPACE[version], dc: CSW_NS.dc });
  return element;
}

/** Makes an element the response root: xsi:schemaLocation of the version's schemas. */
function markRoot(element: XmlNode, version: CswVersion): XmlNode {
  declareNamespaces(element, { xsi: CSW_NS.xsi });
  return element.att(CSW_NS.xsi, 'xsi:schemaLocation', schemaLocation(version));
}

/** Appends a TransactionResponse: the totals, and the inserted records (brief) when given. */
function appendTransactionResponse(
  parent: XmlNode,
  version: CswVersion,
  totals: TransactionTotals,
  options: {
    requestId?: string | undefined;
    inserted?: { handle?: string | undefined; records: CoreRecord[] }[];
  },
): XmlNode {
  const prefix = CSW_PREFIX[version];
  const ns = CSW_NAMESPACE[version];
  const response = appendCswElement(parent, version, 'TransactionResponse').att('version', version);
  const summary = response.ele(ns, `${prefix}:TransactionSummary`);
  if (options.requestId) summary.att('requestId', xmlText(options.requestId));
  summary.ele(ns, `${prefix}:totalInserted`).txt(String(totals.inserted)).up();
  summary.ele(ns, `${prefix}:totalUpdated`).txt(String(totals.updated)).up();
  summary.ele(ns, `${prefix}:totalDeleted`).txt(String(totals.deleted)).up();
  for (const insert of options.inserted ?? []) {
    if (insert.records.length === 0) continue;
    const result = response.ele(ns, `${prefix}:InsertResult`);
    if (insert.handle) result.att('handleRef', xmlText(insert.handle));
    for (const record of insert.records)
      appendCswRecord(result, record, { version, elementSet: 'brief' });
  }
  return response;
}

async function transaction(
  dependencies: CswTransactionDependencies,
  request: Request,
  document: XmlDocument,
  version: CswVersion,
): Promise<CswResponse> {
  const { root } = document;
  const verbose = ['true', '1'].includes(plain(root, 'verboseResponse') ?? 'false');
  const actions = parseActions(document, dependencies.config.limits.bodyBytes);
  const plan = await planTransaction(dependencies.backend, actions, {
    maxBytes: dependencies.config.limits.bodyBytes,
  });
  const started = new Date();
  await applyPlan(dependencies, plan, request.auth?.subject);
  const { totals } = plan;
  if (!dependencies.queue())
    await logAppliedWrite(dependencies.ingestLog(), {
      read: totals.inserted + totals.updated,
      written: totals.inserted + totals.updated,
      deleted: totals.deleted,
      requestedBy: request.auth?.subject,
      started,
    });
  const out = createDocument();
  const inserted = actions.flatMap((action) =>
    action.kind === 'insert' ? [{ handle: action.handle, records: action.records }] : [],
  );
  markRoot(
    appendTransactionResponse(out, version, totals, {
      requestId: plain(root, 'requestId'),
      inserted: verbose ? inserted : [],
    }),
    version,
  );
  return { status: 200, mediaType: 'application/xml', body: serialise(out) };
}

function childText(root: XmlElement, local: string): string | undefined {
  const element = root.children.find((item) => item.local === local);
  const value = element?.text.trim();
  return value ? value : undefined;
}

/** An xsd:duration (PnYnMnDTnHnMnS, no fractions of units but seconds) in whole minutes. */
export function durationMinutes(value: string): number {
  const match =
    /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      value,
    );
  if (!match || value === 'P' || value.endsWith('T'))
    throw invalidParameter('HarvestInterval', `"${value}" is not an ISO 8601 duration`);
  // An absent part counts as zero.
  const [, years = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0] =
    match.map((part) => (part === undefined ? 0 : Number(part)));
  const total =
    years * 525_600 +
    months * 43_200 +
    weeks * 10_080 +
    days * 1_440 +
    hours * 60 +
    minutes +
    seconds / 60;
  if (total < 1)
    throw invalidParameter('HarvestInterval', 'HarvestInterval must be at least one minute');
  return Math.round(total);
}

/** The source a Harvest request describes; its id is derived from the URL and resource type. */
export function parseHarvestRequest(root: XmlElement): HarvestSourceDefinition {
  if (root.children.some((item) => item.local === 'ResponseHandler'))
    throw optionNotSupported(
      'ResponseHandler',
      'Asynchronous delivery (ResponseHandler) is not supported; poll the job link of the Acknowledgement instead',
    );
  const url = childText(root, 'Source');
  if (!url) throw missingParameter('Source');
  if (!/^https?:\/\/[^\s]+$/i.test(url))
    throw invalidParameter('Source', 'Source must be an http(s) URL');
  const resourceType = childText(root, 'ResourceType');
  if (!resourceType) throw missingParameter('ResourceType');
  const kind = HARVEST_RESOURCE_TYPES[resourceType];
  if (!kind)
    throw invalidParameter(
      'ResourceType',
      `ResourceType "${resourceType}" is not harvested here; use one of ${Object.keys(HARVEST_RESOURCE_TYPES).join(', ')}`,
    );
  const format = childText(root, 'ResourceFormat');
  if (format !== undefined && !/^(application|text)\/([a-z+.-]*\+)?(xml|json)$/.test(format))
    throw invalidParameter('ResourceFormat', `ResourceFormat "${format}" is not XML or JSON`);
  const interval = childText(root, 'HarvestInterval');
  const hash = createHash('sha256').update(`${resourceType} ${url}`).digest('hex').slice(0, 16);
  return {
    id: `csw-harvest-${hash}`,
    title: `CSW Harvest of ${url}`,
    url,
    ...kind,
    ...(interval ? { intervalMinutes: durationMinutes(interval) } : {}),
  };
}

/** The KVP parameters of a Harvest (CSW 2.0.2 10.12.2, CSW 3.0 10.11.3) and their elements. */
const HARVEST_KVP: readonly [string, string][] = [
  ['source', 'Source'],
  ['resourcetype', 'ResourceType'],
  ['resourceformat', 'ResourceFormat'],
  ['harvestinterval', 'HarvestInterval'],
  ['responsehandler', 'ResponseHandler'],
];

/**
 * The Harvest document a KVP Harvest stands for (names lower-cased by readKvp), so that both
 * encodings take one path: the same checks, the same job, the same answer, whose
 * Acknowledgement echoes this document.
 */
export function harvestDocumentFromKvp(
  values: Readonly<Record<string, string>>,
  maxBytes: number,
): XmlDocument {
  const version = checkOperationVersion(values.version);
  const out = createDocument();
  const root = appendCswElement(out, version, 'Harvest');
  if (values.service !== undefined) root.att('service', xmlText(values.service));
  root.att('version', version);
  for (const [name, local] of HARVEST_KVP) {
    const value = values[name];
    if (value !== undefined)
      root.ele(CSW_NAMESPACE[version], `${CSW_PREFIX[version]}:${local}`).txt(xmlText(value));
  }
  return parseXml(serialise(out), { maxBytes });
}

async function harvest(
  dependencies: CswTransactionDependencies,
  request: Request,
  document: XmlDocument,
  version: CswVersion,
): Promise<CswResponse> {
  const { harvest: context } = dependencies;
  const definition = parseHarvestRequest(document.root);
  if (definition.intervalMinutes !== undefined && !context.queue())
    throw optionNotSupported(
      'HarvestInterval',
      'Periodic harvests need the scaled mode (a queue); send the Harvest without HarvestInterval',
    );
  await registerSource(context, definition, { replace: true });
  const ownedBefore = await context.store().ownedIds(definition.id);
  const run = await runSource(context, definition.id, {
    full: false,
    requestedBy: request.auth?.subject,
  });
  const out = createDocument();
  const root = markRoot(appendCswElement(out, version, 'HarvestResponse'), version);
  const prefix = CSW_PREFIX[version];
  const ns = CSW_NAMESPACE[version];
  if (run.mode === 'queued') {
    const acknowledgement = root.ele(ns, `${prefix}:Acknowledgement`, {
      timeStamp: new Date().toISOString(),
    });
    appendParsedElement(acknowledgement.ele(ns, `${prefix}:EchoedRequest`), document.root);
    acknowledgement
      .ele(ns, `${prefix}:RequestId`)
      .txt(xmlText(jobUrl(request.publicBaseUrl, run.jobId)));
    return { status: 200, mediaType: 'application/xml', body: serialise(out) };
  }
  const written = run.outcome.records.filter((record) => record.status === 'written');
  const inserted = written.filter((record) => !ownedBefore.has(record.name)).length;
  appendTransactionResponse(
    root,
    version,
    { inserted, updated: written.length - inserted, deleted: run.outcome.deleted },
    { requestId: run.jobId ? `urn:uuid:${run.jobId}` : undefined },
  );
  return { status: 200, mediaType: 'application/xml', body: serialise(out) };
}

/** Builds the handler the CSW router calls for Transaction and Harvest documents. */
export function createCswTransactionHandler(
  dependencies: CswTransactionDependencies,
): CswTransactionHandler {
  return async (request, response, given) => {
    await new Promise<void>((resolve, reject) =>
      dependencies.auth.writeAccess(request, response, (error?: unknown) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      ),
    );
    const document = typeof given === 'function' ? given() : given;
    const version = versionOf(document.root);
    checkRequestAttributes(document.root, version);
    return document.root.local === 'Harvest'
      ? harvest(dependencies, request, document, version)
      : transaction(dependencies, request, document, version);
  };
}
