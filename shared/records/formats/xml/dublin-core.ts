/**
 * Dublin Core `csw:Record` (and `csw:SummaryRecord` / `csw:BriefRecord`) in the CSW 2.0.2 and
 * CSW 3.0 namespaces, read into a CoreRecord.
 *
 * Decisions:
 * - `ows:BoundingBox` with an EPSG geographic CRS given as URN or URI (the CITE data use
 *   urn:x-ogc:def:crs:EPSG:6.11:4326) is latitude/longitude: the CITE coordinates confirm it
 *   (e.g. Record_1ef30a8b… "60.042 13.754" … "68.410 17.920" is Scandinavia read lat/lon, and
 *   pycsw's CITE expectation that bbox=-6.17,44.79,17.92,68.41 matches three records only holds
 *   that way). CRS84, the short "EPSG:4326" and a missing crs are longitude/latitude;
 *   `ows:WGS84BoundingBox` is always longitude/latitude.
 * - `dc:date` is the resource's date; like pycsw (which maps it to the OGC record `time`) it
 *   becomes an instant `time`. csw30:TemporalExtent and dct:temporal give an interval.
 * - `dc:subject` with a `scheme` attribute becomes a theme of that scheme; all subjects are keywords.
 * - `dc:type` is kept verbatim (e.g. http://purl.org/dc/dcmitype/Image).
 * - dc:creator / dc:publisher / dc:contributor become contacts with that role.
 * - `dc:relation` becomes a link with rel "related"; `dct:references` a link whose protocol is
 *   its `scheme`.
 */
import { InvalidRecordError } from '../../../errors/index.js';
import {
  buildEmptyRecord,
  type Bbox,
  type CoreRecord,
  type Link,
  type TimeExtent,
} from '../../core-record.js';
import { attr, child, children, namespace, text, type XmlElement } from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';
import { buildTimeExtent } from '../json/json-values.js';
import { addTranslation, settleLanguages, toLanguageTag } from '../../languages.js';
import { axisOrderOfCrs } from './gml.js';
import {
  isMediaType,
  toValidBbox,
  mediaTypeForProtocol,
  normaliseInstant,
  pushUnique,
  unionBboxes,
} from './mapping.js';

const dc = namespace(NS.dc);
const dct = namespace(NS.dct);
const ows = namespace(NS.ows, NS.ows11, NS.ows20);
const csw = namespace(NS.csw202, NS.csw30);

/** Root element local names of Dublin Core CSW records. */
export const CSW_RECORD_ELEMENTS = new Set(['Record', 'SummaryRecord', 'BriefRecord']);

/** `extra` keys the Dublin Core reader fills; the csw:Record writer writes them back. */
export const DUBLIN_CORE_EXTRA_KEYS = ['spatial', 'source', 'alternative'] as const;

function values(element: XmlElement, name: ReturnType<typeof dc>): string[] {
  return children(element, name)
    .map((item) => text(item))
    .filter((value): value is string => value !== undefined);
}

/** Reads one corner "a b" of an OWS bounding box. */
function readCorner(element: XmlElement | undefined): [number, number] | undefined {
  const parts = text(element)?.split(/\s+/).map(Number);
  if (parts === undefined || parts.some((n) => !Number.isFinite(n))) return undefined;
  const [first, second] = parts;
  return first === undefined || second === undefined ? undefined : [first, second];
}

/** Reads an ows:BoundingBox / ows:WGS84BoundingBox into a CRS84 box, honouring axis order. */
export function readOwsBoundingBox(element: XmlElement): Bbox | undefined {
  const lower = readCorner(child(element, ows('LowerCorner')));
  const upper = readCorner(child(element, ows('UpperCorner')));
  if (lower === undefined || upper === undefined) return undefined;
  const order =
    element.local === 'WGS84BoundingBox' ? 'lonlat' : axisOrderOfCrs(attr(element, '', 'crs'));
  if (order === 'unsupported') return undefined;
  const box: Bbox =
    order === 'latlon'
      ? [lower[1], lower[0], upper[1], upper[0]]
      : [lower[0], lower[1], upper[0], upper[1]];
  return toValidBbox(box);
}

function readTemporalExtent(element: XmlElement): TimeExtent | undefined {
  const begin = text(child(element, csw('begin')));
  const end = text(child(element, csw('end')));
  return begin || end ? buildTimeExtent(begin, end) : undefined;
}

/** Reads a dct:temporal value "start/end" (either side may be empty or ".."). */
function readTemporalText(value: string): TimeExtent | undefined {
  const [start, end] = value.split('/');
  return end === undefined ? buildTimeExtent(start, start) : buildTimeExtent(start, end);
}

/** Reads a csw:Record / csw:SummaryRecord / csw:BriefRecord element into a CoreRecord. */
export function readDublinCoreRecord(root: XmlElement, content: string): CoreRecord {
  const identifiers = values(root, dc('identifier'));
  const id = identifiers[0];
  if (id === undefined) {
    throw new InvalidRecordError(
      'Dublin Core record has no identifier (dc:identifier is missing or empty)',
    );
  }
  const record = buildEmptyRecord(id, {
    format: 'dublin-core',
    mediaType: 'application/xml',
    content,
  });
  record.externalIds = identifiers.slice(1).map((value) => ({ value }));
  record.title = values(root, dc('title'))[0];
  record.description = values(root, dct('abstract'))[0] ?? values(root, dc('description'))[0];
  record.type = values(root, dc('type'))[0];
  record.language = values(root, dc('language'))[0];
  record.rights = values(root, dc('rights'))[0] ?? values(root, dct('accessRights'))[0];
  record.license = values(root, dct('license'))[0];
  record.updated = normaliseInstant(values(root, dct('modified'))[0]);
  record.resourceCreated = normaliseInstant(values(root, dct('created'))[0]);
  record.resourcePublished = normaliseInstant(values(root, dct('issued'))[0]);

  for (const subject of children(root, dc('subject'))) {
    const word = text(subject);
    if (word === undefined) continue;
    pushUnique(record.keywords, word);
    const scheme = attr(subject, '', 'scheme');
    if (scheme === undefined || scheme.trim() === '') continue;
    let theme = record.themes.find((item) => item.scheme === scheme);
    if (theme === undefined) {
      theme = { scheme, concepts: [] };
      record.themes.push(theme);
    }
    if (!theme.concepts.some((concept) => concept.id === word)) theme.concepts.push({ id: word });
  }

  for (const format of values(root, dc('format'))) {
    record.formats.push(
      isMediaType(format) ? { name: format, mediaType: format } : { name: format },
    );
  }

  const roles: [string, string][] = [
    ['creator', 'creator'],
    ['publisher', 'publisher'],
    ['contributor', 'contributor'],
  ];
  for (const [element, role] of roles) {
    for (const name of values(root, dc(element))) record.contacts.push({ name, roles: [role] });
  }

  for (const relation of values(root, dc('relation')))
    record.links.push({ href: relation, rel: 'related' });
  for (const reference of children(root, dct('references'))) {
    const href = text(reference);
    if (href === undefined) continue;
    const link: Link = { href, rel: 'related' };
    const scheme = attr(reference, '', 'scheme')?.trim();
    if (scheme) {
      link.protocol = scheme;
      const type = mediaTypeForProtocol(scheme);
      if (type) link.type = type;
    }
    record.links.push(link);
  }

  const boxes = [...children(root, ows('BoundingBox')), ...children(root, ows('WGS84BoundingBox'))]
    .map(readOwsBoundingBox)
    .filter((box): box is Bbox => box !== undefined);
  record.bbox = unionBboxes(boxes);

  const date = values(root, dc('date'))[0];
  const temporal = values(root, dct('temporal'))[0];
  const extent = child(root, csw('TemporalExtent'));
  record.time =
    (extent && readTemporalExtent(extent)) ??
    (temporal !== undefined ? readTemporalText(temporal) : undefined) ??
    (date !== undefined ? buildTimeExtent(date, date) : undefined);

  const spatial = values(root, dct('spatial'));
  if (spatial.length > 0) record.extra.spatial = spatial;
  const source = values(root, dc('source'));
  if (source.length > 0) record.extra.source = source;
  const alternative = values(root, dct('alternative'));
  if (alternative.length > 0) record.extra.alternative = alternative;
  readDublinCoreTranslations(record, root);
  return record;
}

/** The BCP 47 tag of an element's `xml:lang`, if it has one. */
function xmlLang(element: XmlElement): string | undefined {
  return toLanguageTag(attr(element, NS.xml, 'lang'));
}

/**
 * Reads the `xml:lang` variants of the title and abstract: the first title is the record's own
 * (its `xml:lang`, else `dc:language`, names the record's language); every element in another
 * language is a translation. Subjects in every language are keywords already (nothing pairs a
 * subject with its translation).
 */
function readDublinCoreTranslations(record: CoreRecord, root: XmlElement): void {
  const titles = children(root, dc('title'));
  const descriptions = [...children(root, dct('abstract')), ...children(root, dc('description'))];
  const subjects = children(root, dc('subject'));
  const tagged = [...titles, ...descriptions, ...subjects].filter((item) => xmlLang(item));
  if (tagged.length === 0) return;
  const own =
    (titles[0] && xmlLang(titles[0])) ??
    toLanguageTag(record.language) ??
    (descriptions[0] && xmlLang(descriptions[0]));
  if (own !== undefined) record.languages = [own];
  record.language ??= own;
  for (const [field, elements] of [
    ['title', titles],
    ['description', descriptions],
  ] as const) {
    for (const element of elements) {
      const tag = xmlLang(element);
      if (tag !== undefined) addTranslation(record, tag, field, text(element));
    }
  }
  settleLanguages(record);
  if ((record.languages?.length ?? 0) <= 1 && record.translations === undefined) {
    delete record.languages;
  }
}
