/**
 * CoreRecord → DCAT-AP 3 / GeoDCAT-AP 3 graph (RDF/JS quads built with N3.js's data factory).
 * Pure. The mapping follows the reference ISO 19139 → GeoDCAT-AP transformation
 * (SEMICeu/iso-19139-to-dcat-ap) for the properties CoreRecord carries, the same for every
 * source format; docs/decisions/dcat-ap.md says what it chooses where the source says less.
 */
import { DataFactory, type NamedNode, type Quad, type Quad_Object, type Quad_Subject } from 'n3';
import type { Contact, CoreRecord, Link, Theme, TimeExtent } from '../../core-record.js';
import {
  baseMediaType,
  DCAT_PREFIXES,
  euFileType,
  euLanguage,
  euLicence,
  ianaMediaType,
  iri,
  type DcatPrefix,
} from './vocabularies.js';

const { namedNode, literal, blankNode, quad } = DataFactory;

/** Where the record lives on the web: the IRIs the graph gives it and the records it names. */
export interface DcatOptions {
  /** The IRI of a record's resource (Cairn: its Records item URL), for it and its parent. */
  recordIri(id: string): string;
  /** The record's HTML page (dcat:landingPage), when it has one. */
  landingPage?(id: string): string;
}

/**
 * The start of every dct:description Cairn composes for a record whose source has none, so
 * that a reader (and a harvester) can tell a composed description from the source's.
 */
export const COMPOSED_DESCRIPTION_PREFIX =
  'No description in the source record; composed by the catalogue from its properties:';

/** What kind of DCAT resource a record describes. */
export type DcatKind = 'Dataset' | 'DatasetSeries' | 'DataService';

/** Link relations that navigate (the record, its parents, its licence) rather than give data. */
const NAVIGATION_RELS = new Set([
  'self',
  'root',
  'parent',
  'collection',
  'child',
  'item',
  'items',
  'license',
  'preview',
  'search',
  'describedby',
  'via',
  'next',
  'prev',
  'profile',
]);

/** STAC `license` values that name no licence (the licence is in a link, if anywhere). */
const STAC_NO_LICENCE = new Set(['other', 'proprietary', 'various']);

/**
 * GeoDCAT-AP properties of the ISO 19115 responsible-party roles (and of the STAC provider
 * roles, matched to the nearest ISO role); pointOfContact becomes dcat:contactPoint.
 */
const ROLE_PROPERTIES: Readonly<Record<string, string>> = {
  publisher: iri('dct', 'publisher'),
  author: iri('dct', 'creator'),
  producer: iri('dct', 'creator'),
  owner: iri('dct', 'rightsHolder'),
  licensor: iri('dct', 'rightsHolder'),
  custodian: iri('geodcat', 'custodian'),
  distributor: iri('geodcat', 'distributor'),
  host: iri('geodcat', 'distributor'),
  originator: iri('geodcat', 'originator'),
  principalInvestigator: iri('geodcat', 'principalInvestigator'),
  processor: iri('geodcat', 'processor'),
  resourceProvider: iri('geodcat', 'resourceProvider'),
  user: iri('geodcat', 'user'),
};

/** Properties DCAT-AP allows once (maxCount 1): only the first party of the role is kept. */
const SINGLE_VALUED = new Set([iri('dct', 'publisher')]);

/** The class of the record's resource: a service, a series (ISO series, STAC Collection) or a dataset. */
export function dcatKind(record: CoreRecord): DcatKind {
  const type = (record.type ?? '').toLowerCase();
  if (type === 'service' || type.endsWith('/service')) return 'DataService';
  if (type === 'series' || type === 'collection' || record.source.format === 'stac-collection') {
    return 'DatasetSeries';
  }
  return 'Dataset';
}

const isHttpIri = (value: string | undefined): value is string =>
  value !== undefined && /^https?:\/\/[^\s<>"{}|\\^`]+$/.test(value);

/**
 * An absolute IRI of any scheme (STAC assets are often s3:// or similar), but not one whose
 * scheme is a prefix of the JSON-LD context (`dct:…`), which JSON-LD would read as a compact IRI.
 */
const isIri = (value: string | undefined): value is string => {
  if (value === undefined || !/^[a-z][a-z0-9+.-]*:[^\s<>"{}|\\^`]+$/i.test(value)) return false;
  const scheme = value.slice(0, value.indexOf(':')).toLowerCase();
  return !Object.hasOwn(DCAT_PREFIXES, scheme);
};

/** A `mailto:` IRI for an e-mail address, or undefined when the text is no plain address. */
function mailto(value: string | undefined): string | undefined {
  const address = value?.trim();
  return address && /^[^\s<>"{}|\\^`@]+@[^\s<>"{}|\\^`@]+$/.test(address)
    ? `mailto:${address}`
    : undefined;
}

/** The vocabularies' terms (predicates, classes, datatypes, EU and IANA concepts), made once each. */
const VOCABULARY_TERMS = new Map<string, NamedNode>();

/**
 * The term of a predicate, class or datatype IRI, or of a concept of a controlled vocabulary
 * (a language, a media type, a file type). Every statement names one, and a page names the same
 * concepts again and again, so each is made once and shared by every statement that names it
 * (terms are immutable). Up to 1,000 terms of up to 200 characters are kept: a media type
 * comes from a record.
 */
function vocabularyTerm(value: string): NamedNode {
  let term = VOCABULARY_TERMS.get(value);
  if (term === undefined) {
    term = namedNode(value);
    if (VOCABULARY_TERMS.size < 1000 && value.length <= 200) VOCABULARY_TERMS.set(value, term);
  }
  return term;
}

const RDF_TYPE = vocabularyTerm(iri('rdf', 'type'));

/** Collects quads; blank nodes come from the data factory, so graphs can be merged safely. */
class GraphBuilder {
  readonly quads: Quad[] = [];

  add(subject: Quad_Subject, predicate: string, object: Quad_Object): void {
    this.quads.push(quad(subject, vocabularyTerm(predicate), object));
  }

  type(subject: Quad_Subject, ...classes: [DcatPrefix, string][]): void {
    for (const [prefix, local] of classes)
      this.quads.push(quad(subject, RDF_TYPE, vocabularyTerm(iri(prefix, local))));
  }

  text(
    subject: Quad_Subject,
    predicate: string,
    value: string | undefined,
    language?: string,
  ): void {
    const trimmed = value?.trim();
    if (trimmed) this.add(subject, predicate, literal(trimmed, language));
  }

  typed(subject: Quad_Subject, predicate: string, value: string, datatype: string): void {
    this.add(subject, predicate, literal(value, vocabularyTerm(datatype)));
  }
}

/** An xsd:date or xsd:dateTime literal's form and datatype for an ISO 8601 value. */
function dateValue(value: string, dateOnly = false): { value: string; datatype: string } {
  if (dateOnly || /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return { value: value.slice(0, 10), datatype: iri('xsd', 'date') };
  }
  return { value, datatype: iri('xsd', 'dateTime') };
}

function addDate(
  graph: GraphBuilder,
  subject: Quad_Subject,
  predicate: string,
  value?: string,
): void {
  if (!value) return;
  const { value: text, datatype } = dateValue(value);
  graph.typed(subject, predicate, text, datatype);
}

/** A number as WKT writes it (no exponent, no trailing zeros). */
function wktNumber(value: number): string {
  return String(Number(value.toFixed(9)));
}

/** The record's bbox as a CRS84 WKT polygon (GeoDCAT-AP's recommended dcat:bbox encoding). */
export function bboxWkt(bbox: [number, number, number, number]): string {
  const [west, south, east, north] = bbox.map(wktNumber);
  const corners = [
    [west, north],
    [east, north],
    [east, south],
    [west, south],
    [west, north],
  ];
  return `POLYGON((${corners.map(([x, y]) => `${x ?? '0'} ${y ?? '0'}`).join(',')}))`;
}

function describeTime(time: TimeExtent): string {
  const show = (value: string | null): string =>
    value === null ? 'open' : time.dateOnly ? value.slice(0, 10) : value;
  if (time.start !== null && time.start === time.end) return `time ${show(time.start)}`;
  return `time from ${show(time.start)} to ${show(time.end)}`;
}

const SOURCE_KIND: Readonly<Record<CoreRecord['source']['format'], string>> = {
  'stac-item': 'STAC Item',
  'stac-collection': 'STAC Collection',
  'ogc-record': 'OGC API record',
  geojson: 'GeoJSON record',
  iso19139: 'ISO 19139 record',
  'iso19115-3': 'ISO 19115-3 record',
  'dublin-core': 'Dublin Core record',
};

/**
 * A description made only of facts the record states (its kind, title, time, acquisition
 * properties, extent, parent and keywords), for a record whose source has none. It starts with
 * COMPOSED_DESCRIPTION_PREFIX.
 */
export function composeDescription(record: CoreRecord): string {
  const facts: string[] = [`${SOURCE_KIND[record.source.format]} "${record.title ?? record.id}"`];
  if (record.time) facts.push(describeTime(record.time));
  const eo = record.eo;
  if (eo.platform) facts.push(`platform ${eo.platform}`);
  if (eo.instrument) facts.push(`instrument ${eo.instrument}`);
  if (eo.productType) facts.push(`product type ${eo.productType}`);
  if (eo.processingLevel) facts.push(`processing level ${eo.processingLevel}`);
  if (eo.cloudCover !== undefined) facts.push(`cloud cover ${eo.cloudCover} %`);
  if (record.bbox) {
    const [west, south, east, north] = record.bbox;
    facts.push(
      `bounding box ${west}, ${south}, ${east}, ${north} (west, south, east, north; CRS84)`,
    );
  }
  if (record.parentId) facts.push(`part of "${record.parentId}"`);
  if (record.keywords.length > 0)
    facts.push(`keywords: ${record.keywords.slice(0, 20).join(', ')}`);
  return `${COMPOSED_DESCRIPTION_PREFIX} ${facts.join('; ')}.`;
}

/** A party as foaf:Agent (publisher, creator, rights holder, GeoDCAT-AP roles), or undefined without a name. */
function addAgent(graph: GraphBuilder, contact: Contact): Quad_Subject | undefined {
  const name = contact.organization ?? contact.name;
  if (!name?.trim()) return undefined;
  const agent = blankNode();
  graph.type(
    agent,
    ['foaf', 'Agent'],
    contact.organization ? ['foaf', 'Organization'] : ['foaf', 'Person'],
  );
  graph.text(agent, iri('foaf', 'name'), name);
  const email = contact.emails?.map((entry) => mailto(entry.value)).find(Boolean);
  if (email) graph.add(agent, iri('foaf', 'mbox'), namedNode(email));
  const page = contact.links?.find((link) => isHttpIri(link.href));
  if (page) graph.add(agent, iri('foaf', 'homepage'), namedNode(page.href));
  return agent;
}

/** A point of contact as vcard:Kind (vcard:Organization or vcard:Individual). */
function addContactPoint(graph: GraphBuilder, contact: Contact): Quad_Subject | undefined {
  const name = contact.organization ?? contact.name;
  const emails = (contact.emails ?? []).flatMap((entry) => mailto(entry.value) ?? []);
  if (!name?.trim() && emails.length === 0) return undefined;
  const kind = blankNode();
  graph.type(
    kind,
    ['vcard', 'Kind'],
    contact.organization ? ['vcard', 'Organization'] : ['vcard', 'Individual'],
  );
  graph.text(kind, iri('vcard', 'fn'), contact.name ?? contact.organization);
  if (contact.organization && contact.name) {
    graph.text(kind, iri('vcard', 'organization-name'), contact.organization);
  }
  // GeoDCAT-AP 3 gives vcard:hasEmail the range vcard:Email (`sh:class`), so the address says so.
  for (const email of emails) {
    graph.add(kind, iri('vcard', 'hasEmail'), namedNode(email));
    graph.type(namedNode(email), ['vcard', 'Email']);
  }
  for (const entry of contact.phones ?? []) {
    const phone = entry.value.replace(/[^+\d]/g, '');
    if (phone) graph.add(kind, iri('vcard', 'hasTelephone'), namedNode(`tel:${phone}`));
  }
  for (const link of contact.links ?? []) {
    if (isHttpIri(link.href)) graph.add(kind, iri('vcard', 'hasURL'), namedNode(link.href));
  }
  return kind;
}

function addContacts(graph: GraphBuilder, subject: Quad_Subject, contacts: Contact[]): void {
  const used = new Set<string>();
  for (const contact of contacts) {
    if (contact.scope === 'metadata') continue;
    // One agent node per party, whatever the number of its roles.
    let agent: Quad_Subject | undefined;
    for (const role of contact.roles ?? []) {
      if (role === 'pointOfContact') {
        const kind = addContactPoint(graph, contact);
        if (kind) graph.add(subject, iri('dcat', 'contactPoint'), kind);
        continue;
      }
      const property = ROLE_PROPERTIES[role];
      if (!property || (SINGLE_VALUED.has(property) && used.has(property))) continue;
      agent ??= addAgent(graph, contact);
      if (!agent) continue;
      graph.add(subject, property, agent);
      used.add(property);
    }
  }
}

/** The dct:license: a licence of the EU table, a licence IRI, or the source's text as a LicenseDocument. */
function licenceNode(graph: GraphBuilder, record: CoreRecord): Quad_Object | undefined {
  const text = record.license?.trim();
  const link = record.links.find((entry) => entry.rel === 'license' && isHttpIri(entry.href));
  const named = text && !STAC_NO_LICENCE.has(text.toLowerCase()) ? text : undefined;
  const chosen = (named && euLicence(named)) ?? (link && euLicence(link.href));
  if (chosen) {
    graph.type(namedNode(chosen), ['dct', 'LicenseDocument']);
    return namedNode(chosen);
  }
  if (named && isHttpIri(named)) {
    graph.type(namedNode(named), ['dct', 'LicenseDocument']);
    return namedNode(named);
  }
  if (link) {
    graph.type(namedNode(link.href), ['dct', 'LicenseDocument']);
    return namedNode(link.href);
  }
  if (!named) return undefined;
  const document = blankNode();
  graph.type(document, ['dct', 'LicenseDocument']);
  graph.text(document, iri('rdfs', 'label'), named);
  return document;
}

/** dcat:mediaType (IANA) and dct:format (EU file type, else the source's name) of a distribution. */
function addFormat(
  graph: GraphBuilder,
  distribution: Quad_Subject,
  link: Link,
  fallbackFormat?: { name?: string; mediaType?: string },
): void {
  const mediaType = baseMediaType(link.type) ?? baseMediaType(fallbackFormat?.mediaType);
  if (mediaType) {
    const node = vocabularyTerm(ianaMediaType(mediaType));
    graph.type(node, ['dct', 'MediaType']);
    graph.add(distribution, iri('dcat', 'mediaType'), node);
  }
  const fileType =
    euFileType(link.type) ?? euFileType(fallbackFormat?.mediaType, fallbackFormat?.name);
  if (fileType) {
    graph.type(vocabularyTerm(fileType), ['dct', 'MediaTypeOrExtent']);
    graph.add(distribution, iri('dct', 'format'), vocabularyTerm(fileType));
  } else if (!mediaType && fallbackFormat?.name) {
    const format = blankNode();
    graph.type(format, ['dct', 'MediaTypeOrExtent']);
    graph.text(format, iri('rdfs', 'label'), fallbackFormat.name);
    graph.add(distribution, iri('dct', 'format'), format);
  }
}

/** Links that lead to the data or a service on it (STAC assets, ISO online resources …). */
export function dataLinks(record: CoreRecord): Link[] {
  return record.links.filter(
    (link) => isIri(link.href) && !NAVIGATION_RELS.has((link.rel ?? '').toLowerCase()),
  );
}

const isDownload = (link: Link): boolean =>
  link.rel === 'enclosure' ||
  link.rel === 'download' ||
  (link.roles?.includes('data') ?? false) ||
  /download/i.test(link.protocol ?? '');

function addDistributions(
  graph: GraphBuilder,
  dataset: Quad_Subject,
  datasetIri: string,
  record: CoreRecord,
  language: string | undefined,
  licence: Quad_Object | undefined,
): void {
  const single = record.formats.length === 1 ? record.formats[0] : undefined;
  dataLinks(record).forEach((link, index) => {
    const distribution = namedNode(`${datasetIri}#distribution-${index + 1}`);
    graph.type(distribution, ['dcat', 'Distribution']);
    graph.add(dataset, iri('dcat', 'distribution'), distribution);
    graph.add(distribution, iri('dcat', 'accessURL'), namedNode(link.href));
    if (isDownload(link)) graph.add(distribution, iri('dcat', 'downloadURL'), namedNode(link.href));
    graph.text(distribution, iri('dct', 'title'), link.title, language);
    graph.text(distribution, iri('dct', 'description'), link.description, language);
    addFormat(graph, distribution, link, single);
    if (licence) graph.add(distribution, iri('dct', 'license'), licence);
  });
}

function addThemes(
  graph: GraphBuilder,
  subject: Quad_Subject,
  themes: Theme[],
  language?: string,
): void {
  for (const theme of themes) {
    const scheme = isHttpIri(theme.scheme) ? namedNode(theme.scheme) : blankNode();
    graph.type(scheme, ['skos', 'ConceptScheme']);
    graph.text(scheme, iri('dct', 'title'), theme.scheme, language);
    for (const concept of theme.concepts) {
      const label = concept.title ?? concept.id;
      if (!label.trim()) continue;
      const conceptIri = [concept.url, concept.id].find(isHttpIri);
      const node = conceptIri ? namedNode(conceptIri) : blankNode();
      graph.type(node, ['skos', 'Concept']);
      graph.text(node, iri('skos', 'prefLabel'), label, language);
      graph.add(node, iri('skos', 'inScheme'), scheme);
      graph.add(subject, iri('dcat', 'theme'), node);
    }
  }
}

function addTemporal(
  graph: GraphBuilder,
  subject: Quad_Subject,
  time: TimeExtent | undefined,
): void {
  if (!time || (time.start === null && time.end === null)) return;
  const period = blankNode();
  graph.type(period, ['dct', 'PeriodOfTime']);
  for (const [predicate, value] of [
    ['startDate', time.start],
    ['endDate', time.end],
  ] as const) {
    if (value === null) continue;
    const { value: text, datatype } = dateValue(value, time.dateOnly);
    graph.typed(period, iri('dcat', predicate), text, datatype);
  }
  graph.add(subject, iri('dct', 'temporal'), period);
}

function addSpatial(graph: GraphBuilder, subject: Quad_Subject, record: CoreRecord): void {
  if (!record.bbox) return;
  const location = blankNode();
  graph.type(location, ['dct', 'Location']);
  graph.typed(location, iri('dcat', 'bbox'), bboxWkt(record.bbox), iri('gsp', 'wktLiteral'));
  graph.add(subject, iri('dct', 'spatial'), location);
}

/**
 * The DCAT-AP 3 / GeoDCAT-AP 3 description of one record: a dcat:Dataset, dcat:DatasetSeries
 * or dcat:DataService named by `options.recordIri(record.id)`, with its distributions, contacts,
 * extent and licence. A dataset or series whose source has no description gets one composed
 * of the record's facts (composeDescription); one without a title is titled by its identifier.
 */
export function buildDcatGraph(record: CoreRecord, options: DcatOptions): Quad[] {
  const graph = new GraphBuilder();
  addRecordGraph(graph, record, options);
  return graph.quads;
}

/** Adds the statements of buildDcatGraph to a graph (a record's own, or a catalogue page's). */
function addRecordGraph(graph: GraphBuilder, record: CoreRecord, options: DcatOptions): void {
  const datasetIri = options.recordIri(record.id);
  const subject = namedNode(datasetIri);
  const kind = dcatKind(record);
  const language = euLanguage(record.language);
  const tag = language?.tag;
  if (kind === 'DatasetSeries') graph.type(subject, ['dcat', 'Dataset'], ['dcat', 'DatasetSeries']);
  else graph.type(subject, ['dcat', kind]);

  graph.text(subject, iri('dct', 'title'), record.title?.trim() ? record.title : record.id, tag);
  const description = record.description?.trim()
    ? record.description
    : kind === 'DataService'
      ? undefined
      : composeDescription(record);
  graph.text(
    subject,
    iri('dct', 'description'),
    description,
    record.description?.trim() ? tag : 'en',
  );
  graph.text(subject, iri('dct', 'identifier'), record.id);
  for (const external of record.externalIds) {
    const identifier = blankNode();
    graph.type(identifier, ['adms', 'Identifier']);
    graph.text(identifier, iri('skos', 'notation'), external.value);
    graph.text(identifier, iri('adms', 'schemaAgency'), external.scheme);
    graph.add(subject, iri('adms', 'identifier'), identifier);
  }
  for (const keyword of record.keywords) graph.text(subject, iri('dcat', 'keyword'), keyword, tag);
  addThemes(graph, subject, record.themes, tag);
  if (language) {
    graph.type(vocabularyTerm(language.authority), ['dct', 'LinguisticSystem']);
    graph.add(subject, iri('dct', 'language'), vocabularyTerm(language.authority));
  }
  addSpatial(graph, subject, record);
  addTemporal(graph, subject, record.time);
  addDate(graph, subject, iri('dct', 'issued'), record.resourcePublished);
  addDate(graph, subject, iri('dct', 'modified'), record.resourceUpdated);
  addDate(graph, subject, iri('dct', 'created'), record.resourceCreated);
  const licence = licenceNode(graph, record);
  if (licence) graph.add(subject, iri('dct', 'license'), licence);
  if (record.rights?.trim()) {
    const rights = blankNode();
    graph.type(rights, ['dct', 'RightsStatement']);
    graph.text(rights, iri('rdfs', 'label'), record.rights);
    graph.add(subject, iri('dct', 'accessRights'), rights);
  }
  addContacts(graph, subject, record.contacts);
  if (record.parentId)
    graph.add(subject, iri('dct', 'isPartOf'), namedNode(options.recordIri(record.parentId)));
  if (options.landingPage) {
    const page = namedNode(options.landingPage(record.id));
    graph.type(page, ['foaf', 'Document']);
    graph.add(subject, iri('dcat', 'landingPage'), page);
  }
  if (kind === 'DataService') {
    for (const link of dataLinks(record))
      graph.add(subject, iri('dcat', 'endpointURL'), namedNode(link.href));
  } else {
    addDistributions(graph, subject, datasetIri, record, tag, licence);
  }
}

/** A page of a harvestable catalogue: where it is, its neighbours and the whole count. */
export interface CatalogPage {
  /** The catalogue's IRI (Cairn: the catalogue collection's URL). */
  catalogIri: string;
  title: string;
  description: string;
  publisherName: string;
  /** The catalogue's licence (an SPDX identifier or a URL), if any. */
  license?: string | undefined;
  homepage?: string | undefined;
  /** This page and its neighbours (hydra:first/next/previous/last), as URLs. */
  view: { self: string; first: string; last: string; next?: string; previous?: string };
  /** Records matched by the whole query (hydra:totalItems). */
  totalItems: number;
}

/**
 * A dcat:Catalog with the records of one page as its dcat:dataset / dcat:service, and a Hydra
 * PartialCollectionView linking the pages, so that a harvester can walk the whole catalogue.
 */
export function buildCatalogPageGraph(
  records: readonly CoreRecord[],
  page: CatalogPage,
  options: DcatOptions,
): Quad[] {
  const graph = new GraphBuilder();
  const catalog = namedNode(page.catalogIri);
  graph.type(catalog, ['dcat', 'Catalog'], ['hydra', 'Collection']);
  graph.text(catalog, iri('dct', 'title'), page.title);
  graph.text(catalog, iri('dct', 'description'), page.description);
  const publisher = blankNode();
  graph.type(publisher, ['foaf', 'Agent'], ['foaf', 'Organization']);
  graph.text(publisher, iri('foaf', 'name'), page.publisherName);
  graph.add(catalog, iri('dct', 'publisher'), publisher);
  if (page.homepage && isHttpIri(page.homepage)) {
    graph.type(namedNode(page.homepage), ['foaf', 'Document']);
    graph.add(catalog, iri('foaf', 'homepage'), namedNode(page.homepage));
  }
  const licence = page.license
    ? (euLicence(page.license) ?? (isHttpIri(page.license) ? page.license : undefined))
    : undefined;
  if (licence) {
    graph.type(namedNode(licence), ['dct', 'LicenseDocument']);
    graph.add(catalog, iri('dct', 'license'), namedNode(licence));
  }
  graph.typed(
    catalog,
    iri('hydra', 'totalItems'),
    String(page.totalItems),
    iri('xsd', 'nonNegativeInteger'),
  );
  const view = namedNode(page.view.self);
  graph.type(view, ['hydra', 'PartialCollectionView']);
  graph.add(catalog, iri('hydra', 'view'), view);
  for (const [predicate, target] of [
    ['first', page.view.first],
    ['last', page.view.last],
    ['next', page.view.next],
    ['previous', page.view.previous],
  ] as const) {
    if (target) graph.add(view, iri('hydra', predicate), namedNode(target));
  }
  for (const record of records) {
    const member = namedNode(options.recordIri(record.id));
    const property = dcatKind(record) === 'DataService' ? 'service' : 'dataset';
    graph.add(catalog, iri('dcat', property), member);
    addRecordGraph(graph, record, options);
  }
  return graph.quads;
}
