/**
 * Structure-aware mutations for the fuzz suites. Near-valid inputs reach much deeper into a
 * parser than random bytes, so these start from a real document (an ISO record, a CSW request,
 * a STAC Item) and corrupt it the way broken clients and hostile senders do: a value replaced
 * by one of the wrong kind, an element dropped or duplicated, a tag renamed, a DTD or an entity
 * slipped in, the text cut short.
 */
import fc from 'fast-check';
import { defined } from './defined.js';

/** Values that break readers: wrong kinds, out-of-range numbers, impossible dates, markup. */
export const HOSTILE_VALUES: readonly string[] = [
  '',
  ' ',
  '-',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '-1e400',
  '5e-324',
  '999',
  '-999',
  '91',
  '-181',
  '0 0',
  '1 2 3',
  '1,2,3,4,5',
  '2021-02-30',
  '0000-00-00',
  '2021-13-01T25:61:61Z',
  '99999-01-01',
  '-0001-01-01',
  '2020-01-01T00:00:00+99:99',
  'T',
  '..',
  'now',
  'urn:ogc:def:crs:EPSG::4326',
  'EPSG:3857',
  'urn:ogc:def:crs:EPSG::999999',
  'http://',
  'javascript:alert(1)',
  'eo:cloudCover:abc',
  'eo:cloudCover:1e999',
  'eo:',
  '&amp;&lt;&gt;',
  '&#0;',
  '&#xD800;',
  'é𝔸\u200b',
  '<b>x</b>',
  '<![CDATA[]]>',
  'x'.repeat(5000),
];

/** Fragments slipped into XML between elements. */
const XML_FRAGMENTS: readonly string[] = [
  '<!DOCTYPE x [<!ENTITY a "b">]>',
  '<!DOCTYPE x SYSTEM "file:///etc/passwd">',
  '&xxe;',
  '&amp;',
  '<![CDATA[<x>]]>',
  '<!-- comment -->',
  '<?pi data?>',
  '<x:y xmlns:x="urn:x"/>',
  '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd"/>',
  '</',
  '<',
  '>',
  '"',
  '\u0000',
];

const hostileValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);

/** Text safe to put in XML character data or a quoted attribute, usually (not always) escaped. */
const xmlValue = fc
  .tuple(hostileValue, fc.nat({ max: 9 }))
  .map(([value, roll]) =>
    roll === 0 ? value : value.replace(/&(?![a-z#][a-z0-9]*;)/gi, '&amp;').replace(/"/g, '&quot;'),
  );

interface Range {
  start: number;
  end: number;
}

function rangesOf(text: string, pattern: RegExp, group: number): Range[] {
  const ranges: Range[] = [];
  for (const match of text.matchAll(pattern)) {
    const matched = defined(match[group], `group ${group} of ${pattern}`);
    const start = (match.index ?? 0) + match[0].indexOf(matched);
    ranges.push({ start, end: start + matched.length });
  }
  return ranges;
}

/** Replaces non-overlapping ranges of `text` (applied from the end, so offsets stay valid). */
function replaceRanges(text: string, edits: [Range, string][]): string {
  const sorted = [...edits].sort((a, b) => b[0].start - a[0].start);
  let result = text;
  let limit = Infinity;
  for (const [range, value] of sorted) {
    if (range.end > limit) continue;
    result = result.slice(0, range.start) + value + result.slice(range.end);
    limit = range.start;
  }
  return result;
}

/** The extent of every element of a well-formed document, from its start tag to its end tag. */
function elementRanges(document: string): Range[] {
  const ranges: Range[] = [];
  const open: number[] = [];
  for (const match of document.matchAll(/<(\/?)[\w:.-]+(?:"[^"]*"|'[^']*'|[^>"'])*?(\/?)>/g)) {
    const at = match.index ?? 0;
    const end = at + match[0].length;
    if (match[2] === '/') ranges.push({ start: at, end });
    else if (match[1] === '/') ranges.push({ start: open.pop() ?? 0, end });
    else open.push(at);
  }
  return ranges;
}

/**
 * Mutations of one XML document: text nodes and attribute values replaced by hostile values,
 * and in half of the mutants one structural edit — an element dropped, duplicated or moved
 * (the document stays well-formed, so these reach the record readers), a tag renamed, a
 * fragment (DTD, entity, XInclude…) inserted, or the text cut short. Analysed once per document.
 */
export function mutateXml(document: string): fc.Arbitrary<string> {
  const texts = rangesOf(document, />([^<]*\S[^<]*)</g, 1);
  const attributes = rangesOf(document, /\s[\w:.-]+="([^"]*)"/g, 1);
  const tags = rangesOf(document, /(<\/?[\w:.-]+)/g, 1);
  const elements = elementRanges(document);
  const valueEdits = fc.array(
    fc.tuple(fc.boolean(), fc.nat(), xmlValue).map(([onText, index, value]) => {
      const pool = onText || attributes.length === 0 ? texts : attributes;
      return [pool[index % Math.max(1, pool.length)], value] as [Range | undefined, string];
    }),
    { minLength: 1, maxLength: 4 },
  );
  const pick = (list: Range[], index: number): Range =>
    list[index % Math.max(1, list.length)] ?? { start: 0, end: 0 };
  const element = fc.nat().map((index) => pick(elements, index));
  const structural = fc.oneof(
    {
      weight: 3,
      arbitrary: element.map((e) => (text: string) => text.slice(0, e.start) + text.slice(e.end)),
    },
    {
      weight: 2,
      arbitrary: element.map(
        (e) => (text: string) =>
          text.slice(0, e.end) + text.slice(e.start, e.end) + text.slice(e.end),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(element, element).map(([e, target]) => (text: string) => {
        if (target.start >= e.start && target.start < e.end) return text;
        const moved = text.slice(e.start, e.end);
        const without = text.slice(0, e.start) + text.slice(e.end);
        const at = target.start > e.start ? target.start - moved.length : target.start;
        return without.slice(0, at) + moved + without.slice(at);
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.nat(),
          fc.constantFrom('x', 'gmd:MD_Metadata', 'gco:CharacterString', 'ogc:And', ''),
        )
        .map(([a, name]) => (text: string) => {
          const tag = pick(tags, a);
          const slash = text[tag.start + 1] === '/' ? '</' : '<';
          return text.slice(0, tag.start) + slash + name + text.slice(tag.end);
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom(...XML_FRAGMENTS))
        .map(([a, fragment]) => (text: string) => {
          const at = pick(tags, a).start;
          return text.slice(0, at) + fragment + text.slice(at);
        }),
    },
    {
      weight: 1,
      arbitrary: fc.nat().map((a) => (text: string) => text.slice(0, a % (text.length + 1))),
    },
  );
  // Structural edits use the original offsets, so they apply before the value edits.
  const maybeStructural = fc.option(structural, { freq: 2, nil: undefined });
  return fc.tuple(valueEdits, maybeStructural).map(([edits, edit]) => {
    if (edit) return edit(document);
    const valid = edits.filter((item): item is [Range, string] => item[0] !== undefined);
    return replaceRanges(document, valid);
  });
}

/** Replacements for JSON nodes: wrong kinds and values that GeoJSON/STAC readers trip over. */
const jsonReplacement: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...HOSTILE_VALUES.slice(0, 36)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      [],
      {},
      -0,
      1e308,
      -1e308,
      2 ** 53 + 2,
      true,
      [1, 2, 3],
      [1, 2, 3, 4, 5],
      [[[0, 0]]],
      [null, null],
      ['a', 'b'],
      { type: 'Point', coordinates: [] },
      { type: 'Point', coordinates: [1e308, 91] },
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      },
      { type: 'Polygon', coordinates: [[]] },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
          [],
        ],
      },
      { type: 'GeometryCollection', geometries: [{ type: 'GeometryCollection', geometries: [] }] },
      { type: 'LineString', coordinates: [[0, 0]] },
      { type: 'Feature', geometry: null, properties: null },
      { href: null, rel: 5 },
      { href: 'x', rel: 'self', type: 7 },
      { interval: [[null, null]] },
      { date: '2020-02-30' },
      { timestamp: 'x' },
      JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
      { constructor: 'x', toString: 'y' },
    ),
  },
);

/** Paths of every node of a JSON value (the root is []). */
function jsonPaths(value: unknown): (string | number)[][] {
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    paths.push(path);
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i]));
    else if (typeof node === 'object' && node !== null)
      for (const [key, item] of Object.entries(node)) walk(item, [...path, key]);
  };
  walk(value, []);
  return paths;
}

/**
 * Mutations of one JSON value: one to three nodes replaced (by a wrong kind or a hostile
 * value), removed or emptied. The root itself is replaced rarely, so most mutants stay
 * recognisably a record.
 */
export function mutateJsonValue(value: unknown): fc.Arbitrary<unknown> {
  const paths = jsonPaths(value).filter((path) => path.length > 0);
  if (paths.length === 0) return jsonReplacement;
  const edit = fc.tuple(fc.constantFrom(...paths), jsonReplacement, fc.nat({ max: 3 }));
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    const copy = structuredClone(value);
    for (const [path, next, mode] of edits) {
      let parent = copy as Record<string | number, unknown> | undefined;
      for (const key of path.slice(0, -1)) {
        const child: unknown = parent?.[key];
        parent = typeof child === 'object' && child !== null ? (child as typeof parent) : undefined;
      }
      if (parent === undefined) continue;
      const last = defined(path[path.length - 1], 'the last key of a JSON path');
      if (mode === 0 && Array.isArray(parent)) parent.splice(last as number, 1);
      else if (mode === 0) delete parent[last];
      else parent[last] = next;
    }
    return copy;
  });
}

/** Random edits of a text: deletions, insertions of hostile values, duplications, cuts. */
export function mutateString(text: string): fc.Arbitrary<string> {
  const index = fc.nat({ max: text.length });
  const edit = fc.oneof(
    fc.tuple(index, index).map(
      ([a, b]) =>
        (s: string) =>
          s.slice(0, Math.min(a, b)) + s.slice(Math.max(a, b)),
    ),
    fc.tuple(index, hostileValue).map(
      ([a, value]) =>
        (s: string) =>
          s.slice(0, a) + value + s.slice(a),
    ),
    fc.tuple(index, fc.string({ unit: 'binary', minLength: 1, maxLength: 2 })).map(
      ([a, c]) =>
        (s: string) =>
          s.slice(0, a) + c + s.slice(a + c.length),
    ),
    fc.tuple(index, index).map(
      ([a, b]) =>
        (s: string) =>
          s.slice(0, b) + s.slice(Math.min(a, b), Math.max(a, b)) + s.slice(b),
    ),
    index.map((a) => (s: string) => s.slice(0, a)),
  );
  return fc
    .array(edit, { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce((s, e) => e(s), text));
}
