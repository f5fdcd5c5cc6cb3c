/**
 * What a CSW output schema is to the presenter (present.ts): the outputSchema URIs that name it
 * and how it writes records into GetRecords and GetRecordById responses. One module per schema
 * in this folder; index.ts lists them.
 */
import type { CoreRecord } from '../../../../../shared/records/core-record.js';
import type { XmlNode } from '../../../../../shared/records/writers/xml/xml-builder.js';
import type { CswElementSet, CswVersion } from '../csw-model.js';
import type { RecordPresentation } from '../request.js';

/** Where and how one record is written. */
export interface RecordPlacement {
  version: CswVersion;
  presentation: RecordPresentation;
  /**
   * The record is the document's root (a CSW 3.0 GetRecordById answer of one record), so it
   * declares its own namespaces; otherwise it sits in a response's list of records.
   */
  standalone: boolean;
  /** The public base URL of the request, for schemas that name records by their URL (DCAT). */
  baseUrl: string;
}

/** One output schema. */
export interface CswOutputSchema {
  /** What the schema is, as people call it. */
  title: string;
  /** The outputSchema URIs that ask for it (csw:Record: each version's CSW namespace). */
  namespaces: readonly string[];
  /**
   * Prefixes declared on the root of a response whose records are in this schema
   * (GetRecordsResponse, CSW 2.0.2 GetRecordByIdResponse), so the records do not repeat them.
   */
  responseNamespaces: Readonly<Record<string, string>>;
  /**
   * The element set a response reports whatever element set was asked, for a schema whose
   * records are always written one way; unset, the one asked for is reported.
   */
  reportedElementSet?: CswElementSet;
  /** Appends one record under `parent` (a document or a response element). */
  appendRecord(parent: XmlNode, record: CoreRecord, placement: RecordPlacement): void;
  /**
   * The whole document of a record, for a CSW 3.0 GetRecordById answered in XML with one record,
   * when the schema has documents of its own; unset, the record is appended to an empty document.
   */
  writeDocument?(record: CoreRecord): string;
}
