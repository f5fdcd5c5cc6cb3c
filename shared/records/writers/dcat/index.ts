/** DCAT-AP 3 / GeoDCAT-AP 3: the mapping of a record (and of a catalogue page) and its encodings. */
export {
  bboxWkt,
  buildCatalogPageGraph,
  buildDcatGraph,
  composeDescription,
  COMPOSED_DESCRIPTION_PREFIX,
  dcatKind,
  type CatalogPage,
  type DcatKind,
  type DcatOptions,
} from './dcat-graph.js';
export {
  appendRdfXml,
  DCAT_JSONLD_CONTEXT,
  distinctQuads,
  JSON_LD,
  RDF_XML,
  recordToRdfXml,
  TURTLE,
  writeJsonLd,
  writeRdfXml,
  writeTurtle,
} from './rdf-serialise.js';
export { DCAT_PREFIXES } from './vocabularies.js';
