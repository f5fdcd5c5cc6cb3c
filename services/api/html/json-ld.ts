/**
 * JSON-LD inside an HTML page: the text of a `<script type="application/ld+json">` element.
 * Pure.
 */

const SCRIPT_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON for the inside of a script element: `<`, `>`, `&` and the line and paragraph separators
 * written as \u escapes, so no text of a record can close the element (`</script>`), open a
 * comment (`<!--`) or break a JavaScript string, while every JSON reader reads the same values.
 * The result holds none of those characters, so the template prints it unescaped.
 */
export function serializeJsonLdForScript(document: unknown): string {
  return JSON.stringify(document).replace(/[<>&\u2028\u2029]/g, (char) => SCRIPT_ESCAPES[char]!);
}
