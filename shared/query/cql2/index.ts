/**
 * CQL2 (OGC 21-065) in its two encodings, text and JSON, to and from the shared filter AST.
 * Both parsers give deep-equal trees for the same expression, and printing then parsing a
 * tree gives the tree back. Every parse failure is a FilterError (400, INVALID_FILTER).
 */
export { parseCql2Text } from './parse-cql2-text.js';
export { parseCql2Json } from './parse-cql2-json.js';
export { printCql2Text } from './print-cql2-text.js';
export { printCql2Json, type JsonValue } from './print-cql2-json.js';
export { CQL2_RESERVED_WORDS, isCql2Identifier, isCql2ReservedWord } from './cql2-lexical.js';
