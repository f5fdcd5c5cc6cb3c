/**
 * OAI-PMH 2.0 as Cairn serves it: the verbs, the error codes, the namespaces and the parsed
 * request every verb is executed from. Pure.
 */

export const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
export const OAI_SCHEMA_LOCATION =
  'http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export const OAI_VERBS = [
  'Identify',
  'ListMetadataFormats',
  'ListSets',
  'ListIdentifiers',
  'ListRecords',
  'GetRecord',
] as const;

export type OaiVerb = (typeof OAI_VERBS)[number];

/** The arguments each verb takes (besides `verb`); `resumptionToken` is exclusive. */
export const VERB_ARGUMENTS: Readonly<Record<OaiVerb, { required: string[]; optional: string[] }>> =
  {
    Identify: { required: [], optional: [] },
    ListMetadataFormats: { required: [], optional: ['identifier'] },
    ListSets: { required: [], optional: ['resumptionToken'] },
    ListIdentifiers: {
      required: ['metadataPrefix'],
      optional: ['from', 'until', 'set', 'resumptionToken'],
    },
    ListRecords: {
      required: ['metadataPrefix'],
      optional: ['from', 'until', 'set', 'resumptionToken'],
    },
    GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
  };

export const OAI_ERROR_CODES = [
  'badArgument',
  'badResumptionToken',
  'badVerb',
  'cannotDisseminateFormat',
  'idDoesNotExist',
  'noRecordsMatch',
  'noMetadataFormats',
  'noSetHierarchy',
] as const;

export type OaiErrorCode = (typeof OAI_ERROR_CODES)[number];

/**
 * A protocol error: answered as an OAI-PMH `error` element with HTTP 200. `echoArguments`
 * false leaves the request's arguments out of the response's `request` element (the protocol
 * asks so for badVerb and badArgument).
 */
export class OaiError extends Error {
  readonly code: OaiErrorCode;
  constructor(code: OaiErrorCode, message: string) {
    super(message);
    this.name = 'OaiError';
    this.code = code;
  }

  get echoArguments(): boolean {
    return this.code !== 'badVerb' && this.code !== 'badArgument';
  }
}

/** A selective-harvesting window on the change time: `from` inclusive, `before` exclusive. */
export interface OaiWindow {
  /** ISO 8601 UTC. */
  from?: string;
  /** ISO 8601 UTC: the instant after `until` at its granularity. */
  before?: string;
}

/** The granularity Cairn's datestamps have (and the finest `from`/`until` it accepts). */
export const GRANULARITY = 'YYYY-MM-DDThh:mm:ssZ';

/** A parsed request: the verb and its checked arguments. */
export type OaiRequest =
  | { verb: 'Identify' }
  | { verb: 'ListMetadataFormats'; identifier?: string }
  | { verb: 'ListSets' }
  | {
      verb: 'ListIdentifiers' | 'ListRecords';
      /** Absent when resuming: the token carries the listing. */
      metadataPrefix?: string;
      from?: string;
      until?: string;
      set?: string;
      resumptionToken?: string;
    }
  | { verb: 'GetRecord'; identifier: string; metadataPrefix: string };
