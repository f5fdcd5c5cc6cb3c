/**
 * CoreRecord → Dublin Core `csw:Record` (full), `csw:SummaryRecord` and `csw:BriefRecord`, in
 * the CSW 2.0.2 and CSW 3.0 namespaces, in the element order of the CSW record XSDs.
 *
 * - The bounding box is written as `ows:BoundingBox` in EPSG:4326 latitude/longitude order
 *   (2.0.2: crs urn:x-ogc:def:crs:EPSG:6.11:4326 as in the CITE data and pycsw; 3.0:
 *   http://www.opengis.net/def/crs/EPSG/0/4326), which the Dublin Core reader reads back.
 * - Time: a date-only instant is `dc:date`; otherwise CSW 3.0 uses `csw30:TemporalExtent` and
 *   CSW 2.0.2 `dct:temporal` ("start/end", ".." for an open end). Summary records only carry
 *   time in 3.0 (TemporalExtent); 2.0.2 summaries have no time element.
 * - Links with only an href and rel "related" are `dc:relation`; other links are
 *   `dct:references` with the protocol as `scheme` (full records only).
 */
import type { Bbox, CoreRecord, Link, TimeExtent } from '../../core-record.js';
import {
  appendText,
  createDocument,
  datePart,
  declareNamespaces,
  formatDateOrDateTime,
  formatExtentEnd,
  isMidnight,
  isUriLike,
  NS,
  serialise,
  xmlText,
  type WriteOptions,
  type XmlNode,
} from './xml-builder.js';

/** CSW versions with their record namespaces. */
export type CswVersion = '2.0.2' | '3.0.0';

/** How much of the record to write (CSW ElementSetName). */
export type CswElementSet = 'brief' | 'summary' | 'full';

/** Options of the csw:Record writer: CSW version and element set. */
export interface CswRecordOptions extends WriteOptions {
  version: CswVersion;
  elementSet: CswElementSet;
  /** Declare the dc/dct/ows prefixes on the record element (default true). */
  declareNamespaces?: boolean;
}

const RECORD_ELEMENT: Record<CswElementSet, string> = {
  brief: 'BriefRecord',
  summary: 'SummaryRecord',
  full: 'Record',
};

interface Vocabulary {
  csw: string;
  cswPrefix: string;
  ows: string;
  crs: string;
}

const VOCABULARY: Record<CswVersion, Vocabulary> = {
  '2.0.2': {
    csw: NS.csw202,
    cswPrefix: 'csw',
    ows: NS.ows,
    crs: 'urn:x-ogc:def:crs:EPSG:6.11:4326',
  },
  '3.0.0': {
    csw: NS.csw30,
    cswPrefix: 'csw30',
    ows: NS.ows20,
    crs: 'http://www.opengis.net/def/crs/EPSG/0/4326',
  },
};

/** True when a link carries nothing but an href and rel "related" (a plain dc:relation). */
function isPlainRelation(link: Link): boolean {
  return (
    (link.rel === undefined || link.rel === 'related') &&
    !link.type &&
    !link.title &&
    !link.description &&
    !link.protocol
  );
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/** The dc:date text of an instant (a whole day or a timestamp), or undefined for an interval. */
function dateInstant(time: TimeExtent | undefined): string | undefined {
  if (time?.start == null || time.end == null) return undefined;
  if (time.start === time.end) return time.start;
  if (
    time.dateOnly &&
    isMidnight(time.start) &&
    datePart(time.start) === datePart(time.end) &&
    time.end.endsWith('T23:59:59.999Z')
  ) {
    return datePart(time.start);
  }
  return undefined;
}

function appendSubjects(record: CoreRecord, parent: XmlNode): void {
  const written = new Set<string>();
  const schemeOf = (keyword: string): string | undefined =>
    record.themes.find(
      (theme) => isUriLike(theme.scheme) && theme.concepts.some((c) => c.id === keyword),
    )?.scheme;
  for (const keyword of record.keywords) {
    const scheme = schemeOf(keyword);
    appendText(parent, NS.dc, 'dc:subject', keyword, scheme ? { scheme } : undefined);
    written.add(`${scheme ?? ''}\u0000${keyword}`);
  }
  for (const theme of record.themes) {
    const scheme = isUriLike(theme.scheme) ? theme.scheme : undefined;
    for (const concept of theme.concepts) {
      const key = `${scheme ?? ''}\u0000${concept.id}`;
      if (written.has(key) || (scheme === undefined && record.keywords.includes(concept.id))) {
        continue;
      }
      written.add(key);
      appendText(parent, NS.dc, 'dc:subject', concept.id, scheme ? { scheme } : undefined);
    }
  }
}

function appendBoundingBox(parent: XmlNode, bbox: Bbox | undefined, words: Vocabulary): void {
  if (bbox === undefined) return;
  const [west, south, east, north] = bbox;
  parent
    .ele(words.ows, 'ows:BoundingBox', { crs: words.crs, dimensions: '2' })
    .ele(words.ows, 'ows:LowerCorner')
    .txt(`${south} ${west}`)
    .up()
    .ele(words.ows, 'ows:UpperCorner')
    .txt(`${north} ${east}`)
    .up()
    .up();
}

function appendTemporalExtent(parent: XmlNode, time: TimeExtent, words: Vocabulary): void {
  const extent = parent.ele(words.csw, `${words.cswPrefix}:TemporalExtent`);
  if (time.start !== null) appendText(extent, words.csw, `${words.cswPrefix}:begin`, time.start);
  if (time.end !== null) appendText(extent, words.csw, `${words.cswPrefix}:end`, time.end);
  extent.up();
}

function temporalText(time: TimeExtent): string {
  const start = time.start === null ? '..' : formatExtentEnd(time.start, 'start', time.dateOnly);
  const end = time.end === null ? '..' : formatExtentEnd(time.end, 'end', time.dateOnly);
  return `${start}/${end}`;
}

const CONTACT_ELEMENTS: [string, RegExp][] = [
  ['dc:creator', /^(creator|originator|author|principalInvestigator)$/],
  ['dc:publisher', /^publisher$/],
  ['dc:contributor', /^(contributor|coAuthor|collaborator)$/],
];

function appendContacts(record: CoreRecord, parent: XmlNode): void {
  for (const [element, roles] of CONTACT_ELEMENTS) {
    const names: string[] = [];
    for (const contact of record.contacts) {
      const name = contact.name ?? contact.organization;
      if (name && contact.roles?.some((role) => roles.test(role)) && !names.includes(name)) {
        names.push(name);
      }
    }
    for (const name of names) appendText(parent, NS.dc, element, name);
  }
}

/**
 * Appends a csw:Record / csw:SummaryRecord / csw:BriefRecord for the record to `parent` (a
 * document or a response element such as csw:SearchResults) and returns the new element.
 */
export function appendCswRecord(
  parent: XmlNode,
  record: CoreRecord,
  options: CswRecordOptions,
): XmlNode {
  const words = VOCABULARY[options.version];
  const { elementSet } = options;
  const root = parent.ele(words.csw, `${words.cswPrefix}:${RECORD_ELEMENT[elementSet]}`);
  if (options.declareNamespaces !== false) {
    declareNamespaces(root, {
      [words.cswPrefix]: words.csw,
      dc: NS.dc,
      dct: NS.dct,
      ows: words.ows,
    });
  }

  appendText(root, NS.dc, 'dc:identifier', record.id);
  if (elementSet === 'full') {
    for (const external of record.externalIds) {
      if (external.value !== record.id) appendText(root, NS.dc, 'dc:identifier', external.value);
    }
  }
  if (record.title !== undefined || elementSet !== 'full') {
    root
      .ele(NS.dc, 'dc:title')
      .txt(xmlText(record.title ?? ''))
      .up();
  }
  appendText(root, NS.dc, 'dc:type', record.type);

  if (elementSet !== 'brief') {
    appendSubjects(record, root);
    for (const format of record.formats) {
      appendText(root, NS.dc, 'dc:format', format.name ?? format.mediaType);
    }
    for (const link of record.links) {
      if (isPlainRelation(link)) appendText(root, NS.dc, 'dc:relation', link.href);
    }
    if (record.updated)
      appendText(root, NS.dct, 'dct:modified', formatDateOrDateTime(record.updated));
    appendText(root, NS.dct, 'dct:abstract', record.description);
    for (const spatial of stringList(record.extra.spatial)) {
      appendText(root, NS.dct, 'dct:spatial', spatial);
    }
  }

  if (elementSet === 'full') {
    const instant = dateInstant(record.time);
    appendText(root, NS.dc, 'dc:date', instant);
    appendContacts(record, root);
    for (const source of stringList(record.extra.source)) {
      appendText(root, NS.dc, 'dc:source', source);
    }
    appendText(root, NS.dc, 'dc:language', record.language);
    appendText(root, NS.dc, 'dc:rights', record.rights);
    appendText(root, NS.dct, 'dct:license', record.license);
    for (const alternative of stringList(record.extra.alternative ?? record.extra.alternateTitle)) {
      appendText(root, NS.dct, 'dct:alternative', alternative);
    }
    if (record.resourceCreated) {
      appendText(root, NS.dct, 'dct:created', formatDateOrDateTime(record.resourceCreated));
    }
    if (record.resourcePublished) {
      appendText(root, NS.dct, 'dct:issued', formatDateOrDateTime(record.resourcePublished));
    }
    for (const link of record.links) {
      if (isPlainRelation(link)) continue;
      const scheme = link.protocol && isUriLike(link.protocol) ? link.protocol : undefined;
      appendText(root, NS.dct, 'dct:references', link.href, scheme ? { scheme } : undefined);
    }
    if (record.time && instant === undefined && options.version === '2.0.2') {
      appendText(root, NS.dct, 'dct:temporal', temporalText(record.time));
    }
  }

  appendBoundingBox(root, record.bbox, words);
  const withExtent =
    options.version === '3.0.0' &&
    record.time !== undefined &&
    (elementSet === 'summary' || (elementSet === 'full' && dateInstant(record.time) === undefined));
  if (withExtent && record.time) appendTemporalExtent(root, record.time, words);
  return root;
}

/** Writes a record as a standalone csw:Record / SummaryRecord / BriefRecord document. */
export function writeCswRecord(record: CoreRecord, options: CswRecordOptions): string {
  const document = createDocument();
  appendCswRecord(document, record, options);
  return serialise(document, options);
}
