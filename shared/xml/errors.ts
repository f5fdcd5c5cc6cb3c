/**
 * Typed rejections from the safe XML entry point. They are InvalidRecordErrors (400, exposed,
 * unrecoverable in a batch) that also say *why* the document was refused, so the CSW and FES
 * request parsers can map them to their own exception codes.
 */
import { InvalidRecordError, type CairnErrorOptions } from '../errors/index.js';

/** Why an XML document was refused. */
export type XmlRejectionReason =
  /** A `<!DOCTYPE …>` declaration without entity declarations or external identifiers. */
  | 'doctype'
  /** A DOCTYPE whose internal subset declares entities (e.g. "billion laughs"). */
  | 'entity-declaration'
  /** A DOCTYPE or entity that points outside the document (XXE), or an XInclude element. */
  | 'external-reference'
  /** The document is larger than the configured byte limit. */
  | 'too-large'
  /** Elements are nested deeper than the configured limit. */
  | 'too-deep'
  /** The text is not well-formed, namespace-valid XML (or not XML at all). */
  | 'malformed'
  /** The bytes are not valid in the document's encoding, or that encoding is not supported. */
  | 'encoding';

/** An XML document refused by `parseXml`, with the reason and, when known, the place. */
export class XmlParseError extends InvalidRecordError {
  readonly reason: XmlRejectionReason;

  constructor(reason: XmlRejectionReason, message: string, options: CairnErrorOptions = {}) {
    super(message, options);
    this.reason = reason;
  }
}
