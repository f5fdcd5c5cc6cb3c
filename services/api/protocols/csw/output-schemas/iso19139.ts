/**
 * ISO 19139 (outputSchema `http://www.isotc211.org/2005/gmd`): each record as gmd:MD_Metadata,
 * its stored ISO 19139 source when it came as one, always whole (no element sets).
 */
import type { CoreRecord } from '../../../../../shared/records/core-record.js';
import { appendIso19139, writeIso19139 } from '../../../../../shared/records/writers/xml/index.js';
import type { XmlNode } from '../../../../../shared/records/writers/xml/xml-builder.js';
import { CSW_NS } from '../csw-model.js';
import type { CswOutputSchema, RecordPlacement } from './output-schema.js';

function appendRecord(parent: XmlNode, record: CoreRecord, { standalone }: RecordPlacement): void {
  // In a list (not standalone), gmi:MI_Metadata as gmd:MD_Metadata: OWSLib reads either the
  // MD_Metadata or the MI_Metadata elements of a response, so it would drop one kind.
  appendIso19139(parent, record, { asMdMetadata: !standalone });
}

/** ISO 19139 gmd:MD_Metadata. */
export const ISO_19139: CswOutputSchema = Object.freeze({
  title: 'ISO 19139 (gmd:MD_Metadata)',
  namespaces: [CSW_NS.gmd],
  responseNamespaces: { gmd: CSW_NS.gmd, gco: CSW_NS.gco },
  reportedElementSet: 'full',
  appendRecord,
  // The whole ISO 19139 document: a record that came as ISO 19139 is its source, verbatim.
  writeDocument: (record: CoreRecord) => writeIso19139(record),
});
