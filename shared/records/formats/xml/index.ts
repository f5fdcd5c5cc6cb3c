/** XML metadata formats (ISO 19139 / 19115-2, ISO 19115-3, Dublin Core csw:Record) → CoreRecord. */
export {
  detectXmlRecordFormat,
  findRecordElements,
  parseDublinCore,
  parseIso19115_3,
  parseIso19139,
  parseXmlDocuments,
  parseXmlRecord,
  readXmlRecordElement,
} from './xml-records.js';
export type { XmlParseOptions, XmlRecordFormat } from './xml-records.js';
export { ISO_EXTRA_KEYS } from './iso-reader.js';
export { DUBLIN_CORE_EXTRA_KEYS, readOwsBoundingBox } from './dublin-core.js';
