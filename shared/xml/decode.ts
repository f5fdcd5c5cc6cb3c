/**
 * Bytes → XML text, honouring the document's own encoding (RFC 7303 §3, XML 1.0 appendix F):
 * a byte order mark first, then the `charset` of the media type when there is one, then the
 * XML declaration's `encoding`, else UTF-8. UTF-8 and UTF-16 are decoded by Node's TextDecoder
 * in fatal mode; every other encoding (ISO-8859-x, windows-125x, KOI8, Shift_JIS, EUC-*, GBK,
 * Big5 …) by iconv-lite, because Node 20's TextDecoder reads windows-1252 as ISO-8859-1. As
 * browsers do, ISO-8859-1 and US-ASCII are read as their superset windows-1252. Bytes that are
 * not valid in the encoding, or an encoding neither knows, are refused naming the encoding:
 * never replaced by U+FFFD.
 *
 * The text is stored and served as UTF-8, so a declaration naming another encoding is rewritten
 * to say UTF-8.
 */
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';
import { XmlParseError } from './errors.js';

/** A byte order mark or the first bytes of `<?` in a UTF-16 document without one. */
function sniffEncoding(bytes: Uint8Array): string | undefined {
  const [a, b, c] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  if (a === 0x3c && b === 0x00 && c === 0x3f) return 'utf-16le';
  if (a === 0x00 && b === 0x3c && bytes[3] === 0x3f) return 'utf-16be';
  return undefined;
}

/** The `encoding` pseudo-attribute of an XML declaration at the start of ASCII-compatible bytes. */
const DECLARED_ENCODING = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]*)\1/;

/** The encoding a declaration names, read from the first bytes (any ASCII-compatible encoding). */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 256)).toString(
    'latin1',
  );
  return DECLARED_ENCODING.exec(head)?.[2];
}

/** The `charset` parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

/** Rewrites the declaration of decoded text to say UTF-8 (the encoding it is kept in from now). */
function declareUtf8(text: string): string {
  return text.replace(
    /^(<\?xml\s[^>]*?\bencoding\s*=\s*)(["'])([^"']*)\2/,
    (whole, start: string, quote: string, name: string) =>
      /^utf-?8$/i.test(name) ? whole : `${start}${quote}UTF-8${quote}`,
  );
}

/**
 * Decodes an XML document's bytes into text (see the module comment). `charset` is the media
 * type's charset parameter, when the bytes came with one. Throws an XmlParseError (400) naming
 * the encoding when it is unknown or the bytes are not valid in it.
 */
export function decodeXml(bytes: Uint8Array, options: { charset?: string } = {}): string {
  const label = sniffEncoding(bytes) ?? options.charset ?? declaredEncoding(bytes) ?? 'utf-8';
  return declareUtf8(decodeAs(bytes, label));
}

/** Labels read as windows-1252, as the WHATWG Encoding Standard reads them. */
const WINDOWS_1252_LABELS = new Set([
  'iso-8859-1',
  'iso8859-1',
  'iso_8859-1',
  'latin1',
  'l1',
  'us-ascii',
  'ascii',
  'cp819',
  'ibm819',
]);

/** The text of bytes in the named encoding; refuses an unknown encoding or invalid bytes. */
function decodeAs(bytes: Uint8Array, label: string): string {
  const name = label.toLowerCase();
  const invalid = (): XmlParseError =>
    new XmlParseError(
      'encoding',
      `the XML document is not valid ${label} (declare its encoding, e.g. <?xml version="1.0" encoding="ISO-8859-1"?>, or send UTF-8)`,
    );
  if (/^(utf-?8|utf-?16(le|be)?|unicode-1-1-utf-8)$/.test(name)) {
    try {
      return new TextDecoder(name, { fatal: true }).decode(bytes);
    } catch {
      throw invalid();
    }
  }
  const encoding = WINDOWS_1252_LABELS.has(name) ? 'windows-1252' : name;
  if (!iconv.encodingExists(encoding))
    throw new XmlParseError('encoding', `the XML encoding "${label}" is not supported`);
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), encoding);
  // A legacy encoding has no U+FFFD of its own: iconv-lite writes it for bytes it cannot map.
  if (text.includes('\uFFFD')) throw invalid();
  return text;
}

/** Whether bytes look like an XML document (a BOM, UTF-16 `<?`, or `<` after white space). */
export function looksLikeXml(bytes: Uint8Array): boolean {
  if (sniffEncoding(bytes) !== undefined) return true;
  for (const byte of bytes.subarray(0, 1024)) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x3c;
  }
  return false;
}

/**
 * Decodes a document of any supported format: XML as `decodeXml` does, anything else (JSON,
 * NDJSON) as UTF-8.
 */
export function decodeDocument(bytes: Uint8Array, options: { charset?: string } = {}): string {
  return looksLikeXml(bytes)
    ? decodeXml(bytes, options)
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
}
