/** Safe XML parsing and prefix-agnostic navigation for all of Cairn (see README.md here). */
export { parseXml, DEFAULT_XML_LIMITS } from './parse-xml.js';
export type {
  XmlAttribute,
  XmlDocument,
  XmlElement,
  XmlLimitOptions,
  XmlLimits,
} from './parse-xml.js';
export { XmlParseError } from './errors.js';
export { charsetOf, decodeDocument, decodeXml, looksLikeXml } from './decode.js';
export type { XmlRejectionReason } from './errors.js';
export {
  ANY_ELEMENT,
  attr,
  child,
  children,
  deepText,
  descendants,
  elementSource,
  find,
  findAll,
  findText,
  isElement,
  lookupNamespace,
  namespace,
  text,
  xmlName,
} from './navigate.js';
export type { XmlName } from './navigate.js';
export { NS } from './namespaces.js';
