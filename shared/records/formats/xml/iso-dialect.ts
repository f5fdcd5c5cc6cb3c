/**
 * ISO 19139 and ISO 19115-3 share the ISO 19115 model and most of its structure; they differ
 * in namespaces (one `gmd` namespace versus one namespace per package) and in a few shapes
 * (contacts, identifiers, dates of the metadata). A dialect holds, per package, the qualified
 * names the shared reader in iso-reader.ts uses, so it addresses elements the same way in both.
 * The names are built once here (looking a name up per call was a measurable part of parsing).
 */
import { namespace, type XmlName } from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';

type NameFactory = (local: string) => XmlName;

/** A table of qualified names of one package, by local name. */
export type Names<T extends readonly string[]> = Readonly<Record<T[number], XmlName>>;

function names<T extends readonly string[]>(factory: NameFactory, locals: T): Names<T> {
  const table: Record<string, XmlName> = {};
  for (const local of locals) table[local] = factory(local);
  return table as Names<T>;
}

const MDB_NAMES = [
  'acquisitionInformation',
  'contact',
  'contentInfo',
  'dataQualityInfo',
  'dataSetURI',
  'dateInfo',
  'dateStamp',
  'defaultLocale',
  'distributionInfo',
  'fileIdentifier',
  'hierarchyLevel',
  'identificationInfo',
  'language',
  'lineage',
  'metadataIdentifier',
  'metadataLinkage',
  'metadataScope',
  'metadataStandard',
  'metadataStandardName',
  'metadataStandardVersion',
  'parentIdentifier',
  'parentMetadata',
  'referenceSystemIdentifier',
  'referenceSystemInfo',
  'resourceLineage',
  'resourceScope',
  'statement',
] as const;
const CIT_NAMES = [
  'CI_Address',
  'CI_Citation',
  'CI_Contact',
  'CI_Date',
  'CI_Individual',
  'CI_OnlineResource',
  'CI_Telephone',
  'address',
  'administrativeArea',
  'alternateTitle',
  'applicationProfile',
  'citedResponsibleParty',
  'city',
  'contactInfo',
  'country',
  'date',
  'dateType',
  'deliveryPoint',
  'description',
  'edition',
  'electronicMailAddress',
  'function',
  'identifier',
  'individual',
  'individualName',
  'linkage',
  'name',
  'number',
  'numberType',
  'onlineResource',
  'organisationName',
  'party',
  'phone',
  'positionName',
  'postalCode',
  'protocol',
  'role',
  'title',
  'voice',
] as const;
const MRI_NAMES = [
  'MD_Keywords',
  'abstract',
  'citation',
  'defaultLocale',
  'denominator',
  'descriptiveKeywords',
  'equivalentScale',
  'extent',
  'graphicOverview',
  'keyword',
  'language',
  'pointOfContact',
  'purpose',
  'resourceConstraints',
  'spatialResolution',
  'status',
  'supplementalInformation',
  'thesaurusName',
  'topicCategory',
] as const;
const MCC_NAMES = [
  'MD_BrowseGraphic',
  'code',
  'codeSpace',
  'fileDescription',
  'fileName',
  'fileType',
] as const;
const GEX_NAMES = [
  'EX_Extent',
  'eastBoundLongitude',
  'extent',
  'extentTypeCode',
  'geographicElement',
  'northBoundLatitude',
  'polygon',
  'southBoundLatitude',
  'temporalElement',
  'westBoundLongitude',
] as const;
const MRD_NAMES = [
  'MD_DigitalTransferOptions',
  'MD_Distribution',
  'MD_Distributor',
  'MD_Format',
  'distributionFormat',
  'distributor',
  'distributorContact',
  'distributorFormat',
  'distributorTransferOptions',
  'formatSpecificationCitation',
  'name',
  'onLine',
  'transferOptions',
  'version',
] as const;
const MCO_NAMES = [
  'accessConstraints',
  'otherConstraints',
  'useConstraints',
  'useLimitation',
] as const;
const MRC_NAMES = [
  'cloudCoverPercentage',
  'illuminationAzimuthAngle',
  'illuminationElevationAngle',
  'processingLevelCode',
] as const;
const MAC_NAMES = [
  'MI_AcquisitionInformation',
  'MI_Instrument',
  'MI_Platform',
  'acquisitionInformation',
  'description',
  'identifier',
  'instrument',
  'platform',
  'type',
] as const;
const SRV_NAMES = [
  'SV_OperationMetadata',
  'connectPoint',
  'containsOperations',
  'couplingType',
  'extent',
  'operatesOn',
  'serviceType',
] as const;
const MRL_NAMES = ['statement'] as const;
const LAN_NAMES = ['language'] as const;

/** Qualified names of the ISO 19115 packages in one XML encoding. */
export interface IsoDialect {
  format: 'iso19139' | 'iso19115-3';
  /** Metadata root level (gmd / mdb). */
  mdb: Names<typeof MDB_NAMES>;
  /** Citations and responsible parties (gmd / cit). */
  cit: Names<typeof CIT_NAMES>;
  /** Resource identification (gmd / mri). */
  mri: Names<typeof MRI_NAMES>;
  /** Common classes: identifiers, scope, browse graphics (gmd / mcc). */
  mcc: Names<typeof MCC_NAMES>;
  /** Extents (gmd / gex). */
  gex: Names<typeof GEX_NAMES>;
  /** Distribution (gmd / mrd). */
  mrd: Names<typeof MRD_NAMES>;
  /** Constraints (gmd / mco). */
  mco: Names<typeof MCO_NAMES>;
  /** Content information (gmd+gmi / mrc). */
  mrc: Names<typeof MRC_NAMES>;
  /** Acquisition information (gmi / mac). */
  mac: Names<typeof MAC_NAMES>;
  /** Service identification (srv). */
  srv: Names<typeof SRV_NAMES>;
  /** Lineage (gmd / mrl). */
  mrl: Names<typeof MRL_NAMES>;
  /** Locales (gmd / lan). */
  lan: Names<typeof LAN_NAMES>;
}

const gmd = namespace(NS.gmd);

/** ISO 19139 (gmd), including ISO 19115-2 (gmi) and service metadata (srv). */
export const ISO19139: IsoDialect = {
  format: 'iso19139',
  mdb: names(gmd, MDB_NAMES),
  cit: names(gmd, CIT_NAMES),
  mri: names(gmd, MRI_NAMES),
  mcc: names(gmd, MCC_NAMES),
  gex: names(gmd, GEX_NAMES),
  mrd: names(gmd, MRD_NAMES),
  mco: names(gmd, MCO_NAMES),
  mrc: names(namespace(NS.gmd, NS.gmi), MRC_NAMES),
  mac: names(namespace(NS.gmi, NS.gmd), MAC_NAMES),
  srv: names(namespace(NS.srv), SRV_NAMES),
  mrl: names(gmd, MRL_NAMES),
  lan: names(gmd, LAN_NAMES),
};

/** ISO 19115-3 (mdb and its packages, in the versions published by ISO). */
export const ISO19115_3: IsoDialect = {
  format: 'iso19115-3',
  mdb: names(namespace(NS.mdb, NS.mdb1), MDB_NAMES),
  cit: names(namespace(NS.cit, NS.cit1), CIT_NAMES),
  mri: names(namespace(NS.mri), MRI_NAMES),
  mcc: names(namespace(NS.mcc), MCC_NAMES),
  gex: names(namespace(NS.gex), GEX_NAMES),
  mrd: names(namespace(NS.mrd), MRD_NAMES),
  mco: names(namespace(NS.mco), MCO_NAMES),
  mrc: names(namespace(NS.mrc, NS.mrc1), MRC_NAMES),
  mac: names(namespace(NS.mac, NS.mac1), MAC_NAMES),
  srv: names(namespace(NS.srv3, NS.srv3v20), SRV_NAMES),
  mrl: names(namespace(NS.mrl, NS.mrl1), MRL_NAMES),
  lan: names(namespace(NS.lan), LAN_NAMES),
};
