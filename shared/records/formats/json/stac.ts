/**
 * STAC 1.0 Items and Collections read into CoreRecord. Assets become links with
 * rel `enclosure` (their roles kept); STAC's eo/sat/view/processing fields fill the EO
 * properties; every other property stays queryable in `extra`.
 */
import { InvalidRecordError } from '../../../errors/index.js';
import { buildEmptyRecord, type Contact, type CoreRecord, type Link } from '../../core-record.js';
import {
  asArray,
  asBbox,
  asLink,
  asNumber,
  asObject,
  asString,
  asStrings,
  bboxToGeometry,
  buildTimeExtent,
  computeBbox,
  readRecordGeometry,
  type JsonObject,
} from './json-values.js';
import { parseTimeValue } from '../../time.js';
import { readJsonLanguages } from '../../languages.js';
import { TIME_FALLBACK_PROPERTY } from '../../writers/stac-item.js';

/** STAC item properties mapped onto CoreRecord fields (not copied into `extra`). */
const MAPPED_PROPERTIES = new Set([
  'title',
  'description',
  'keywords',
  'license',
  'created',
  'updated',
  'datetime',
  'start_datetime',
  'end_datetime',
  'platform',
  'instruments',
  'providers',
  'eo:cloud_cover',
  'eo:snow_cover',
  'sat:orbit_state',
  'sat:absolute_orbit',
  'processing:level',
  'view:sun_azimuth',
  'view:sun_elevation',
]);

function readProviders(value: unknown): Contact[] {
  return asArray(value).flatMap((item) => {
    const provider = asObject(item);
    const organization = asString(provider?.name);
    if (!provider || !organization) return [];
    const contact: Contact = { organization };
    const roles = asStrings(provider.roles);
    if (roles.length > 0) contact.roles = roles;
    const url = asString(provider.url);
    if (url) contact.links = [{ href: url, rel: 'about' }];
    return [contact];
  });
}

function readAssets(value: unknown): Link[] {
  const assets = asObject(value) ?? {};
  return Object.entries(assets).flatMap(([key, asset]) => {
    const link = asLink(asset);
    if (!link) return [];
    return [{ ...link, rel: 'enclosure', title: link.title ?? key }];
  });
}

function normaliseDate(value: unknown): string | undefined {
  const text = asString(value);
  return text ? parseTimeValue(text)?.start : undefined;
}

function readProductType(properties: JsonObject): string | undefined {
  const direct = asString(properties['product:type']) ?? asString(properties['s2:product_type']);
  if (direct) return direct;
  const key = Object.keys(properties).find((name) => name.endsWith(':product_type'));
  return key ? asString(properties[key]) : undefined;
}

function fillCommon(record: CoreRecord, object: JsonObject, properties: JsonObject): void {
  record.title = asString(properties.title);
  record.description = asString(properties.description);
  record.keywords = asStrings(properties.keywords);
  readJsonLanguages(record, properties.language, properties.languages);
  record.license = asString(properties.license);
  record.created = normaliseDate(properties.created);
  record.updated = normaliseDate(properties.updated);
  record.contacts = readProviders(properties.providers);
  const links = asArray(object.links).flatMap((link) => asLink(link) ?? []);
  record.links = [...links, ...readAssets(object.assets)];
}

/** Reads a STAC Item into a CoreRecord. */
export function parseStacItem(item: JsonObject, content: string): CoreRecord {
  const id = asString(item.id);
  if (!id) throw new InvalidRecordError('STAC Item has no "id"');
  const properties = asObject(item.properties);
  if (!properties) throw new InvalidRecordError(`STAC Item "${id}" has no "properties" object`);
  const record = buildEmptyRecord(id, {
    format: 'stac-item',
    mediaType: 'application/geo+json',
    content,
  });
  fillCommon(record, item, properties);
  record.type = 'dataset';
  record.parentId = asString(item.collection);

  const hasRange = properties.start_datetime != null || properties.end_datetime != null;
  // An item a catalogue wrote for a record without any date spans 0001–9999 only because STAC
  // needs a time (see writers/stac-item.ts): its record has no temporal extent.
  const timeUnknown = properties[TIME_FALLBACK_PROPERTY] === 'unknown';
  record.time = timeUnknown
    ? undefined
    : hasRange
      ? buildTimeExtent(properties.start_datetime, properties.end_datetime)
      : buildTimeExtent(properties.datetime, properties.datetime);
  if (!record.time && properties.datetime != null) {
    throw new InvalidRecordError(`STAC Item "${id}" has an invalid "datetime"`);
  }

  const geometry = readRecordGeometry(item.geometry, `STAC Item "${id}" has an invalid geometry`);
  record.geometry = geometry;
  record.bbox = asBbox(item.bbox) ?? (geometry ? computeBbox(geometry) : undefined);

  record.eo = {
    platform: asString(properties.platform),
    instrument: asStrings(properties.instruments).join(','),
    cloudCover: asNumber(properties['eo:cloud_cover']),
    snowCover: asNumber(properties['eo:snow_cover']),
    orbitDirection: asString(properties['sat:orbit_state']),
    orbitNumber: asNumber(properties['sat:absolute_orbit']),
    processingLevel: asString(properties['processing:level']),
    productType: readProductType(properties),
    illuminationAzimuthAngle: asNumber(properties['view:sun_azimuth']),
    illuminationElevationAngle: asNumber(properties['view:sun_elevation']),
  };
  if (!record.eo.instrument) delete record.eo.instrument;
  for (const [key, value] of Object.entries(properties)) {
    if (!MAPPED_PROPERTIES.has(key) && value !== null && value !== undefined)
      record.extra[key] = value;
  }
  return record;
}

/** Reads a STAC Collection into a CoreRecord of type `collection`. */
export function parseStacCollection(collection: JsonObject, content: string): CoreRecord {
  const id = asString(collection.id);
  if (!id) throw new InvalidRecordError('STAC Collection has no "id"');
  const record = buildEmptyRecord(id, {
    format: 'stac-collection',
    mediaType: 'application/json',
    content,
  });
  fillCommon(record, collection, collection);
  record.type = 'collection';
  const extent = asObject(collection.extent);
  const bbox = asBbox(asArray(asObject(extent?.spatial)?.bbox)[0]);
  if (bbox) {
    record.bbox = bbox;
    record.geometry = bboxToGeometry(bbox);
  }
  const interval = asArray(asArray(asObject(extent?.temporal)?.interval)[0]);
  record.time = buildTimeExtent(interval[0], interval[1]);
  const summaries = asObject(collection.summaries) ?? {};
  record.eo = {
    platform: asStrings(summaries.platform).join(',') || undefined,
    instrument: asStrings(summaries.instruments).join(',') || undefined,
  };
  return record;
}
