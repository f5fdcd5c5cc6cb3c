/**
 * CoreRecord → Atom `entry` with GeoRSS and Dublin Core, for OpenSearch responses (CEOS /
 * OGC 10-032 style): id, title, updated, summary, authors, categories for keywords (with the
 * theme scheme), links, rights, `dc:identifier`, `dc:date` ("start/end"), and the footprint as
 * `georss:polygon` ("lat lon …", exterior ring) when the record has a polygon, else
 * `georss:box` ("south west north east").
 */
import type { CoreRecord, TimeExtent } from '../../core-record.js';
import {
  appendText,
  createDocument,
  declareNamespaces,
  NS,
  serialise,
  xmlAttributes,
  type WriteOptions,
  type XmlNode,
} from './xml-builder.js';

/** Options of the Atom entry writer. */
export interface AtomEntryOptions extends WriteOptions {
  /** The entry's atom:id; default: the record id when it is an IRI, else a urn:cairn:record: IRI. */
  id?: string;
  /** atom:updated when the record has no date (RFC 3339); default 1970-01-01T00:00:00Z. */
  defaultUpdated?: string;
  /** Extra links to add (e.g. the record's own URL in the catalogue with rel "alternate"). */
  links?: { href: string; rel?: string; type?: string; title?: string }[];
  /** Declare the atom (default namespace), dc and georss prefixes on the entry (default true). */
  declareNamespaces?: boolean;
}

function entryId(record: CoreRecord, options: AtomEntryOptions): string {
  if (options.id) return options.id;
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(record.id)
    ? record.id
    : `urn:cairn:record:${encodeURIComponent(record.id)}`;
}

function timeText(time: TimeExtent): string {
  const start = time.start ?? '..';
  const end = time.end ?? '..';
  return start === end ? start : `${start}/${end}`;
}

/** The exterior ring of a polygonal footprint, as GeoRSS "lat lon lat lon …". */
function polygonText(record: CoreRecord): string | undefined {
  const geometry = record.geometry;
  let ring: number[][] | undefined;
  if (geometry?.type === 'Polygon') ring = geometry.coordinates[0];
  else if (geometry?.type === 'MultiPolygon') ring = geometry.coordinates[0]?.[0];
  if (ring === undefined || ring.length < 4) return undefined;
  return ring.map(([lon, lat]) => `${lat} ${lon}`).join(' ');
}

/** Appends an atom:entry for the record to `parent` (a feed or a document) and returns it. */
export function appendAtomEntry(
  parent: XmlNode,
  record: CoreRecord,
  options: AtomEntryOptions = {},
): XmlNode {
  const entry = parent.ele(NS.atom, 'entry');
  if (options.declareNamespaces !== false) {
    declareNamespaces(entry, { dc: NS.dc, georss: NS.georss });
  }
  appendText(entry, NS.atom, 'id', entryId(record, options));
  appendText(entry, NS.atom, 'title', record.title ?? record.id);
  const updated =
    record.updated ??
    record.resourceUpdated ??
    record.resourcePublished ??
    record.resourceCreated ??
    options.defaultUpdated ??
    '1970-01-01T00:00:00Z';
  appendText(entry, NS.atom, 'updated', updated);
  appendText(entry, NS.atom, 'published', record.resourcePublished);
  const authors = new Map<string, string | undefined>();
  for (const contact of record.contacts) {
    const name = contact.organization ?? contact.name;
    if (contact.scope === 'metadata' || !name || authors.has(name)) continue;
    authors.set(name, contact.emails?.[0]?.value);
  }
  for (const [name, email] of authors) {
    const author = entry.ele(NS.atom, 'author');
    appendText(author, NS.atom, 'name', name);
    appendText(author, NS.atom, 'email', email);
  }
  appendText(entry, NS.atom, 'summary', record.description, { type: 'text' });
  for (const keyword of record.keywords) {
    const theme = record.themes.find((item) => item.concepts.some((c) => c.id === keyword));
    entry.ele(NS.atom, 'category', categoryAttributes(keyword, theme?.scheme)).up();
  }
  for (const link of [...(options.links ?? []), ...record.links]) {
    const attributes: Record<string, string> = { href: link.href };
    if (link.rel) attributes.rel = link.rel;
    if (link.type) attributes.type = link.type;
    if (link.title) attributes.title = link.title;
    entry.ele(NS.atom, 'link', xmlAttributes(attributes)).up();
  }
  appendText(entry, NS.atom, 'rights', record.rights ?? record.license);
  appendText(entry, NS.dc, 'dc:identifier', record.id);
  if (record.time) appendText(entry, NS.dc, 'dc:date', timeText(record.time));
  const polygon = polygonText(record);
  if (polygon !== undefined) {
    appendText(entry, NS.georss, 'georss:polygon', polygon);
  } else if (record.bbox) {
    const [west, south, east, north] = record.bbox;
    appendText(entry, NS.georss, 'georss:box', `${south} ${west} ${north} ${east}`);
  }
  return entry;
}

function categoryAttributes(term: string, scheme: string | undefined): Record<string, string> {
  return xmlAttributes(scheme ? { term, scheme } : { term });
}

/** Writes the record as a standalone Atom entry document. */
export function writeAtomEntry(record: CoreRecord, options: AtomEntryOptions = {}): string {
  const document = createDocument();
  appendAtomEntry(document, record, options);
  return serialise(document, options);
}
