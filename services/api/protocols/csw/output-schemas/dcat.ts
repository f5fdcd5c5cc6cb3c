/**
 * DCAT-AP (outputSchema `http://www.w3.org/ns/dcat#`, as pycsw offers it): each record as an
 * rdf:RDF element holding its DCAT-AP 3 / GeoDCAT-AP 3 description in RDF/XML, inside the CSW
 * response (or, for a CSW 3.0 GetRecordById of one record, as the document). Always whole.
 */
import type { CoreRecord } from '../../../../../shared/records/core-record.js';
import { appendRdfXml, buildDcatGraph } from '../../../../../shared/records/writers/dcat/index.js';
import type { XmlNode } from '../../../../../shared/records/writers/xml/xml-builder.js';
import { dcatOptions } from '../../../common/dcat-options.js';
import { DCAT_OUTPUT_SCHEMA } from '../csw-model.js';
import type { CswOutputSchema, RecordPlacement } from './output-schema.js';

function appendRecord(parent: XmlNode, record: CoreRecord, { baseUrl }: RecordPlacement): void {
  appendRdfXml(parent, buildDcatGraph(record, dcatOptions(baseUrl)));
}

/** DCAT-AP in RDF/XML. */
export const DCAT_AP: CswOutputSchema = Object.freeze({
  title: 'DCAT-AP 3 / GeoDCAT-AP 3 (rdf:RDF)',
  namespaces: [DCAT_OUTPUT_SCHEMA],
  responseNamespaces: {},
  reportedElementSet: 'full',
  appendRecord,
});
