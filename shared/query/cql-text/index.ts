/**
 * CSW CQL_TEXT (classic OGC Common CQL) to the shared filter AST, with the operator names the
 * CQL2 and FES parsers use. Every parse failure is a FilterError (400, INVALID_FILTER).
 */
export { parseCqlText, type CqlTextHelpers } from './parse-cql-text.js';
