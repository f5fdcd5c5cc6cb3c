/**
 * Property-based fuzzing of the FES parser with fast-check: realistic FES 1.1 and 2.0 filters
 * (every operator family) are mutated — cut, spliced, truncated, tags renamed, hostile fragments
 * inserted — and each result must parse to a well-formed tree or fail with a typed CairnError.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { parseFesFilter, parseFesSortBy } from '../../../shared/query/fes/index.js';
import { parseXml, type XmlElement } from '../../../shared/xml/index.js';
import { checkExpression, OutcomeTally, withoutStackTraces } from './fuzz-helpers.js';
import { fes11, fes20 } from './fes-helpers.js';
import { defined } from '../../support/defined.js';

const RUNS = 5_000;

const CORPUS: readonly string[] = [
  fes11(`<ogc:And>
    <ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\" matchCase="false">
      <ogc:PropertyName>csw:AnyText</ogc:PropertyName><ogc:Literal>*sea\\*ice?*</ogc:Literal>
    </ogc:PropertyIsLike>
    <ogc:BBOX><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
      <gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>47 -5</gml:lowerCorner><gml:upperCorner>55 20</gml:upperCorner></gml:Envelope>
    </ogc:BBOX>
    <ogc:PropertyIsLessThanOrEqualTo><ogc:PropertyName>eo:cloudCover</ogc:PropertyName><ogc:Literal>20</ogc:Literal></ogc:PropertyIsLessThanOrEqualTo>
  </ogc:And>`),
  fes11(`<ogc:Or>
    <ogc:PropertyIsEqualTo matchCase="false"><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>dataset</ogc:Literal></ogc:PropertyIsEqualTo>
    <ogc:Not><ogc:PropertyIsNull><ogc:PropertyName>dc:format</ogc:PropertyName></ogc:PropertyIsNull></ogc:Not>
    <ogc:PropertyIsBetween><ogc:PropertyName>apiso:Modified</ogc:PropertyName>
      <ogc:LowerBoundary><ogc:Literal>2004-01-01</ogc:Literal></ogc:LowerBoundary>
      <ogc:UpperBoundary><ogc:Literal>2005-01-01T00:00:00Z</ogc:Literal></ogc:UpperBoundary>
    </ogc:PropertyIsBetween>
  </ogc:Or>`),
  fes11(
    '<ogc:FeatureId fid="urn:uuid:1"/><ogc:FeatureId fid="urn:uuid:2"/><ogc:GmlObjectId gml:id="x"/>',
  ),
  fes11(`<ogc:Intersects><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
    <gml:Polygon srsName="EPSG:4326"><gml:outerBoundaryIs><gml:LinearRing>
      <gml:coordinates>0,0 10,0 10,10 0,10 0,0</gml:coordinates>
    </gml:LinearRing></gml:outerBoundaryIs></gml:Polygon></ogc:Intersects>`),
  fes11(`<ogc:DWithin><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
    <gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>52 4</gml:pos></gml:Point>
    <ogc:Distance units="km">10</ogc:Distance></ogc:DWithin>`),
  fes11(`<ogc:PropertyIsGreaterThan>
    <ogc:Add><ogc:PropertyName>a</ogc:PropertyName><ogc:Literal>1</ogc:Literal></ogc:Add>
    <ogc:Function name="abs"><ogc:Literal>-3</ogc:Literal></ogc:Function>
  </ogc:PropertyIsGreaterThan>`),
  fes20(`<fes:And>
    <fes:During><fes:ValueReference>apiso:TempExtent_begin</fes:ValueReference>
      <gml:TimePeriod gml:id="p"><gml:beginPosition>2006-03-26</gml:beginPosition><gml:endPosition indeterminatePosition="unknown"/></gml:TimePeriod>
    </fes:During>
    <fes:After><fes:ValueReference>dct:modified</fes:ValueReference>
      <gml:TimeInstant gml:id="i"><gml:timePosition>2006-05-01T12:00:00+02:00</gml:timePosition></gml:TimeInstant>
    </fes:After>
    <fes:PropertyIsNil><fes:ValueReference>dc:rights</fes:ValueReference></fes:PropertyIsNil>
  </fes:And>`),
  fes20(`<fes:Or><fes:ResourceId rid="a"/><fes:ResourceId rid="b"/>
    <fes:Within><fes:ValueReference>ows:BoundingBox</fes:ValueReference>
      <gml:MultiSurface srsName="http://www.opengis.net/def/crs/EPSG/0/4326"><gml:surfaceMember><gml:Polygon gml:id="p">
        <gml:exterior><gml:LinearRing><gml:posList>0 0 0 1 1 1 0 0</gml:posList></gml:LinearRing></gml:exterior>
      </gml:Polygon></gml:surfaceMember></gml:MultiSurface>
    </fes:Within></fes:Or>`),
  fes20(`<fes:BBOX><fes:ValueReference>ows:BoundingBox</fes:ValueReference>
    <gml:Envelope srsName="urn:ogc:def:crs:OGC:1.3:CRS84"><gml:lowerCorner>170 -10</gml:lowerCorner><gml:upperCorner>-170 10</gml:upperCorner></gml:Envelope>
  </fes:BBOX>`),
  fes20(`<fes:Beyond><fes:ValueReference>ows:BoundingBox</fes:ValueReference>
    <gml:LineString gml:id="l" srsDimension="3"><gml:posList>0 0 5 1 1 5</gml:posList></gml:LineString>
    <fes:Distance uom="urn:ogc:def:uom:EPSG::9001">100</fes:Distance></fes:Beyond>`),
  fes20(`<fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="!">
    <fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>!%off_%</fes:Literal></fes:PropertyIsLike>`),
  fes20(`<fes:TOverlaps><fes:ValueReference>apiso:TempExtent_end</fes:ValueReference>
    <gml:TimePeriod gml:id="t"><gml:begin><gml:TimeInstant gml:id="b"><gml:timePosition>2001-01-01</gml:timePosition></gml:TimeInstant></gml:begin>
    <gml:end><gml:TimeInstant gml:id="e"><gml:timePosition>2002-01-01</gml:timePosition></gml:TimeInstant></gml:end></gml:TimePeriod>
  </fes:TOverlaps>`),
  `<Filter><PropertyIsEqualTo><PropertyName>dc:title</PropertyName><Literal>x</Literal></PropertyIsEqualTo></Filter>`,
];

const TAGS = [
  'And',
  'Or',
  'Not',
  'PropertyIsEqualTo',
  'PropertyIsLike',
  'PropertyIsNull',
  'PropertyIsNil',
  'PropertyIsBetween',
  'LowerBoundary',
  'UpperBoundary',
  'BBOX',
  'Intersects',
  'DWithin',
  'Distance',
  'During',
  'After',
  'TimePeriod',
  'TimeInstant',
  'timePosition',
  'Envelope',
  'lowerCorner',
  'Polygon',
  'LinearRing',
  'posList',
  'pos',
  'Point',
  'MultiSurface',
  'FeatureId',
  'ResourceId',
  'Function',
  'Literal',
  'PropertyName',
  'ValueReference',
  'Add',
  'Filter',
  'SortBy',
  'Unknown',
  'constructor',
  'toString',
  '__proto__',
];

const FRAGMENTS = [
  '<',
  '>',
  '/>',
  '</ogc:And>',
  '<ogc:Not>',
  '<fes:Or>',
  '&amp;',
  '&lt;',
  '&bogus;',
  '"',
  "'",
  ' xmlns:x="urn:x"',
  ' srsName="EPSG:3857"',
  ' srsName="urn:ogc:def:crs:EPSG::4326"',
  ' matchCase="false"',
  ' wildCard="*"',
  ' escapeChar=""',
  ' units="furlong"',
  '<!DOCTYPE f>',
  '<![CDATA[x]]>',
  '<?pi x?>',
  '<!-- c -->',
  ' 999 ',
  ' -91 ',
  'NaN',
  '1e400',
  '2021-02-30',
  '<gml:Point><gml:pos>1 2</gml:pos></gml:Point>',
  '<ogc:Literal>7</ogc:Literal>',
  '\u0000',
  '𝔸',
];

type Mutation = (doc: string) => string;

const position = (doc: string, at: number): number =>
  doc.length === 0 ? 0 : at % (doc.length + 1);

/** Cuts a few characters (usually breaks well-formedness). */
const cut = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 12 }))
  .map(([at, length]): Mutation => (doc) => {
    const i = position(doc, at);
    return doc.slice(0, i) + doc.slice(i + length);
  });

/** Inserts a known-troublesome fragment anywhere. */
const insertFragment = fc
  .tuple(fc.nat(), fc.constantFrom(...FRAGMENTS))
  .map(([at, fragment]): Mutation => (doc) => {
    const i = position(doc, at);
    return doc.slice(0, i) + fragment + doc.slice(i);
  });

/** Inserts random text anywhere. */
const insertText = fc
  .tuple(fc.nat(), fc.string({ maxLength: 6 }))
  .map(([at, text]): Mutation => (doc) => {
    const i = position(doc, at);
    return doc.slice(0, i) + text + doc.slice(i);
  });

/** Truncates the document. */
const truncate = fc.nat().map(
  (at): Mutation =>
    (doc) =>
      doc.slice(0, position(doc, at)),
);

/** Inserts an attribute-like fragment just inside a start tag (keeps the document well-formed). */
const insertAttribute = fc
  .tuple(
    fc.nat(),
    fc.constantFrom(
      ' srsName="EPSG:3857"',
      ' srsName="urn:ogc:def:crs:EPSG::4326"',
      ' srsName="CRS:84"',
      ' matchCase="false"',
      ' matchCase="no"',
      ' matchAction="All"',
      ' wildCard="*"',
      ' singleChar="*"',
      ' escapeChar=""',
      ' units="furlong"',
      ' uom="deg"',
      ' srsDimension="3"',
      ' indeterminatePosition="unknown"',
      ' fid=""',
      ' name="in"',
    ),
  )
  .map(([nth, attribute]): Mutation => (doc) => {
    // Whole start tags (name and attributes), up to but excluding "/>" or ">".
    const tags = [...doc.matchAll(/<[A-Za-z][^>]*?(?=\/?>)/g)];
    const match = tags[nth % tags.length];
    if (match === undefined) return doc;
    const name = attribute.slice(0, attribute.indexOf('=') + 1);
    if (match[0].includes(name)) return doc; // a duplicate attribute is merely malformed
    const i = (match.index ?? 0) + match[0].length;
    return doc.slice(0, i) + attribute + doc.slice(i);
  });

/** Renames one tag everywhere it occurs (start and end tags stay matched). */
const renameTag = fc
  .tuple(fc.nat(), fc.constantFrom(...TAGS))
  .map(([nth, tag]): Mutation => (doc) => {
    const names = [...doc.matchAll(/<\/?([A-Za-z]+:)?([A-Za-z]+)/g)];
    const match = names[nth % names.length];
    if (match === undefined) return doc;
    const [, prefix = '', local] = match;
    const pattern = new RegExp(`<(/?)${prefix}${local}(?=[\\s/>])`, 'g');
    return doc.replace(pattern, `<$1${prefix}${tag}`);
  });

/** The [start, end) character ranges of every element below the root, or [] when not XML. */
function elementRanges(doc: string): Array<[number, number]> {
  let root: XmlElement;
  try {
    root = parseXml(doc).root;
  } catch {
    return [];
  }
  const ranges: Array<[number, number]> = [];
  const walk = (element: XmlElement): void => {
    for (const item of element.children) {
      ranges.push([doc.lastIndexOf('<', item.startTagEnd - 1), item.end]);
      walk(item);
    }
  };
  walk(root);
  return ranges;
}

/** Removes one whole element below the root. */
const removeElement = fc.nat().map((nth): Mutation => (doc) => {
  const ranges = elementRanges(doc);
  if (ranges.length === 0) return doc;
  const [start, end] = defined(ranges[nth % ranges.length], 'an element range');
  return doc.slice(0, start) + doc.slice(end);
});

/** Duplicates one whole element below the root, next to itself. */
const duplicateElement = fc.nat().map((nth): Mutation => (doc) => {
  const ranges = elementRanges(doc);
  if (ranges.length === 0) return doc;
  const [start, end] = defined(ranges[nth % ranges.length], 'an element range');
  return doc.slice(0, end) + doc.slice(start, end) + doc.slice(end);
});

/** Moves one element below the root into another place (swapping structure around). */
const moveElement = fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Mutation => (doc) => {
  const ranges = elementRanges(doc);
  if (ranges.length < 2) return doc;
  const [start, end] = defined(ranges[from % ranges.length], 'an element range');
  const moved = doc.slice(start, end);
  const rest = doc.slice(0, start) + doc.slice(end);
  const targets = elementRanges(rest);
  if (targets.length === 0) return doc;
  const [, at] = defined(targets[to % targets.length], 'a target range');
  return rest.slice(0, at) + moved + rest.slice(at);
});

/** Replaces one number with another (any double, as JavaScript prints it). */
const replaceNumber = fc
  .tuple(fc.nat(), fc.double({ noNaN: true }))
  .map(([nth, value]): Mutation => (doc) => {
    // Not in the XML declaration: its version and encoding are not what is being tested.
    const body = doc.startsWith('<?xml') ? doc.indexOf('?>') + 2 : 0;
    const numbers = [...doc.matchAll(/-?\d+(\.\d+)?/g)].filter((item) => (item.index ?? 0) >= body);
    const match = numbers[nth % numbers.length];
    if (match === undefined) return doc;
    const i = match.index ?? 0;
    return doc.slice(0, i) + String(value) + doc.slice(i + match[0].length);
  });

/** Mutations, weighted towards those that keep the XML well-formed (to reach the FES logic). */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 1, arbitrary: cut },
  { weight: 1, arbitrary: insertFragment },
  { weight: 1, arbitrary: insertText },
  { weight: 1, arbitrary: truncate },
  { weight: 3, arbitrary: insertAttribute },
  { weight: 3, arbitrary: renameTag },
  { weight: 2, arbitrary: removeElement },
  { weight: 2, arbitrary: duplicateElement },
  { weight: 2, arbitrary: moveElement },
  { weight: 3, arbitrary: replaceNumber },
);

const mutatedDocument = fc
  .tuple(fc.constantFrom(...CORPUS), fc.array(mutation, { minLength: 1, maxLength: 3 }))
  .map(([doc, mutations]) => mutations.reduce((text, mutate) => mutate(text), doc));

describe('FES parser under fuzzing', function () {
  this.timeout(120_000);

  it('parses every unmutated corpus document', () => {
    for (const doc of CORPUS) checkExpression(parseFesFilter(doc));
  });

  it(`${RUNS} mutated filters → success or a typed error`, () => {
    const tally = new OutcomeTally();
    // Mostly no announced version, sometimes 1.1 or 2.0 (a mismatch is a FilterError too).
    const versions = [undefined, undefined, undefined, undefined, '1.1', '2.0'] as const;
    withoutStackTraces(() =>
      fc.assert(
        fc.property(mutatedDocument, fc.nat(5), (doc, v) => {
          const result = tally.run(() => parseFesFilter(doc, versions[v]));
          if (result !== undefined) checkExpression(result);
        }),
        { numRuns: RUNS },
      ),
    );
    console.log(`      ${tally.summary('parseFesFilter (mutated documents)')}`);
    expect(tally.total).to.equal(RUNS);
    expect(tally.counts.get('success') ?? 0).to.be.greaterThan(RUNS / 20);
  });

  it('1000 mutated SortBy documents → success or a typed error', () => {
    const sortBy = `<ogc:SortBy xmlns:ogc="http://www.opengis.net/ogc"><ogc:SortProperty>
      <ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder>
    </ogc:SortProperty><ogc:SortProperty><ogc:PropertyName>dc:date</ogc:PropertyName></ogc:SortProperty></ogc:SortBy>`;
    const tally = new OutcomeTally();
    withoutStackTraces(() =>
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
          const doc = mutations.reduce((text, mutate) => mutate(text), sortBy);
          const keys = tally.run(() => parseFesSortBy(doc));
          for (const key of keys ?? []) {
            if (key.field === '' || !['asc', 'desc'].includes(key.direction)) {
              throw new Error(`bad sort key ${JSON.stringify(key)}`);
            }
          }
        }),
        { numRuns: 1_000 },
      ),
    );
    console.log(`      ${tally.summary('parseFesSortBy (mutated documents)')}`);
    expect(tally.total).to.equal(1_000);
  });
});
