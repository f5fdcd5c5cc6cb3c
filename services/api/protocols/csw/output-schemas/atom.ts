/**
 * Atom (outputSchema `http://www.w3.org/2005/Atom`, which CSW 3.0 requires to be offered): each
 * record as an atom:entry inside the CSW response.
 */
import type { CoreRecord } from '../../../../../shared/records/core-record.js';
import { appendAtomEntry } from '../../../../../shared/records/writers/xml/index.js';
import type { XmlNode } from '../../../../../shared/records/writers/xml/xml-builder.js';
import { CSW_NS } from '../csw-model.js';
import type { CswOutputSchema } from './output-schema.js';

/** Atom entries. */
export const ATOM_ENTRY: CswOutputSchema = Object.freeze({
  title: 'Atom (atom:entry)',
  namespaces: [CSW_NS.atom],
  responseNamespaces: {},
  appendRecord: (parent: XmlNode, record: CoreRecord) => {
    appendAtomEntry(parent, record);
  },
});
