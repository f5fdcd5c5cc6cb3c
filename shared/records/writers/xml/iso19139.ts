/**
 * CoreRecord → ISO 19139 `gmd:MD_Metadata`. A record that came from ISO 19139 is returned as
 * its stored source, verbatim; any other record (or any record, when `useSource` is false) is
 * synthesised, valid against the ISO 19139 schemas (gmd/srv/gmx of 2006-05-04, GML namespace
 * http://www.opengis.net/gml, as pycsw writes it) and read back by the ISO reader into the same
 * CoreRecord for every field ISO carries.
 *
 * What gmd has no element for is written the way the reader expects it: EO properties other
 * than cloud cover, illumination angles and processing level (which go to MD_ImageDescription)
 * become `eo:<name>:<value>` keywords; contacts go to gmd:contact, pointOfContact or
 * distributorContact according to their scope.
 */
import type { Geometry, Position } from 'geojson';
import type { Contact, CoreRecord, Link, TimeExtent, Translation } from '../../core-record.js';
import { recordLanguages, recordLanguageTag, toIso639_2 } from '../../languages.js';
import {
  CONSTRAINT_KEYS,
  EO_KEYWORD_NAMES,
  formatEoKeyword,
  functionForRelation,
  mediaTypeForProtocol,
  TOPIC_CATEGORY_SCHEMES,
  type ConstraintValues,
} from '../../formats/xml/mapping.js';
import { parseXml, type XmlElement } from '../../../xml/index.js';
import {
  appendParsedElement,
  appendSourceXml,
  createDocument,
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

/** Options of the ISO 19139 writer. */
export interface Iso19139Options extends WriteOptions {
  /** Return the stored source when the record came from ISO 19139 (default true). */
  useSource?: boolean;
  /** Declare the gmd/gco/… prefixes on the root element (default true). */
  declareNamespaces?: boolean;
  /**
   * Write an ISO 19115-2 `gmi:MI_Metadata` source as its `gmd:MD_Metadata` supertype (default
   * false): for lists of `gmd:MD_Metadata` records, which clients read by that element name.
   */
  asMdMetadata?: boolean;
}

const CODE_LISTS = 'http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml';

/** ISO 19115:2003 topic categories (the MD_TopicCategoryCode enumeration of the schema). */
const TOPIC_CATEGORIES = new Set([
  'farming',
  'biota',
  'boundaries',
  'climatologyMeteorologyAtmosphere',
  'economy',
  'elevation',
  'environment',
  'geoscientificInformation',
  'health',
  'imageryBaseMapsEarthCover',
  'intelligenceMilitary',
  'inlandWaters',
  'location',
  'oceans',
  'planningCadastre',
  'society',
  'structure',
  'transportation',
  'utilitiesCommunication',
]);

/** Link relations that describe the catalogue's own navigation, not the resource. */
const NAVIGATION_RELATIONS = new Set(['self', 'root', 'parent', 'child', 'collection', 'items']);

/** EO properties written to MD_ImageDescription rather than as keywords. */
const IMAGE_DESCRIPTION_EO = new Set([
  'cloudCover',
  'illuminationElevationAngle',
  'illuminationAzimuthAngle',
  'processingLevel',
]);

/** ISO scope codes for DCMI types (and STAC "collection"); other DCMI types are datasets. */
const SCOPE_CODES: Record<string, string> = {
  dataset: 'dataset',
  service: 'service',
  collection: 'series',
  text: 'nonGeographicDataset',
  software: 'software',
};

/** Builder helpers bound to the ISO namespaces. */
class IsoBuilder {
  private gmlIds = 0;

  nextGmlId(prefix: string): string {
    this.gmlIds += 1;
    return `${prefix}${this.gmlIds}`;
  }

  /** `<gmd:name><gco:CharacterString>value</…></…>` (or an Anchor when an href is given). */
  string(parent: XmlNode, name: string, value: string | undefined, href?: string): void {
    if (value === undefined) return;
    this.textValue(parent.ele(NS.gmd, `gmd:${name}`), value, href);
  }

  /** The value of a text property: an Anchor when an href is given, else a CharacterString. */
  private textValue(property: XmlNode, value: string, href: string | undefined): void {
    if (href !== undefined) {
      property
        .ele(NS.gmx, 'gmx:Anchor')
        .att(NS.xlink, 'xlink:href', xmlText(href))
        .txt(xmlText(value));
    } else {
      property.ele(NS.gco, 'gco:CharacterString').txt(xmlText(value));
    }
  }

  /**
   * A free-text property with its translations: the CharacterString (or Anchor) in the
   * record's language, then a gmd:PT_FreeText group per locale (`[locale id, text]`).
   */
  freeText(
    parent: XmlNode,
    name: string,
    value: string | undefined,
    localised: [string, string][],
    href?: string,
  ): void {
    if (value === undefined || localised.length === 0) {
      this.string(parent, name, value, href);
      return;
    }
    const property = parent
      .ele(NS.gmd, `gmd:${name}`)
      .att(NS.xsi, 'xsi:type', 'gmd:PT_FreeText_PropertyType');
    this.textValue(property, value, href);
    const freeText = property.ele(NS.gmd, 'gmd:PT_FreeText');
    for (const [id, text] of localised) {
      freeText
        .ele(NS.gmd, 'gmd:textGroup')
        .ele(NS.gmd, 'gmd:LocalisedCharacterString')
        .att('locale', `#${id}`)
        .txt(xmlText(text));
    }
  }

  /** A required CharacterString property: nilReason "missing" when there is no value. */
  requiredString(parent: XmlNode, name: string, value: string | undefined): void {
    if (value === undefined) this.nil(parent, NS.gmd, `gmd:${name}`);
    else this.string(parent, name, value);
  }

  nil(parent: XmlNode, ns: string, name: string, reason = 'missing'): void {
    parent.ele(ns, name).att(NS.gco, 'gco:nilReason', reason);
  }

  code(
    parent: XmlNode,
    name: string,
    list: string,
    value: string | undefined,
    ns: string = NS.gmd,
  ): void {
    if (value === undefined) return;
    const prefix = ns === NS.srv ? 'srv' : 'gmd';
    parent
      .ele(ns, `${prefix}:${name}`)
      .ele(ns, `${prefix}:${list}`, {
        codeList: `${CODE_LISTS}#${list}`,
        codeListValue: xmlText(value),
      })
      .txt(xmlText(value));
  }

  date(parent: XmlNode, name: string, value: string | undefined): void {
    if (value === undefined) {
      this.nil(parent, NS.gmd, `gmd:${name}`);
      return;
    }
    const property = parent.ele(NS.gmd, `gmd:${name}`);
    if (isMidnight(value)) property.ele(NS.gco, 'gco:Date').txt(formatDateOrDateTime(value));
    else property.ele(NS.gco, 'gco:DateTime').txt(value);
  }

  decimal(parent: XmlNode, name: string, value: number): void {
    parent.ele(NS.gmd, `gmd:${name}`).ele(NS.gco, 'gco:Decimal').txt(String(value));
  }

  real(parent: XmlNode, name: string, value: number | undefined): void {
    if (value === undefined) return;
    parent.ele(NS.gmd, `gmd:${name}`).ele(NS.gco, 'gco:Real').txt(String(value));
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function scopeCode(type: string | undefined): string {
  if (type === undefined) return 'dataset';
  const dcmi = /^https?:\/\/purl\.org\/dc\/dcmitype\/(\w+)$/i.exec(type)?.[1];
  if (dcmi !== undefined) return SCOPE_CODES[dcmi.toLowerCase()] ?? 'dataset';
  return type === 'collection' ? 'series' : type;
}

function appendContact(
  b: IsoBuilder,
  parent: XmlNode,
  contact: Contact,
  role: string | undefined,
): void {
  const party = parent.ele(NS.gmd, 'gmd:CI_ResponsibleParty');
  b.string(party, 'individualName', contact.name);
  b.string(party, 'organisationName', contact.organization);
  b.string(party, 'positionName', contact.position);
  const address = contact.addresses?.[0];
  const link = contact.links?.[0];
  if (contact.phones?.length || address || contact.emails?.length || link) {
    const info = party.ele(NS.gmd, 'gmd:contactInfo').ele(NS.gmd, 'gmd:CI_Contact');
    if (contact.phones?.length) {
      const phone = info.ele(NS.gmd, 'gmd:phone').ele(NS.gmd, 'gmd:CI_Telephone');
      for (const number of contact.phones) b.string(phone, 'voice', number.value);
    }
    if (address || contact.emails?.length) {
      const element = info.ele(NS.gmd, 'gmd:address').ele(NS.gmd, 'gmd:CI_Address');
      for (const line of address?.deliveryPoint ?? []) b.string(element, 'deliveryPoint', line);
      b.string(element, 'city', address?.city);
      b.string(element, 'administrativeArea', address?.administrativeArea);
      b.string(element, 'postalCode', address?.postalCode);
      b.string(element, 'country', address?.country);
      for (const email of contact.emails ?? [])
        b.string(element, 'electronicMailAddress', email.value);
    }
    if (link) appendOnlineResource(b, info.ele(NS.gmd, 'gmd:onlineResource'), link);
  }
  if (role === undefined) b.nil(party, NS.gmd, 'gmd:role');
  else b.code(party, 'role', 'CI_RoleCode', role);
}

/** One CI_ResponsibleParty per role (ISO parties have a single role). */
function appendContacts(
  b: IsoBuilder,
  parent: XmlNode,
  name: string,
  contacts: Contact[],
  ns: string = NS.gmd,
): void {
  for (const contact of contacts) {
    const roles = contact.roles && contact.roles.length > 0 ? contact.roles : [undefined];
    for (const role of roles) {
      appendContact(b, parent.ele(ns, name), contact, role);
    }
  }
}

function appendOnlineResource(b: IsoBuilder, property: XmlNode, link: Link): void {
  const resource = property.ele(NS.gmd, 'gmd:CI_OnlineResource');
  resource.ele(NS.gmd, 'gmd:linkage').ele(NS.gmd, 'gmd:URL').txt(xmlText(link.href));
  b.string(resource, 'protocol', link.protocol);
  if (link.type && mediaTypeForProtocol(link.protocol) !== link.type) {
    b.string(resource, 'applicationProfile', link.type);
  }
  b.string(resource, 'name', link.title);
  b.string(resource, 'description', link.description);
  const func = functionForRelation(link.rel);
  if (func !== undefined) b.code(resource, 'function', 'CI_OnLineFunctionCode', func);
}

function appendCitation(b: IsoBuilder, parent: XmlNode, record: CoreRecord): void {
  const citation = parent.ele(NS.gmd, 'gmd:citation').ele(NS.gmd, 'gmd:CI_Citation');
  if (record.title === undefined) b.requiredString(citation, 'title', record.title);
  else
    b.freeText(
      citation,
      'title',
      record.title,
      localisedTexts(record, (t) => t.title),
    );
  b.string(citation, 'alternateTitle', stringValue(record.extra.alternateTitle));
  const dates: [string | undefined, string][] = [
    [record.resourceCreated, 'creation'],
    [record.resourcePublished, 'publication'],
    [record.resourceUpdated, 'revision'],
  ];
  let wrote = false;
  for (const [value, type] of dates) {
    if (value === undefined) continue;
    const date = citation.ele(NS.gmd, 'gmd:date').ele(NS.gmd, 'gmd:CI_Date');
    b.date(date, 'date', value);
    b.code(date, 'dateType', 'CI_DateTypeCode', type);
    wrote = true;
  }
  if (!wrote) b.nil(citation, NS.gmd, 'gmd:date');
  for (const identifier of record.externalIds) {
    const holder = citation.ele(NS.gmd, 'gmd:identifier');
    if (identifier.scheme === undefined) {
      b.string(holder.ele(NS.gmd, 'gmd:MD_Identifier'), 'code', identifier.value);
    } else {
      const rs = holder.ele(NS.gmd, 'gmd:RS_Identifier');
      b.string(rs, 'code', identifier.value);
      b.string(rs, 'codeSpace', identifier.scheme);
    }
  }
}

interface KeywordGroup {
  keywords: { id: string; url?: string }[];
  scheme?: string;
}

/**
 * Keyword groups in an order that reads back to the same `keywords` and `themes`: themes in
 * their order, with the free keywords that preceded each theme's first keyword before it.
 */
function keywordGroups(record: CoreRecord): KeywordGroup[] {
  const themes = record.themes.filter((theme) => !TOPIC_CATEGORY_SCHEMES.has(theme.scheme));
  const themed = new Set(themes.flatMap((theme) => theme.concepts.map((concept) => concept.id)));
  const position = new Map(record.keywords.map((keyword, index) => [keyword, index]));
  const free = record.keywords.filter((keyword) => !themed.has(keyword));
  const emitted = new Set<string>();
  const covered = new Set<string>();
  const groups: KeywordGroup[] = [];
  for (const theme of themes) {
    const fresh = theme.concepts
      .filter((concept) => !covered.has(concept.id))
      .map((concept) => position.get(concept.id))
      .filter((index): index is number => index !== undefined);
    if (fresh.length > 0) {
      const first = Math.min(...fresh);
      const before = free.filter(
        (keyword) => !emitted.has(keyword) && (position.get(keyword) ?? 0) < first,
      );
      if (before.length > 0) groups.push({ keywords: before.map((id) => ({ id })) });
      for (const keyword of before) emitted.add(keyword);
    }
    groups.push({ scheme: theme.scheme, keywords: theme.concepts });
    for (const concept of theme.concepts) covered.add(concept.id);
  }
  const rest = free.filter((keyword) => !emitted.has(keyword));
  if (rest.length > 0) groups.push({ keywords: rest.map((id) => ({ id })) });
  const eo = eoKeywords(record);
  if (eo.length > 0) groups.push({ keywords: eo.map((id) => ({ id })) });
  return groups;
}

function eoKeywords(record: CoreRecord): string[] {
  const keywords: string[] = [];
  for (const name of EO_KEYWORD_NAMES) {
    const value = record.eo[name];
    if (value !== undefined && !IMAGE_DESCRIPTION_EO.has(name))
      keywords.push(formatEoKeyword(name, value));
  }
  for (const [key, value] of Object.entries(record.extra)) {
    const name = /^eo:([A-Za-z][A-Za-z0-9]*)$/.exec(key)?.[1];
    if (name !== undefined && (typeof value === 'string' || typeof value === 'number')) {
      keywords.push(formatEoKeyword(name, value));
    }
  }
  return keywords;
}

function appendKeywords(b: IsoBuilder, parent: XmlNode, record: CoreRecord): void {
  for (const group of keywordGroups(record)) {
    const keywords = parent.ele(NS.gmd, 'gmd:descriptiveKeywords').ele(NS.gmd, 'gmd:MD_Keywords');
    for (const keyword of group.keywords) {
      const localised = localisedTexts(record, (t) => t.keywords?.[keyword.id]);
      b.freeText(keywords, 'keyword', keyword.id, localised, keyword.url);
    }
    if (group.scheme !== undefined) {
      const thesaurus = keywords.ele(NS.gmd, 'gmd:thesaurusName').ele(NS.gmd, 'gmd:CI_Citation');
      b.string(
        thesaurus,
        'title',
        group.scheme,
        isUriLike(group.scheme) ? group.scheme : undefined,
      );
      b.nil(thesaurus, NS.gmd, 'gmd:date', 'unknown');
    }
  }
}

function appendConstraints(b: IsoBuilder, parent: XmlNode, record: CoreRecord): void {
  const stored: ConstraintValues = {
    useLimitation: stringList(record.extra.useLimitation),
    accessConstraints: stringList(record.extra.accessConstraints),
    useConstraints: stringList(record.extra.useConstraints),
    otherConstraints: stringList(record.extra.otherConstraints),
  };
  const hasStored = CONSTRAINT_KEYS.some((key) => stored[key].length > 0);
  const values: ConstraintValues = hasStored
    ? stored
    : {
        useLimitation: record.license ? [record.license] : [],
        accessConstraints: record.rights ? ['otherRestrictions'] : [],
        useConstraints: [],
        otherConstraints: record.rights ? [record.rights] : [],
      };
  if (!CONSTRAINT_KEYS.some((key) => values[key].length > 0)) return;
  const legal = parent
    .ele(NS.gmd, 'gmd:resourceConstraints')
    .ele(NS.gmd, 'gmd:MD_LegalConstraints');
  for (const text of values.useLimitation) b.string(legal, 'useLimitation', text);
  for (const code of values.accessConstraints)
    b.code(legal, 'accessConstraints', 'MD_RestrictionCode', code);
  for (const code of values.useConstraints)
    b.code(legal, 'useConstraints', 'MD_RestrictionCode', code);
  for (const text of values.otherConstraints) b.string(legal, 'otherConstraints', text);
}

function posList(ring: Position[]): string {
  return ring.map((position) => `${position[0]} ${position[1]}`).join(' ');
}

function appendPolygon(
  b: IsoBuilder,
  parent: XmlNode,
  rings: Position[][],
  srsName?: string,
): void {
  const polygon = parent.ele(NS.gml, 'gml:Polygon').att(NS.gml, 'gml:id', b.nextGmlId('polygon'));
  if (srsName) polygon.att('srsName', srsName);
  rings.forEach((ring, index) => {
    polygon
      .ele(NS.gml, index === 0 ? 'gml:exterior' : 'gml:interior')
      .ele(NS.gml, 'gml:LinearRing')
      .ele(NS.gml, 'gml:posList', { srsDimension: '2' })
      .txt(posList(ring));
  });
}

const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

function appendGeometry(b: IsoBuilder, extent: XmlNode, geometry: Geometry | undefined): void {
  if (geometry === undefined) return;
  if (geometry.type !== 'Polygon' && geometry.type !== 'MultiPolygon') return;
  const holder = extent
    .ele(NS.gmd, 'gmd:geographicElement')
    .ele(NS.gmd, 'gmd:EX_BoundingPolygon')
    .ele(NS.gmd, 'gmd:polygon');
  if (geometry.type === 'Polygon') {
    appendPolygon(b, holder, geometry.coordinates, CRS84);
    return;
  }
  const multi = holder
    .ele(NS.gml, 'gml:MultiSurface', { srsName: CRS84 })
    .att(NS.gml, 'gml:id', b.nextGmlId('surface'));
  for (const polygon of geometry.coordinates)
    appendPolygon(b, multi.ele(NS.gml, 'gml:surfaceMember'), polygon);
}

function appendTime(b: IsoBuilder, extent: XmlNode, time: TimeExtent | undefined): void {
  if (time === undefined) return;
  const holder = extent
    .ele(NS.gmd, 'gmd:temporalElement')
    .ele(NS.gmd, 'gmd:EX_TemporalExtent')
    .ele(NS.gmd, 'gmd:extent');
  if (time.start !== null && time.start === time.end) {
    holder
      .ele(NS.gml, 'gml:TimeInstant')
      .att(NS.gml, 'gml:id', b.nextGmlId('instant'))
      .ele(NS.gml, 'gml:timePosition')
      .txt(time.start);
    return;
  }
  const period = holder.ele(NS.gml, 'gml:TimePeriod').att(NS.gml, 'gml:id', b.nextGmlId('period'));
  const begin = period.ele(NS.gml, 'gml:beginPosition');
  if (time.start === null) begin.att('indeterminatePosition', 'unknown');
  else begin.txt(formatExtentEnd(time.start, 'start', time.dateOnly));
  const end = period.ele(NS.gml, 'gml:endPosition');
  if (time.end === null) end.att('indeterminatePosition', 'now');
  else end.txt(formatExtentEnd(time.end, 'end', time.dateOnly));
}

function appendExtent(b: IsoBuilder, parent: XmlNode, ns: string, record: CoreRecord): void {
  if (!record.bbox && !record.time && !record.geometry) return;
  const prefix = ns === NS.srv ? 'srv' : 'gmd';
  const extent = parent.ele(ns, `${prefix}:extent`).ele(NS.gmd, 'gmd:EX_Extent');
  if (record.bbox) {
    const [west, south, east, north] = record.bbox;
    const box = extent
      .ele(NS.gmd, 'gmd:geographicElement')
      .ele(NS.gmd, 'gmd:EX_GeographicBoundingBox');
    b.decimal(box, 'westBoundLongitude', west);
    b.decimal(box, 'eastBoundLongitude', east);
    b.decimal(box, 'southBoundLatitude', south);
    b.decimal(box, 'northBoundLatitude', north);
  }
  appendGeometry(b, extent, record.geometry);
  appendTime(b, extent, record.time);
}

function appendIdentification(
  b: IsoBuilder,
  root: XmlNode,
  record: CoreRecord,
  service: boolean,
): void {
  const info = root.ele(NS.gmd, 'gmd:identificationInfo');
  const ident = service
    ? info.ele(NS.srv, 'srv:SV_ServiceIdentification')
    : info.ele(NS.gmd, 'gmd:MD_DataIdentification');
  appendCitation(b, ident, record);
  if (record.description === undefined) b.requiredString(ident, 'abstract', undefined);
  else {
    const localised = localisedTexts(record, (t) => t.description);
    b.freeText(ident, 'abstract', record.description, localised);
  }
  b.string(ident, 'purpose', stringValue(record.extra.purpose));
  b.code(ident, 'status', 'MD_ProgressCode', stringValue(record.extra.status));
  appendContacts(
    b,
    ident,
    'gmd:pointOfContact',
    record.contacts.filter(
      (contact) => contact.scope !== 'metadata' && contact.scope !== 'distribution',
    ),
  );
  for (const link of record.links.filter((item) => item.rel === 'preview')) {
    const graphic = ident.ele(NS.gmd, 'gmd:graphicOverview').ele(NS.gmd, 'gmd:MD_BrowseGraphic');
    b.string(graphic, 'fileName', link.href);
    b.string(graphic, 'fileDescription', link.title);
    b.string(graphic, 'fileType', link.type);
  }
  appendKeywords(b, ident, record);
  appendConstraints(b, ident, record);

  if (service) {
    const serviceType = stringValue(record.extra.serviceType);
    if (serviceType === undefined) b.nil(ident, NS.srv, 'srv:serviceType');
    else
      ident.ele(NS.srv, 'srv:serviceType').ele(NS.gco, 'gco:LocalName').txt(xmlText(serviceType));
    appendExtent(b, ident, NS.srv, record);
    const coupling = stringValue(record.extra.couplingType);
    if (coupling === undefined) b.nil(ident, NS.srv, 'srv:couplingType');
    else b.code(ident, 'couplingType', 'SV_CouplingType', coupling, NS.srv);
    b.nil(ident, NS.srv, 'srv:containsOperations');
    for (const reference of stringList(record.extra.operatesOn)) {
      ident.ele(NS.srv, 'srv:operatesOn', { uuidref: xmlText(reference) });
    }
    return;
  }
  const denominator = record.extra.scaleDenominator;
  if (typeof denominator === 'number') {
    ident
      .ele(NS.gmd, 'gmd:spatialResolution')
      .ele(NS.gmd, 'gmd:MD_Resolution')
      .ele(NS.gmd, 'gmd:equivalentScale')
      .ele(NS.gmd, 'gmd:MD_RepresentativeFraction')
      .ele(NS.gmd, 'gmd:denominator')
      .ele(NS.gco, 'gco:Integer')
      .txt(String(Math.round(denominator)));
  }
  b.requiredString(
    ident,
    'language',
    stringValue(record.extra.resourceLanguage) ?? record.language,
  );
  b.code(ident, 'characterSet', 'MD_CharacterSetCode', 'utf8');
  for (const theme of record.themes.filter((item) => TOPIC_CATEGORY_SCHEMES.has(item.scheme))) {
    for (const concept of theme.concepts) {
      if (!TOPIC_CATEGORIES.has(concept.id)) continue;
      ident
        .ele(NS.gmd, 'gmd:topicCategory')
        .ele(NS.gmd, 'gmd:MD_TopicCategoryCode')
        .txt(concept.id);
    }
  }
  appendExtent(b, ident, NS.gmd, record);
  b.string(ident, 'supplementalInformation', stringValue(record.extra.supplementalInformation));
}

function appendContentInfo(b: IsoBuilder, root: XmlNode, record: CoreRecord): void {
  const { cloudCover, illuminationElevationAngle, illuminationAzimuthAngle, processingLevel } =
    record.eo;
  if (
    [cloudCover, illuminationElevationAngle, illuminationAzimuthAngle, processingLevel].every(
      (v) => v === undefined,
    )
  ) {
    return;
  }
  const description = root.ele(NS.gmd, 'gmd:contentInfo').ele(NS.gmd, 'gmd:MD_ImageDescription');
  b.nil(description, NS.gmd, 'gmd:attributeDescription', 'unknown');
  b.code(description, 'contentType', 'MD_CoverageContentTypeCode', 'image');
  b.real(description, 'illuminationElevationAngle', illuminationElevationAngle);
  b.real(description, 'illuminationAzimuthAngle', illuminationAzimuthAngle);
  b.real(description, 'cloudCoverPercentage', cloudCover);
  if (processingLevel !== undefined) {
    const code = description
      .ele(NS.gmd, 'gmd:processingLevelCode')
      .ele(NS.gmd, 'gmd:MD_Identifier');
    b.string(code, 'code', processingLevel);
  }
}

function appendDistribution(b: IsoBuilder, root: XmlNode, record: CoreRecord): void {
  const distributors = record.contacts.filter((contact) => contact.scope === 'distribution');
  const links = record.links.filter(
    (link) => link.rel !== 'preview' && !NAVIGATION_RELATIONS.has(link.rel ?? ''),
  );
  if (record.formats.length === 0 && distributors.length === 0 && links.length === 0) return;
  const distribution = root.ele(NS.gmd, 'gmd:distributionInfo').ele(NS.gmd, 'gmd:MD_Distribution');
  for (const format of record.formats) {
    const element = distribution.ele(NS.gmd, 'gmd:distributionFormat').ele(NS.gmd, 'gmd:MD_Format');
    b.requiredString(element, 'name', format.name ?? format.mediaType);
    b.requiredString(element, 'version', format.version);
  }
  for (const contact of distributors) {
    const distributor = distribution
      .ele(NS.gmd, 'gmd:distributor')
      .ele(NS.gmd, 'gmd:MD_Distributor');
    appendContacts(b, distributor, 'gmd:distributorContact', [contact]);
  }
  if (links.length > 0) {
    const options = distribution
      .ele(NS.gmd, 'gmd:transferOptions')
      .ele(NS.gmd, 'gmd:MD_DigitalTransferOptions');
    for (const link of links) appendOnlineResource(b, options.ele(NS.gmd, 'gmd:onLine'), link);
  }
}

function appendQuality(b: IsoBuilder, root: XmlNode, record: CoreRecord): void {
  const lineage = stringValue(record.extra.lineage);
  if (lineage === undefined) return;
  const quality = root.ele(NS.gmd, 'gmd:dataQualityInfo').ele(NS.gmd, 'gmd:DQ_DataQuality');
  b.code(
    quality.ele(NS.gmd, 'gmd:scope').ele(NS.gmd, 'gmd:DQ_Scope'),
    'level',
    'MD_ScopeCode',
    scopeCode(record.type),
  );
  const statement = quality.ele(NS.gmd, 'gmd:lineage').ele(NS.gmd, 'gmd:LI_Lineage');
  b.string(statement, 'statement', lineage);
}

/** The PT_Locale id the writer gives a language: its tag in capitals ("FR", "ZH-HANT"). */
function localeId(tag: string): string {
  return tag.toUpperCase();
}

/** The record's other languages, each with the PT_Locale id the writer gives it. */
function otherLanguages(record: CoreRecord): string[] {
  const own = recordLanguageTag(record);
  return recordLanguages(record).filter((tag) => tag !== own);
}

/** The translations of one text of the record, as `[locale id, text]` in locale order. */
function localisedTexts(
  record: CoreRecord,
  pick: (translation: Translation) => string | undefined,
): [string, string][] {
  const texts: [string, string][] = [];
  for (const tag of otherLanguages(record)) {
    const translation = record.translations?.[tag];
    const text = translation === undefined ? undefined : pick(translation);
    if (text !== undefined) texts.push([localeId(tag), text]);
  }
  return texts;
}

/** One gmd:locale per other language of the record, which its PT_FreeText groups point at. */
function appendLocales(b: IsoBuilder, root: XmlNode, record: CoreRecord): void {
  for (const tag of otherLanguages(record)) {
    const locale = root
      .ele(NS.gmd, 'gmd:locale')
      .ele(NS.gmd, 'gmd:PT_Locale')
      .att('id', xmlText(localeId(tag)));
    const code = toIso639_2(tag);
    locale
      .ele(NS.gmd, 'gmd:languageCode')
      .ele(NS.gmd, 'gmd:LanguageCode', {
        codeList: 'http://www.loc.gov/standards/iso639-2/',
        codeListValue: xmlText(code),
      })
      .txt(xmlText(code));
    b.code(locale, 'characterEncoding', 'MD_CharacterSetCode', 'utf8');
  }
}

/** Builds a gmd:MD_Metadata element for the record under `parent` and returns it. */
function synthesise(parent: XmlNode, record: CoreRecord, options: Iso19139Options): XmlNode {
  const b = new IsoBuilder();
  const type = scopeCode(record.type);
  const service = type === 'service';
  const root = parent.ele(NS.gmd, 'gmd:MD_Metadata');
  if (options.declareNamespaces !== false) {
    declareNamespaces(root, {
      gmd: NS.gmd,
      gco: NS.gco,
      gmx: NS.gmx,
      srv: NS.srv,
      gml: NS.gml,
      xlink: NS.xlink,
    });
  }
  if (record.translations !== undefined) declareNamespaces(root, { xsi: NS.xsi });
  b.string(root, 'fileIdentifier', record.id);
  b.string(root, 'language', record.language);
  b.code(root, 'characterSet', 'MD_CharacterSetCode', 'utf8');
  b.string(root, 'parentIdentifier', record.parentId);
  b.code(root, 'hierarchyLevel', 'MD_ScopeCode', type);
  const metadataContacts = record.contacts.filter((contact) => contact.scope === 'metadata');
  if (metadataContacts.length === 0) b.nil(root, NS.gmd, 'gmd:contact');
  else appendContacts(b, root, 'gmd:contact', metadataContacts);
  b.date(root, 'dateStamp', record.updated);
  b.string(
    root,
    'metadataStandardName',
    stringValue(record.extra.metadataStandardName) ?? 'ISO 19115:2003/19139',
  );
  b.string(
    root,
    'metadataStandardVersion',
    stringValue(record.extra.metadataStandardVersion) ?? '1.0',
  );
  b.string(root, 'dataSetURI', stringValue(record.extra.dataSetUri));
  appendLocales(b, root, record);
  for (const code of stringList(record.extra.referenceSystem)) {
    const identifier = root
      .ele(NS.gmd, 'gmd:referenceSystemInfo')
      .ele(NS.gmd, 'gmd:MD_ReferenceSystem')
      .ele(NS.gmd, 'gmd:referenceSystemIdentifier')
      .ele(NS.gmd, 'gmd:RS_Identifier');
    b.string(identifier, 'code', code);
  }
  appendIdentification(b, root, record, service);
  appendContentInfo(b, root, record);
  appendDistribution(b, root, record);
  appendQuality(b, root, record);
  return root;
}

/**
 * An ISO 19115-2 `gmi:MI_Metadata` root as its ISO 19115 `gmd:MD_Metadata` supertype: the same
 * attributes and content under a gmd:MD_Metadata root, without `gmi:acquisitionInformation`
 * (the one property MI_Metadata adds; gmi elements deeper down are members of gmd substitution
 * groups and stay). Any other root is returned as it is.
 */
export function asMdMetadataRoot(root: XmlElement): XmlElement {
  if (root.ns !== NS.gmi || root.local !== 'MI_Metadata') return root;
  const declared = Object.entries(root.namespaces ?? {}).find(([, uri]) => uri === NS.gmd);
  const namespaces =
    declared === undefined ? { ...root.namespaces, gmd: NS.gmd } : (root.namespaces ?? {});
  return {
    ...root,
    ns: NS.gmd,
    local: 'MD_Metadata',
    prefix: declared === undefined ? 'gmd' : declared[0],
    namespaces,
    children: root.children.filter(
      (child) => !(child.ns === NS.gmi && child.local === 'acquisitionInformation'),
    ),
  };
}

/**
 * Appends the record as gmd:MD_Metadata under `parent` (a document or a response element) and
 * returns it: the stored ISO 19139 source (re-parsed safely; an MI_Metadata source as its
 * MD_Metadata supertype with `asMdMetadata`) or a synthesised record.
 */
export function appendIso19139(
  parent: XmlNode,
  record: CoreRecord,
  options: Iso19139Options = {},
): XmlNode {
  if (options.useSource !== false && record.source.format === 'iso19139') {
    if (options.asMdMetadata === true) {
      return appendParsedElement(parent, asMdMetadataRoot(parseXml(record.source.content).root));
    }
    return appendSourceXml(parent, record.source.content);
  }
  return synthesise(parent, record, options);
}

/**
 * Writes the record as an ISO 19139 document: the stored source verbatim when the record came
 * from ISO 19139 (unless `useSource` is false), else a synthesised, schema-valid gmd:MD_Metadata.
 */
export function writeIso19139(record: CoreRecord, options: Iso19139Options = {}): string {
  if (options.useSource !== false && record.source.format === 'iso19139') {
    return record.source.content;
  }
  const document = createDocument();
  synthesise(document, record, options);
  return serialise(document, options);
}
