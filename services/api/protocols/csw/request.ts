/**
 * A CSW request after parsing: the same shape whether it came as KVP (GET or form POST) or as
 * an XML POST body, so that execution and presentation never look at the encoding.
 */
import type { QueryLimits } from '../../../../shared/query/query-limits.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import type { XmlElement } from '../../../../shared/xml/index.js';
import type { OpenSearchEcho } from '../opensearch/parse.js';
import type { CswElementSet, CswVersion, ResultType } from './csw-model.js';

/** Capabilities sections a response carries. */
export interface SectionSelection {
  serviceIdentification: boolean;
  serviceProvider: boolean;
  operationsMetadata: boolean;
  filterCapabilities: boolean;
  languages: boolean;
}

export interface GetCapabilitiesRequest {
  operation: 'GetCapabilities';
  version: CswVersion;
  sections: SectionSelection;
  /** Respond with text/xml rather than application/xml (acceptFormats). */
  mediaType: string;
  /** `mode=opensearch`: answer with the OpenSearch description document instead. */
  openSearch: boolean;
}

export interface DescribeRecordRequest {
  operation: 'DescribeRecord';
  version: CswVersion;
}

/** How records are written: an element set, or the chosen elements of a csw:Record. */
export type RecordPresentation =
  | { kind: 'elementSet'; elementSet: CswElementSet }
  | { kind: 'elementNames'; names: { ns: string; local: string; written: string }[] };

/** The response encoding: CSW XML, its JSON rendering, or an Atom feed/entry. */
export type OutputFormat = 'xml' | 'json' | 'atom';

export interface GetRecordsRequest {
  operation: 'GetRecords';
  version: CswVersion;
  /** Type names as written, for echoing. */
  typeNames: string[];
  presentation: RecordPresentation;
  outputSchema: string;
  outputFormat: OutputFormat;
  /** The XML media type to answer with (application/xml or text/xml). */
  xmlMediaType: string;
  resultType: ResultType;
  /** 1-based. */
  startPosition: number;
  maxRecords: number;
  query: SearchQuery;
  requestId?: string;
  /** `mode=opensearch` or an Atom output: what the feed echoes in os:Query and its links. */
  openSearch?: OpenSearchEcho;
  /** Set when the query names record ids (recordIds, geo:uid): none found is a NotFound here. */
  notFoundLocator?: string;
  /** The request itself, for `resultType=validate` (csw:Acknowledgement/EchoedRequest). */
  echo?: XmlElement;
}

export interface GetRecordByIdRequest {
  operation: 'GetRecordById';
  version: CswVersion;
  ids: string[];
  /**
   * CSW 3.0 KVP: the `id` value as written when it holds commas. A record whose id is exactly
   * that value is the one asked for; otherwise the value is the list `ids`.
   */
  literalId?: string;
  /**
   * CSW 3.0: answer with the records in a csw30:GetRecordsResponse (as GetRecords with
   * `recordIds` would) even for one id, because the client is OWSLib, which reads records only
   * below the document root. Several ids are always answered that way.
   */
  asResultList: boolean;
  presentation: RecordPresentation;
  outputSchema: string;
  outputFormat: OutputFormat;
  xmlMediaType: string;
}

export interface GetRepositoryItemRequest {
  operation: 'GetRepositoryItem';
  version: CswVersion;
  id: string;
}

export interface GetDomainRequest {
  operation: 'GetDomain';
  version: CswVersion;
  /** `Operation.parameter` names. */
  parameterNames: string[];
  /** Queryable names (3.0 valueReference, 2.0.2 PropertyName). */
  valueReferences: string[];
}

export type CswRequest =
  | GetCapabilitiesRequest
  | DescribeRecordRequest
  | GetRecordsRequest
  | GetRecordByIdRequest
  | GetRepositoryItemRequest
  | GetDomainRequest;

/** Configured limits and defaults the parsers need. */
export interface CswParseContext {
  defaultLimit: number;
  maxLimit: number;
  /** Largest accepted XML request body, in bytes. */
  maxBytes: number;
  /** Query cost limits: a CQL_TEXT constraint far over them is refused before it is parsed. */
  query?: QueryLimits;
  /** The request's Accept header, for outputFormat negotiation (CSW 3.0). */
  accept?: string | undefined;
}
