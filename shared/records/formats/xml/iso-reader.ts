/**
 * Reads an ISO 19115 metadata record, in either XML encoding (ISO 19139 `gmd:MD_Metadata` /
 * `gmi:MI_Metadata`, or ISO 19115-3 `mdb:MD_Metadata`), into a CoreRecord. The two encodings
 * share this reader through a dialect that names their namespaces (iso-dialect.ts).
 *
 * Decisions (see shared/xml/README.md for the full list):
 * - `type` is the first hierarchy level / resource scope; when absent it is "service" for a
 *   service identification and "dataset" otherwise (the ISO 19115 default).
 * - keywords with a thesaurus become themes (scheme = the thesaurus' URI when it is an anchor,
 *   else its title); every keyword is also in `keywords`, except `eo:<name>:<value>` keywords,
 *   which are EO properties encoded as text and go to `eo` (or `extra` when unknown).
 * - topic categories become one theme with the ISO topic category code list as scheme.
 * - the metadata date stamp is `updated` (ISO 19115-3: revision, else creation date).
 * - EO values come from ISO 19115-2 acquisition and image description first, then keywords.
 */
import type { Geometry } from 'geojson';
import { InvalidRecordError } from '../../../errors/index.js';
import {
  buildEmptyRecord,
  type Bbox,
  type Contact,
  type CoreRecord,
  type EoProperties,
  type Format,
  type Link,
  type SourceFormat,
  type Theme,
  type TimeExtent,
} from '../../core-record.js';
import {
  ANY_ELEMENT,
  attr,
  child,
  children,
  find,
  findAll,
  text,
  type XmlElement,
} from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';
import { combinePolygons, parseGmlGeometry, parseGmlTime } from './gml.js';
import { distinctJson } from '../../distinct-json.js';
import type { IsoDialect } from './iso-dialect.js';
import { readIsoTranslations } from './iso-translations.js';
import {
  deriveLicense,
  deriveRights,
  isMediaType,
  toValidBbox,
  mediaTypeForFormatUri,
  mediaTypeForGraphic,
  mediaTypeForProtocol,
  normaliseInstant,
  parseEoKeyword,
  pushUnique,
  relationForOnlineResource,
  TOPIC_CATEGORY_SCHEME,
  unionBboxes,
  unionTimeExtents,
  type ConstraintValues,
  CONSTRAINT_KEYS,
} from './mapping.js';

/**
 * `extra` keys the ISO readers fill (plus `eo:<name>` for unknown EO keywords). The ISO 19139
 * writer writes every one of them back, so they survive a round trip.
 */
export const ISO_EXTRA_KEYS = [
  'alternateTitle',
  'status',
  'purpose',
  'supplementalInformation',
  'resourceLanguage',
  'lineage',
  'referenceSystem',
  'dataSetUri',
  'metadataStandardName',
  'metadataStandardVersion',
  'scaleDenominator',
  'serviceType',
  'couplingType',
  'operatesOn',
  'useLimitation',
  'accessConstraints',
  'useConstraints',
  'otherConstraints',
] as const;

/**
 * The value of an ISO property element: the code list value of its child, else the text of its
 * child (CharacterString, Anchor, Date, Decimal, URL …), else its own text.
 */
export function valueOf(property: XmlElement | undefined): string | undefined {
  if (property === undefined) return undefined;
  const first = property.children[0];
  if (first === undefined) return text(property);
  const code = attr(first, '', 'codeListValue');
  if (code !== undefined && code.trim() !== '') return code.trim();
  return text(first);
}

/** The xlink:href of a property's child (a gmx/gcx Anchor), if any. */
export function hrefOf(property: XmlElement | undefined): string | undefined {
  const value = attr(property?.children[0], NS.xlink, 'href')?.trim();
  return value === '' ? undefined : value;
}

function numberOf(property: XmlElement | undefined): number | undefined {
  const value = valueOf(property);
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** Text of an identifier property: MD_Identifier/RS_Identifier code, or a plain value. */
function identifierText(d: IsoDialect, property: XmlElement | undefined): string | undefined {
  if (property === undefined) return undefined;
  const identifier = property.children.find(
    (item) => item.local === 'MD_Identifier' || item.local === 'RS_Identifier',
  );
  return identifier ? valueOf(child(identifier, d.mcc.code)) : valueOf(property);
}

function identificationElements(root: XmlElement, d: IsoDialect): XmlElement[] {
  return children(root, d.mdb.identificationInfo).flatMap((info) => info.children.slice(0, 1));
}

/** Reads an ISO 19139 or ISO 19115-3 record element into a CoreRecord. */
export function readIsoRecord(root: XmlElement, d: IsoDialect, content: string): CoreRecord {
  const id =
    d.format === 'iso19139'
      ? valueOf(child(root, d.mdb.fileIdentifier))
      : valueOf(find(root, d.mdb.metadataIdentifier, ANY_ELEMENT, d.mcc.code));
  if (id === undefined) {
    const element = d.format === 'iso19139' ? 'gmd:fileIdentifier' : 'mdb:metadataIdentifier';
    throw new InvalidRecordError(
      `ISO metadata record has no identifier (${element} is missing or empty)`,
    );
  }
  const format: SourceFormat = d.format;
  const record = buildEmptyRecord(id, { format, mediaType: 'application/xml', content });
  const idents = identificationElements(root, d);
  const primary = idents[0];
  const isService = primary?.local === 'SV_ServiceIdentification';

  readMetadataLevel(record, root, d, isService);
  if (primary !== undefined) readCitation(record, primary, d);
  record.description = valueOf(child(primary, d.mri.abstract));
  readIdentificationExtras(record, primary, d);
  readKeywords(record, idents, d);
  readConstraints(record, idents, d);
  readExtents(record, idents, d);
  record.contacts = distinctJson([
    ...children(root, d.mdb.contact).flatMap((item) => readParties(item, d, 'metadata')),
    ...idents.flatMap((ident) => [
      ...findAll(ident, d.mri.citation, d.cit.CI_Citation, d.cit.citedResponsibleParty).flatMap(
        (item) => readParties(item, d, 'resource'),
      ),
      ...children(ident, d.mri.pointOfContact).flatMap((item) => readParties(item, d, 'resource')),
    ]),
    ...findAll(
      root,
      d.mdb.distributionInfo,
      d.mrd.MD_Distribution,
      d.mrd.distributor,
      d.mrd.MD_Distributor,
      d.mrd.distributorContact,
    ).flatMap((item) => readParties(item, d, 'distribution')),
  ]);
  readDistribution(record, root, idents, d);
  readEo(record, root, d);
  readIsoTranslations(record, root, {
    title: find(primary, d.mri.citation, d.cit.CI_Citation, d.cit.title),
    abstract: child(primary, d.mri.abstract),
    keywords: idents.flatMap((ident) =>
      findAll(ident, d.mri.descriptiveKeywords, d.mri.MD_Keywords, d.mri.keyword),
    ),
  });
  return record;
}

function readMetadataLevel(
  record: CoreRecord,
  root: XmlElement,
  d: IsoDialect,
  isService: boolean,
): void {
  const extra = record.extra;
  if (d.format === 'iso19139') {
    record.language = valueOf(child(root, d.mdb.language));
    record.parentId = valueOf(child(root, d.mdb.parentIdentifier));
    record.type = valueOf(child(root, d.mdb.hierarchyLevel));
    record.updated = normaliseInstant(valueOf(child(root, d.mdb.dateStamp)));
    setExtra(extra, 'dataSetUri', valueOf(child(root, d.mdb.dataSetURI)));
    setExtra(extra, 'metadataStandardName', valueOf(child(root, d.mdb.metadataStandardName)));
    setExtra(extra, 'metadataStandardVersion', valueOf(child(root, d.mdb.metadataStandardVersion)));
    const lineage = findAll(
      root,
      d.mdb.dataQualityInfo,
      ANY_ELEMENT,
      d.mdb.lineage,
      ANY_ELEMENT,
      d.mdb.statement,
    )
      .map(valueOf)
      .find((value) => value !== undefined);
    setExtra(extra, 'lineage', lineage);
  } else {
    record.language = valueOf(find(root, d.mdb.defaultLocale, ANY_ELEMENT, d.lan.language));
    const parent = child(root, d.mdb.parentMetadata);
    record.parentId =
      attr(parent, '', 'uuidref') ??
      valueOf(find(parent, d.cit.CI_Citation, d.cit.identifier, ANY_ELEMENT, d.mcc.code)) ??
      valueOf(find(parent, d.cit.CI_Citation, d.cit.title));
    record.type = valueOf(find(root, d.mdb.metadataScope, ANY_ELEMENT, d.mdb.resourceScope));
    const dates = readDates(children(root, d.mdb.dateInfo), d);
    record.created = dates.creation;
    record.updated = dates.revision ?? dates.lastUpdate ?? dates.creation;
    const standard = find(root, d.mdb.metadataStandard, d.cit.CI_Citation);
    setExtra(extra, 'metadataStandardName', valueOf(child(standard, d.cit.title)));
    setExtra(extra, 'metadataStandardVersion', valueOf(child(standard, d.cit.edition)));
    const lineage = findAll(root, d.mdb.resourceLineage, ANY_ELEMENT, d.mrl.statement)
      .map(valueOf)
      .find((value) => value !== undefined);
    setExtra(extra, 'lineage', lineage);
    record.links.push(
      ...readOnlineResources(findAll(root, d.mdb.metadataLinkage, d.cit.CI_OnlineResource), d),
    );
  }
  record.type ??= isService ? 'service' : 'dataset';
  const referenceSystems = findAll(
    root,
    d.mdb.referenceSystemInfo,
    ANY_ELEMENT,
    d.mdb.referenceSystemIdentifier,
  )
    .map((item) => identifierText(d, item))
    .filter((code): code is string => code !== undefined);
  if (referenceSystems.length > 0) extra.referenceSystem = referenceSystems;
}

interface CitationDates {
  creation?: string;
  revision?: string;
  publication?: string;
  lastUpdate?: string;
}

/** Reads CI_Date elements (holders of `date` + `dateType`) into normalised dates by type. */
function readDates(holders: XmlElement[], d: IsoDialect): CitationDates {
  const dates: CitationDates = {};
  for (const holder of holders) {
    const ciDate = child(holder, d.cit.CI_Date);
    const value = normaliseInstant(valueOf(child(ciDate, d.cit.date)));
    const type = valueOf(child(ciDate, d.cit.dateType));
    if (value === undefined) continue;
    switch (type) {
      case 'creation':
        dates.creation ??= value;
        break;
      case 'revision':
        dates.revision ??= value;
        break;
      case 'publication':
      case 'issued':
      case 'released':
        dates.publication ??= value;
        break;
      case 'lastRevision':
      case 'lastUpdate':
        dates.lastUpdate ??= value;
        break;
      default:
        break;
    }
  }
  return dates;
}

function readCitation(record: CoreRecord, ident: XmlElement, d: IsoDialect): void {
  const citation = find(ident, d.mri.citation, d.cit.CI_Citation);
  record.title = valueOf(child(citation, d.cit.title));
  setExtra(record.extra, 'alternateTitle', valueOf(child(citation, d.cit.alternateTitle)));
  const dates = readDates(children(citation, d.cit.date), d);
  record.resourceCreated = dates.creation;
  record.resourceUpdated = dates.revision ?? dates.lastUpdate;
  record.resourcePublished = dates.publication;
  for (const identifier of findAll(citation, d.cit.identifier, ANY_ELEMENT)) {
    const value = valueOf(child(identifier, d.mcc.code));
    if (value === undefined) continue;
    const scheme = valueOf(child(identifier, d.mcc.codeSpace));
    record.externalIds.push(scheme === undefined ? { value } : { scheme, value });
  }
}

function readIdentificationExtras(
  record: CoreRecord,
  ident: XmlElement | undefined,
  d: IsoDialect,
): void {
  if (ident === undefined) return;
  const extra = record.extra;
  setExtra(extra, 'status', valueOf(child(ident, d.mri.status)));
  setExtra(extra, 'purpose', valueOf(child(ident, d.mri.purpose)));
  setExtra(extra, 'supplementalInformation', valueOf(child(ident, d.mri.supplementalInformation)));
  const denominator = numberOf(
    find(
      ident,
      d.mri.spatialResolution,
      ANY_ELEMENT,
      d.mri.equivalentScale,
      ANY_ELEMENT,
      d.mri.denominator,
    ),
  );
  if (denominator !== undefined) extra.scaleDenominator = denominator;
  const resourceLanguage =
    d.format === 'iso19139'
      ? valueOf(child(ident, d.mri.language))
      : valueOf(find(ident, d.mri.defaultLocale, ANY_ELEMENT, d.lan.language));
  if (record.language === undefined) record.language = resourceLanguage;
  if (resourceLanguage !== undefined && resourceLanguage !== record.language) {
    extra.resourceLanguage = resourceLanguage;
  }
  if (ident.local === 'SV_ServiceIdentification') {
    setExtra(extra, 'serviceType', valueOf(child(ident, d.srv.serviceType)));
    setExtra(extra, 'couplingType', valueOf(child(ident, d.srv.couplingType)));
    const operatesOn = children(ident, d.srv.operatesOn)
      .map((item) => attr(item, '', 'uuidref') ?? attr(item, NS.xlink, 'href'))
      .filter((value): value is string => value !== undefined && value.trim() !== '');
    if (operatesOn.length > 0) extra.operatesOn = operatesOn;
  }
}

function readKeywords(record: CoreRecord, idents: XmlElement[], d: IsoDialect): void {
  const themes = new Map<string, Theme>();
  const topics: Theme = { scheme: TOPIC_CATEGORY_SCHEME, concepts: [] };
  for (const ident of idents) {
    for (const group of findAll(ident, d.mri.descriptiveKeywords, d.mri.MD_Keywords)) {
      const thesaurusTitle = find(group, d.mri.thesaurusName, d.cit.CI_Citation, d.cit.title);
      const scheme = hrefOf(thesaurusTitle) ?? valueOf(thesaurusTitle);
      for (const keyword of children(group, d.mri.keyword)) {
        const word = valueOf(keyword);
        if (word === undefined) continue;
        if (applyEoKeyword(record, word)) continue;
        pushUnique(record.keywords, word);
        if (scheme === undefined) continue;
        let theme = themes.get(scheme);
        if (theme === undefined) {
          theme = { scheme, concepts: [] };
          themes.set(scheme, theme);
        }
        if (!theme.concepts.some((concept) => concept.id === word)) {
          const url = hrefOf(keyword);
          theme.concepts.push(url === undefined ? { id: word } : { id: word, url });
        }
      }
    }
    for (const category of children(ident, d.mri.topicCategory)) {
      const code = valueOf(category);
      if (code !== undefined && !topics.concepts.some((concept) => concept.id === code)) {
        topics.concepts.push({ id: code });
      }
    }
  }
  record.themes = [...themes.values()];
  if (topics.concepts.length > 0) record.themes.push(topics);
}

/** Applies an `eo:<name>:<value>` keyword; returns false for an ordinary keyword. */
function applyEoKeyword(record: CoreRecord, word: string): boolean {
  const parsed = parseEoKeyword(word);
  if (parsed === undefined) return false;
  if (parsed.kind === 'other') {
    record.extra[`eo:${parsed.name}`] ??= parsed.value;
  } else if (record.eo[parsed.name] === undefined) {
    (record.eo as Record<string, string | number>)[parsed.name] = parsed.value;
  }
  return true;
}

function readConstraints(record: CoreRecord, idents: XmlElement[], d: IsoDialect): void {
  const values: ConstraintValues = {
    useLimitation: [],
    accessConstraints: [],
    useConstraints: [],
    otherConstraints: [],
  };
  for (const ident of idents) {
    for (const constraints of findAll(ident, d.mri.resourceConstraints, ANY_ELEMENT)) {
      for (const key of Object.keys(values) as (keyof ConstraintValues)[]) {
        for (const item of children(constraints, d.mco[key]))
          pushUnique(values[key], valueOf(item));
      }
    }
  }
  for (const key of CONSTRAINT_KEYS) if (values[key].length > 0) record.extra[key] = values[key];
  record.license = deriveLicense(values);
  record.rights = deriveRights(values);
}

function readExtents(record: CoreRecord, idents: XmlElement[], d: IsoDialect): void {
  const boxes: Bbox[] = [];
  const geometries: Geometry[] = [];
  const times: TimeExtent[] = [];
  const extents = idents.flatMap((ident) =>
    [...children(ident, d.mri.extent), ...children(ident, d.srv.extent)].flatMap((item) =>
      children(item, d.gex.EX_Extent),
    ),
  );
  for (const extent of extents) {
    for (const element of findAll(extent, d.gex.geographicElement, ANY_ELEMENT)) {
      const exclusion = valueOf(child(element, d.gex.extentTypeCode));
      if (exclusion === '0' || exclusion === 'false') continue;
      if (element.local === 'EX_GeographicBoundingBox') {
        const box = toValidBbox([
          numberOf(child(element, d.gex.westBoundLongitude)) ?? NaN,
          numberOf(child(element, d.gex.southBoundLatitude)) ?? NaN,
          numberOf(child(element, d.gex.eastBoundLongitude)) ?? NaN,
          numberOf(child(element, d.gex.northBoundLatitude)) ?? NaN,
        ]);
        if (box && !boxes.some((known) => known.every((n, i) => n === box[i]))) boxes.push(box);
      } else if (element.local === 'EX_BoundingPolygon') {
        for (const polygon of children(element, d.gex.polygon)) {
          for (const shape of polygon.children) {
            const geometry = parseGmlGeometry(shape);
            if (geometry) geometries.push(geometry);
          }
        }
      }
    }
    for (const temporal of findAll(extent, d.gex.temporalElement, ANY_ELEMENT, d.gex.extent)) {
      for (const primitive of temporal.children) {
        const time = parseGmlTime(primitive);
        if (time) times.push(time);
      }
    }
  }
  record.geometry = geometries.length > 0 ? combinePolygons(geometries) : undefined;
  record.bbox =
    unionBboxes(boxes) ?? (record.geometry ? bboxOfGeometry(record.geometry) : undefined);
  record.time = unionTimeExtents(times);
}

function bboxOfGeometry(geometry: Geometry): Bbox | undefined {
  const lons: number[] = [];
  const lats: number[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node) && typeof node[0] === 'number') {
      lons.push(node[0]);
      lats.push(node[1] as number);
    } else if (Array.isArray(node)) node.forEach(visit);
  };
  if (geometry.type !== 'GeometryCollection') visit(geometry.coordinates);
  if (lons.length === 0) return undefined;
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

/** Contacts of a party property (gmd:contact, pointOfContact, distributorContact …). */
function readParties(property: XmlElement, d: IsoDialect, scope: Contact['scope']): Contact[] {
  const contacts: Contact[] = [];
  for (const party of property.children) {
    if (party.local === 'CI_ResponsibleParty') {
      const contact: Contact = {};
      setField(contact, 'name', valueOf(child(party, d.cit.individualName)));
      setField(contact, 'organization', valueOf(child(party, d.cit.organisationName)));
      setField(contact, 'position', valueOf(child(party, d.cit.positionName)));
      fillContactInfo(contact, find(party, d.cit.contactInfo, d.cit.CI_Contact), d);
      finishContact(contacts, contact, valueOf(child(party, d.cit.role)), scope);
    } else if (party.local === 'CI_Responsibility') {
      const role = valueOf(child(party, d.cit.role));
      for (const holder of children(party, d.cit.party)) {
        for (const entity of holder.children) {
          const contact: Contact = {};
          if (entity.local === 'CI_Organisation') {
            setField(contact, 'organization', valueOf(child(entity, d.cit.name)));
            const individual = find(entity, d.cit.individual, d.cit.CI_Individual);
            setField(contact, 'name', valueOf(child(individual, d.cit.name)));
            setField(contact, 'position', valueOf(child(individual, d.cit.positionName)));
            const info =
              find(individual, d.cit.contactInfo, d.cit.CI_Contact) ??
              find(entity, d.cit.contactInfo, d.cit.CI_Contact);
            fillContactInfo(contact, info, d);
          } else if (entity.local === 'CI_Individual') {
            setField(contact, 'name', valueOf(child(entity, d.cit.name)));
            setField(contact, 'position', valueOf(child(entity, d.cit.positionName)));
            fillContactInfo(contact, find(entity, d.cit.contactInfo, d.cit.CI_Contact), d);
          }
          finishContact(contacts, contact, role, scope);
        }
      }
    }
  }
  return contacts;
}

function finishContact(
  contacts: Contact[],
  contact: Contact,
  role: string | undefined,
  scope: Contact['scope'],
): void {
  if (!contact.name && !contact.organization && !contact.position && !contact.emails) return;
  if (role !== undefined) contact.roles = [role];
  contact.scope = scope;
  contacts.push(contact);
}

function fillContactInfo(contact: Contact, info: XmlElement | undefined, d: IsoDialect): void {
  if (info === undefined) return;
  const phones: string[] = [];
  for (const telephone of findAll(info, d.cit.phone, d.cit.CI_Telephone)) {
    for (const voice of children(telephone, d.cit.voice)) pushUnique(phones, valueOf(voice));
    for (const number of children(telephone, d.cit.number)) {
      const type = valueOf(child(telephone, d.cit.numberType));
      if (type !== 'facsimile') pushUnique(phones, valueOf(number));
    }
  }
  if (phones.length > 0) contact.phones = phones.map((value) => ({ value }));
  const emails: string[] = [];
  const addresses: NonNullable<Contact['addresses']> = [];
  for (const address of findAll(info, d.cit.address, d.cit.CI_Address)) {
    for (const mail of children(address, d.cit.electronicMailAddress))
      pushUnique(emails, valueOf(mail));
    const entry: NonNullable<Contact['addresses']>[number] = {};
    const deliveryPoint = children(address, d.cit.deliveryPoint)
      .map(valueOf)
      .filter((value): value is string => value !== undefined);
    if (deliveryPoint.length > 0) entry.deliveryPoint = deliveryPoint;
    setField(entry, 'city', valueOf(child(address, d.cit.city)));
    setField(entry, 'administrativeArea', valueOf(child(address, d.cit.administrativeArea)));
    setField(entry, 'postalCode', valueOf(child(address, d.cit.postalCode)));
    setField(entry, 'country', valueOf(child(address, d.cit.country)));
    if (Object.keys(entry).length > 0) addresses.push(entry);
  }
  if (emails.length > 0) contact.emails = emails.map((value) => ({ value }));
  if (addresses.length > 0) contact.addresses = addresses;
  const links = readOnlineResources(
    findAll(info, d.cit.onlineResource, d.cit.CI_OnlineResource),
    d,
  );
  if (links.length > 0) contact.links = links;
}

/** The links of CI_OnlineResource elements, leaving out those without a linkage. */
function readOnlineResources(resources: XmlElement[], d: IsoDialect): Link[] {
  return resources.flatMap((resource) => readOnlineResource(resource, d) ?? []);
}

/** Converts a CI_OnlineResource to a link (relation from its function, type from its protocol). */
function readOnlineResource(resource: XmlElement, d: IsoDialect): Link | undefined {
  const href = valueOf(child(resource, d.cit.linkage));
  if (href === undefined) return undefined;
  const protocol = valueOf(child(resource, d.cit.protocol));
  const profile = valueOf(child(resource, d.cit.applicationProfile));
  const func = valueOf(child(resource, d.cit.function));
  const link: Link = { href, rel: relationForOnlineResource(func, protocol) };
  setField(
    link,
    'type',
    mediaTypeForProtocol(protocol) ?? (isMediaType(profile) ? profile : undefined),
  );
  setField(link, 'title', valueOf(child(resource, d.cit.name)));
  setField(link, 'description', valueOf(child(resource, d.cit.description)));
  setField(link, 'protocol', protocol);
  return link;
}

function readDistribution(
  record: CoreRecord,
  root: XmlElement,
  idents: XmlElement[],
  d: IsoDialect,
): void {
  for (const ident of idents) {
    for (const graphic of findAll(ident, d.mri.graphicOverview, d.mcc.MD_BrowseGraphic)) {
      const href = valueOf(child(graphic, d.mcc.fileName));
      if (href === undefined) continue;
      const link: Link = { href, rel: 'preview' };
      setField(link, 'type', mediaTypeForGraphic(valueOf(child(graphic, d.mcc.fileType)), href));
      setField(link, 'title', valueOf(child(graphic, d.mcc.fileDescription)));
      record.links.push(link);
    }
    const endpoints = findAll(
      ident,
      d.srv.containsOperations,
      d.srv.SV_OperationMetadata,
      d.srv.connectPoint,
      d.cit.CI_OnlineResource,
    );
    record.links.push(...readOnlineResources(endpoints, d));
  }
  const formats: Format[] = [];
  for (const distribution of findAll(root, d.mdb.distributionInfo, d.mrd.MD_Distribution)) {
    const formatElements = [
      ...findAll(distribution, d.mrd.distributionFormat, d.mrd.MD_Format),
      ...findAll(
        distribution,
        d.mrd.distributor,
        d.mrd.MD_Distributor,
        d.mrd.distributorFormat,
        d.mrd.MD_Format,
      ),
    ];
    for (const element of formatElements) {
      const format = readFormat(element, d);
      if (
        format &&
        !formats.some((known) => known.name === format.name && known.version === format.version)
      ) {
        formats.push(format);
      }
    }
    const onLines = [
      ...findAll(
        distribution,
        d.mrd.distributor,
        d.mrd.MD_Distributor,
        d.mrd.distributorTransferOptions,
        d.mrd.MD_DigitalTransferOptions,
        d.mrd.onLine,
        d.cit.CI_OnlineResource,
      ),
      ...findAll(
        distribution,
        d.mrd.transferOptions,
        d.mrd.MD_DigitalTransferOptions,
        d.mrd.onLine,
        d.cit.CI_OnlineResource,
      ),
    ];
    record.links.push(...readOnlineResources(onLines, d));
  }
  record.formats = formats;
}

function readFormat(element: XmlElement, d: IsoDialect): Format | undefined {
  const format: Format = {};
  if (d.format === 'iso19139') {
    setField(format, 'name', valueOf(child(element, d.mrd.name)));
    setField(format, 'version', valueOf(child(element, d.mrd.version)));
    if (format.name !== undefined && isMediaType(format.name)) format.mediaType = format.name;
  } else {
    const citation = find(element, d.mrd.formatSpecificationCitation, d.cit.CI_Citation);
    const title = child(citation, d.cit.title);
    setField(format, 'name', valueOf(title));
    setField(format, 'version', valueOf(child(citation, d.cit.edition)));
    setField(
      format,
      'mediaType',
      mediaTypeForFormatUri(hrefOf(title)) ?? (isMediaType(format.name) ? format.name : undefined),
    );
  }
  return format.name === undefined ? undefined : format;
}

function readEo(record: CoreRecord, root: XmlElement, d: IsoDialect): void {
  const found: EoProperties = {};
  const acquisition =
    d.format === 'iso19139' ? d.mac.acquisitionInformation : d.mdb.acquisitionInformation;
  for (const info of findAll(root, acquisition, d.mac.MI_AcquisitionInformation)) {
    const platforms = findAll(info, d.mac.platform, d.mac.MI_Platform);
    for (const platform of platforms) {
      found.platform ??=
        identifierText(d, child(platform, d.mac.identifier)) ??
        valueOf(child(platform, d.mac.description));
    }
    const instruments = [
      ...platforms.flatMap((platform) => findAll(platform, d.mac.instrument, d.mac.MI_Instrument)),
      ...findAll(info, d.mac.instrument, d.mac.MI_Instrument),
    ];
    for (const instrument of instruments) {
      found.instrument ??= identifierText(d, child(instrument, d.mac.identifier));
      found.sensorType ??= valueOf(child(instrument, d.mac.type));
    }
  }
  for (const content of children(root, d.mdb.contentInfo)) {
    for (const description of content.children) {
      if (
        description.local !== 'MD_ImageDescription' &&
        description.local !== 'MI_ImageDescription'
      )
        continue;
      found.cloudCover ??= numberOf(child(description, d.mrc.cloudCoverPercentage));
      found.illuminationElevationAngle ??= numberOf(
        child(description, d.mrc.illuminationElevationAngle),
      );
      found.illuminationAzimuthAngle ??= numberOf(
        child(description, d.mrc.illuminationAzimuthAngle),
      );
      found.processingLevel ??= identifierText(d, child(description, d.mrc.processingLevelCode));
    }
  }
  // Structured values win over the keyword-encoded ones already in record.eo.
  const eo = record.eo as Record<string, string | number | undefined>;
  for (const [key, value] of Object.entries(found as Record<string, string | number | undefined>))
    if (value !== undefined) eo[key] = value;
  for (const key of Object.keys(eo)) if (eo[key] === undefined) delete eo[key];
}

function setExtra(extra: Record<string, unknown>, key: string, value: string | undefined): void {
  if (value !== undefined) extra[key] = value;
}

function setField<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}
