/**
 * How deeply JSON text nests arrays and objects, measured on the text before it is parsed, in
 * one pass and without recursion, so that a hostile document is refused before any recursive
 * code (JSON.stringify, the index document, the HTML page) meets it.
 */

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The default deepest nesting of a metadata record's JSON (JSON_DEPTH_LIMIT). */
export const DEFAULT_JSON_DEPTH = 64;

/** Whether JSON text (or its UTF-8 bytes) nests arrays and objects deeper than `limit`. */
export function exceedsJsonDepth(json: string | Uint8Array, limit: number): boolean {
  const at = typeof json === 'string' ? (i: number) => json.charCodeAt(i) : (i: number) => json[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    const code = at(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/** The refusal's wording, shared by the request parsers and the record reader. */
export function jsonDepthMessage(limit: number): string {
  return `JSON nested deeper than ${limit} levels of arrays and objects (JSON_DEPTH_LIMIT)`;
}
