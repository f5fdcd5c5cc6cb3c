/**
 * OGC API – Records GeoJSON records, and generic GeoJSON Features with arbitrary
 * properties, read into CoreRecord.
 */
import { InvalidRecordError } from '../../../errors/index.js';
import {
  buildEmptyRecord,
  type Contact,
  type CoreRecord,
  type ExternalId,
  type Format,
  type SourceFormat,
  type Theme,
  type TimeExtent,
} from '../../core-record.js';
import {
  asArray,
  asBbox,
  asLink,
  asNumber,
  asObject,
  asString,
  asStrings,
  buildTimeExtent,
  computeBbox,
  copyStringMembers,
  readRecordGeometry,
  type JsonObject,
} from './json-values.js';
import { parseTimeValue } from '../../time.js';
import { readJsonLanguages } from '../../languages.js';

/** Properties mapped onto CoreRecord fields; everything else is kept in `extra`. */
const CORE_PROPERTIES = new Set([
  'type',
  'title',
  'description',
  'keywords',
  'themes',
  'formats',
  'contacts',
  'externalIds',
  'language',
  'license',
  'rights',
  'created',
  'updated',
  'datetime',
  'start_datetime',
  'end_datetime',
  'parentId',
  'collection',
  'platform',
  'instrument',
  'sensorType',
  'cloudCover',
  'snowCover',
  'orbitNumber',
  'orbitDirection',
  'processingLevel',
  'productType',
]);

function readThemes(value: unknown): Theme[] {
  return asArray(value).flatMap((item) => {
    const object = asObject(item);
    const scheme = asString(object?.scheme);
    const concepts = asArray(object?.concepts).flatMap((concept) => {
      const id = asString(asObject(concept)?.id);
      if (!id) return [];
      const title = asString(asObject(concept)?.title);
      return [title ? { id, title } : { id }];
    });
    return scheme && concepts.length > 0 ? [{ scheme, concepts }] : [];
  });
}

function readContacts(value: unknown): Contact[] {
  return asArray(value).flatMap((item) => {
    const object = asObject(item);
    if (!object) return [];
    const contact = copyStringMembers<Contact>({}, object, ['name', 'organization', 'position']);
    const roles = asStrings(object.roles);
    if (roles.length > 0) contact.roles = roles;
    const emails = asArray(object.emails).flatMap((e) => {
      const v = asString(asObject(e)?.value);
      return v ? [{ value: v }] : [];
    });
    if (emails.length > 0) contact.emails = emails;
    const links = asArray(object.links).flatMap((l) => asLink(l) ?? []);
    if (links.length > 0) contact.links = links;
    return contact.name || contact.organization ? [contact] : [];
  });
}

function readFormats(value: unknown): Format[] {
  return asArray(value).flatMap((item) => {
    if (typeof item === 'string') return [{ name: item }];
    const object = asObject(item);
    const name = asString(object?.name);
    const mediaType = asString(object?.mediaType);
    if (!name && !mediaType) return [];
    return [{ ...(name && { name }), ...(mediaType && { mediaType }) }];
  });
}

function readExternalIds(value: unknown): ExternalId[] {
  return asArray(value).flatMap((item) => {
    const object = asObject(item);
    const id = asString(object?.value);
    if (!id) return [];
    const scheme = asString(object?.scheme);
    return [scheme ? { scheme, value: id } : { value: id }];
  });
}

/** Reads the OGC record `time` object ({date} | {timestamp} | {interval}) or STAC-like datetimes. */
function readTime(time: unknown, properties: JsonObject): TimeExtent | undefined {
  const object = asObject(time);
  if (object) {
    const interval = asArray(object.interval);
    if (interval.length === 2) return buildTimeExtent(interval[0], interval[1]);
    const instant = asString(object.timestamp) ?? asString(object.date);
    if (instant) return buildTimeExtent(instant, instant);
  }
  if (typeof time === 'string') return buildTimeExtent(time, time);
  const start = properties.start_datetime;
  const end = properties.end_datetime;
  if (start !== undefined || end !== undefined) return buildTimeExtent(start, end);
  const datetime = asString(properties.datetime);
  return datetime ? buildTimeExtent(datetime, datetime) : undefined;
}

function normaliseDate(value: unknown): string | undefined {
  const text = asString(value);
  return text ? parseTimeValue(text)?.start : undefined;
}

/** Reads one GeoJSON Feature (an OGC API record or any GeoJSON feature) into a CoreRecord. */
export function parseOgcRecord(feature: JsonObject, content: string): CoreRecord {
  const properties = asObject(feature.properties) ?? {};
  const id = asString(feature.id) ?? asString(properties.id) ?? asString(properties.identifier);
  if (!id) throw new InvalidRecordError('GeoJSON record has no "id"');
  const format: SourceFormat =
    feature.time !== undefined || Array.isArray(feature.conformsTo) ? 'ogc-record' : 'geojson';
  const record = buildEmptyRecord(id, { format, mediaType: 'application/geo+json', content });

  record.type = asString(properties.type);
  record.title = asString(properties.title) ?? asString(properties.name);
  record.description = asString(properties.description);
  record.keywords = asStrings(properties.keywords);
  record.themes = readThemes(properties.themes);
  record.formats = readFormats(properties.formats);
  record.contacts = readContacts(properties.contacts);
  record.externalIds = readExternalIds(properties.externalIds);
  record.language = asString(asObject(properties.language)?.code) ?? asString(properties.language);
  readJsonLanguages(record, properties.language, properties.languages);
  record.license = asString(properties.license);
  record.rights = asString(properties.rights);
  record.created = normaliseDate(properties.created);
  record.updated = normaliseDate(properties.updated);
  record.time = readTime(feature.time, properties);
  record.parentId = asString(properties.parentId) ?? asString(properties.collection);
  record.links = asArray(feature.links).flatMap((link) => asLink(link) ?? []);

  const geometry = readRecordGeometry(
    feature.geometry,
    `Record "${id}" has an invalid GeoJSON geometry`,
  );
  record.geometry = geometry;
  record.bbox = asBbox(feature.bbox) ?? (geometry ? computeBbox(geometry) : undefined);

  record.eo = {
    platform: asString(properties.platform),
    instrument: asString(properties.instrument),
    sensorType: asString(properties.sensorType),
    cloudCover: asNumber(properties.cloudCover),
    snowCover: asNumber(properties.snowCover),
    orbitNumber: asNumber(properties.orbitNumber),
    orbitDirection: asString(properties.orbitDirection),
    processingLevel: asString(properties.processingLevel),
    productType: asString(properties.productType),
  };
  for (const [key, value] of Object.entries(properties)) {
    if (!CORE_PROPERTIES.has(key) && value !== null && value !== undefined)
      record.extra[key] = value;
  }
  return record;
}
