/**
 * Hostile sizes for the query parsers: arrays, geometry parts, nesting depth,
 * operands and free-text words around and far beyond the QUERY_MAX_* limits, in every filter
 * language and entry point. Each input is one HTTP request (path, method, headers, body) and
 * the protocol whose error format its answer must use.
 */
import fc from 'fast-check';

export interface SizedRequest {
  /** What was sent, for the failure message and the tally. */
  label: string;
  protocol: 'json' | 'csw';
  path: string;
  init: { method: string; headers: Record<string, string>; body?: string };
}

const ITEMS = '/catalogue/collections/metadata:main/items';
const SEARCH = '/catalogue/search';
const CSW = '/catalogue/csw';

/** Sizes below, at and above the default limits, and far above them. */
const ARRAY_SIZES = [0, 1, 999, 1000, 1001, 5000, 30_000];
const PART_COUNTS = [1, 99, 100, 101, 1000, 4000];
const DEPTHS = [1, 31, 32, 33, 200, 1000, 5000];
const OPERAND_COUNTS = [2, 100, 166, 167, 500, 2000, 10_000];
const WORD_COUNTS = [1, 999, 1000, 1001, 5000];

/** fast-check shows a failing input by its label (the bodies run to megabytes). */
const shownByLabel = (request: SizedRequest): SizedRequest =>
  Object.assign(request, { [fc.toStringMethod]: () => `${request.label} → ${request.path}` });

const postJson = (path: string, body: string, label: string): SizedRequest =>
  shownByLabel({
    label,
    protocol: 'json',
    path,
    init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body },
  });

const postCsw = (body: string, label: string): SizedRequest =>
  shownByLabel({
    label,
    protocol: 'csw',
    path: CSW,
    init: { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body },
  });

function fesRequest(filter: string): string {
  return `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" service="CSW" version="3.0.0" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="2.0.0"><fes:Filter>${filter}</fes:Filter></csw:Constraint></csw:Query></csw:GetRecords>`;
}

function cqlTextRequest(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" service="CSW" version="2.0.2" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="1.1.0"><csw:CqlText>${escaped}</csw:CqlText></csw:Constraint></csw:Query></csw:GetRecords>`;
}

/** `parts` unit squares, apart from one another (a valid MultiPolygon). */
function squares(parts: number): [number[][]][] {
  const side = Math.max(1, Math.ceil(Math.sqrt(parts)));
  return Array.from({ length: parts }, (_, i) => {
    const [x, y] = [-170 + (i % side) * 0.3, -80 + Math.floor(i / side) * 0.3];
    return [
      [
        [x, y],
        [x + 0.1, y],
        [x + 0.1, y + 0.1],
        [x, y + 0.1],
        [x, y],
      ],
    ];
  });
}

const arrays: fc.Arbitrary<SizedRequest> = fc
  .tuple(
    fc.constantFrom(...ARRAY_SIZES),
    fc.constantFrom('a_contains', 'a_overlaps', 'a_equals', 'a_containedBy', 'in'),
    fc.boolean(),
    fc.constantFrom(ITEMS, SEARCH),
  )
  .map(([size, op, numbers, path]) => {
    const items = Array.from({ length: size }, (_, i) => (numbers ? i : `kw${i}`));
    const filter = { op, args: [{ property: op === 'in' ? 'title' : 'keywords' }, items] };
    const body = path === ITEMS ? filter : { 'filter-lang': 'cql2-json', filter };
    return postJson(path, JSON.stringify(body), `${op} ${size} items ${path}`);
  });

const parts: fc.Arbitrary<SizedRequest> = fc
  .tuple(fc.constantFrom(...PART_COUNTS), fc.constantFrom('stac', 'cql2', 'fes'))
  .map(([count, where]) => {
    const coordinates = squares(count);
    const geometry = { type: 'MultiPolygon', coordinates };
    if (where === 'stac') {
      return postJson(
        SEARCH,
        JSON.stringify({ intersects: geometry }),
        `intersects ${count} parts`,
      );
    }
    if (where === 'cql2') {
      const filter = { op: 's_intersects', args: [{ property: 'geometry' }, geometry] };
      return postJson(ITEMS, JSON.stringify(filter), `S_INTERSECTS ${count} parts`);
    }
    const members = coordinates
      .map(
        ([ring]) =>
          `<gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring.flat().join(' ')}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember>`,
      )
      .join('');
    const surface = `<gml:MultiSurface srsName="http://www.opengis.net/def/crs/OGC/1.3/CRS84">${members}</gml:MultiSurface>`;
    return postCsw(
      fesRequest(
        `<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference>${surface}</fes:Intersects>`,
      ),
      `FES MultiSurface ${count} parts`,
    );
  });

const depths: fc.Arbitrary<SizedRequest> = fc
  .tuple(fc.constantFrom(...DEPTHS), fc.constantFrom('cql2-json', 'cql2-text', 'fes', 'cql'))
  .map(([depth, language]) => {
    const label = `${language} nested ${depth}`;
    if (language === 'cql2-json') {
      const body = `${'{"op":"not","args":['.repeat(depth)}{"op":"=","args":[{"property":"title"},"x"]}${']}'.repeat(depth)}`;
      return postJson(ITEMS, body, label);
    }
    const text = `${'NOT ('.repeat(depth)}title = 'x'${')'.repeat(depth)}`;
    if (language === 'cql2-text') {
      return postJson(SEARCH, JSON.stringify({ 'filter-lang': 'cql2-text', filter: text }), label);
    }
    if (language === 'cql')
      return postCsw(cqlTextRequest(text.replace(/title/g, 'dc:title')), label);
    const inner =
      '<fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>x</fes:Literal></fes:PropertyIsEqualTo>';
    return postCsw(
      fesRequest(`${'<fes:Not>'.repeat(depth)}${inner}${'</fes:Not>'.repeat(depth)}`),
      label,
    );
  });

const operands: fc.Arbitrary<SizedRequest> = fc
  .tuple(
    fc.constantFrom(...OPERAND_COUNTS),
    fc.constantFrom('and', 'or'),
    fc.constantFrom('cql2-json', 'cql2-text', 'fes', 'cql'),
  )
  .map(([count, op, language]) => {
    const label = `${language} ${count} ${op.toUpperCase()} operands`;
    if (language === 'cql2-json') {
      const args = Array.from({ length: count }, (_, i) => ({
        op: '=',
        args: [{ property: 'title' }, `t${i}`],
      }));
      return postJson(ITEMS, JSON.stringify({ op, args }), label);
    }
    const text = Array.from({ length: count }, (_, i) => `title = 't${i}'`).join(
      ` ${op.toUpperCase()} `,
    );
    if (language === 'cql2-text') {
      return postJson(SEARCH, JSON.stringify({ 'filter-lang': 'cql2-text', filter: text }), label);
    }
    if (language === 'cql')
      return postCsw(cqlTextRequest(text.replace(/title/g, 'dc:title')), label);
    const element = op === 'and' ? 'fes:And' : 'fes:Or';
    const inner = Array.from(
      { length: count },
      (_, i) =>
        `<fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>t${i}</fes:Literal></fes:PropertyIsEqualTo>`,
    ).join('');
    return postCsw(fesRequest(`<${element}>${inner}</${element}>`), label);
  });

const words: fc.Arbitrary<SizedRequest> = fc
  .tuple(fc.constantFrom(...WORD_COUNTS), fc.boolean())
  .map(([count, commas]) => {
    const q = Array.from({ length: count }, (_, i) => `w${i}`).join(commas ? ',' : ' ');
    return postJson(SEARCH, JSON.stringify({ q }), `q ${count} words${commas ? ' (terms)' : ''}`);
  });

/** One hostile-size request of any kind. */
export const hostileSizeRequest: fc.Arbitrary<SizedRequest> = fc.oneof(
  arrays,
  parts,
  depths,
  operands,
  words,
);
