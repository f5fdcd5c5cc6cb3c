/** CoreRecord → XML: csw:Record (brief/summary/full, CSW 2.0.2 and 3.0), ISO 19139, Atom entries. */
export { appendCswRecord, writeCswRecord } from './csw-record.js';
export type { CswElementSet, CswRecordOptions, CswVersion } from './csw-record.js';
export { appendIso19139, writeIso19139 } from './iso19139.js';
export type { Iso19139Options } from './iso19139.js';
export { appendAtomEntry, writeAtomEntry } from './atom-entry.js';
export { appendOaiDc, writeOaiDc } from './oai-dc.js';
export type { AtomEntryOptions } from './atom-entry.js';
export { appendParsedElement, appendSourceXml, createDocument, serialise } from './xml-builder.js';
export type { WriteOptions, XmlNode } from './xml-builder.js';
