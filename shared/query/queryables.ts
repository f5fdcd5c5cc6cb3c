/**
 * The queryables registry: the canonical fields every backend can filter and sort on, with
 * every name a protocol may use for them. Properties not listed here are still queryable by
 * their own name (they come from the record's `extra`), with their type taken from the value.
 */

export type QueryableType =
  'string' | 'number' | 'integer' | 'datetime' | 'geometry' | 'array' | 'boolean';

export interface Queryable {
  /** Canonical name, as stored in IndexDocument.properties. */
  name: string;
  type: QueryableType;
  title: string;
  /** Other names protocols use for the same field (case-sensitive). */
  aliases: string[];
  sortable: boolean;
  /** OGC role for queryables documents (id, primary-geometry, primary-instant …). */
  role?: string;
}

/** The canonical queryables, in the order documents list them. */
export const QUERYABLES: readonly Queryable[] = [
  {
    name: 'id',
    type: 'string',
    title: 'Record identifier',
    aliases: ['identifier', 'dc:identifier', 'apiso:Identifier', 'recordId'],
    sortable: true,
    role: 'id',
  },
  {
    name: 'type',
    type: 'string',
    title: 'Resource type',
    aliases: ['dc:type', 'apiso:Type'],
    sortable: true,
  },
  {
    name: 'title',
    type: 'string',
    title: 'Title',
    aliases: ['dc:title', 'apiso:Title'],
    sortable: true,
  },
  {
    name: 'description',
    type: 'string',
    title: 'Description',
    aliases: ['abstract', 'dct:abstract', 'apiso:Abstract'],
    sortable: false,
  },
  {
    name: 'keywords',
    type: 'array',
    title: 'Keywords',
    aliases: ['subject', 'dc:subject', 'apiso:Subject'],
    sortable: false,
  },
  {
    name: 'themes',
    type: 'array',
    title: 'Theme concepts',
    aliases: ['apiso:TopicCategory'],
    sortable: false,
  },
  {
    name: 'formats',
    type: 'array',
    title: 'Formats',
    aliases: ['format', 'dc:format', 'apiso:Format'],
    sortable: false,
  },
  {
    name: 'organisations',
    type: 'array',
    title: 'Organisations and people',
    aliases: ['organisation', 'organization', 'apiso:OrganisationName'],
    sortable: false,
  },
  {
    name: 'externalIds',
    type: 'array',
    title: 'External identifiers',
    aliases: [],
    sortable: false,
  },
  {
    name: 'language',
    type: 'string',
    title: 'Language',
    aliases: ['dc:language', 'apiso:Language'],
    sortable: true,
  },
  { name: 'license', type: 'string', title: 'License', aliases: [], sortable: false },
  {
    name: 'rights',
    type: 'string',
    title: 'Rights',
    aliases: ['dc:rights', 'apiso:AccessConstraints'],
    sortable: false,
  },
  {
    name: 'created',
    type: 'datetime',
    title: 'Record creation date',
    aliases: ['apiso:CreationDate'],
    sortable: true,
  },
  {
    name: 'updated',
    type: 'datetime',
    title: 'Record update date',
    aliases: ['modified', 'dct:modified', 'apiso:Modified'],
    sortable: true,
  },
  {
    name: 'parentId',
    type: 'string',
    title: 'Parent record or collection',
    aliases: ['collection', 'apiso:ParentIdentifier'],
    sortable: true,
  },
  {
    name: 'start_datetime',
    type: 'datetime',
    title: 'Start of the temporal extent',
    aliases: ['datetime', 'time', 'apiso:TempExtent_begin', 'TempExtent_begin'],
    sortable: true,
    role: 'primary-interval-start',
  },
  {
    name: 'end_datetime',
    type: 'datetime',
    title: 'End of the temporal extent',
    aliases: ['apiso:TempExtent_end', 'TempExtent_end'],
    sortable: true,
    role: 'primary-interval-end',
  },
  {
    name: 'geometry',
    type: 'geometry',
    title: 'Footprint',
    aliases: ['geom', 'footprint', 'ows:BoundingBox', 'apiso:BoundingBox', 'BoundingBox'],
    sortable: false,
    role: 'primary-geometry',
  },
  {
    name: 'platform',
    type: 'string',
    title: 'Platform',
    aliases: ['eo:platform', 'apiso:Platform'],
    sortable: true,
  },
  {
    name: 'instrument',
    type: 'string',
    title: 'Instrument',
    aliases: ['eo:instrument', 'instruments', 'apiso:Instrument'],
    sortable: true,
  },
  // STAC common metadata (instrument fields) that STAC clients and stac-api-validator filter on
  // whether or not a record has them: core, so that a filter naming them is never refused.
  { name: 'mission', type: 'string', title: 'Mission', aliases: [], sortable: false },
  { name: 'constellation', type: 'string', title: 'Constellation', aliases: [], sortable: false },
  {
    name: 'sensorType',
    type: 'string',
    title: 'Sensor type',
    aliases: ['eo:sensorType', 'apiso:SensorType'],
    sortable: true,
  },
  {
    name: 'cloudCover',
    type: 'number',
    title: 'Cloud cover (%)',
    aliases: ['eo:cloudCover', 'eo:cloud_cover', 'apiso:CloudCover'],
    sortable: true,
  },
  {
    name: 'snowCover',
    type: 'number',
    title: 'Snow cover (%)',
    aliases: ['eo:snowCover', 'eo:snow_cover'],
    sortable: true,
  },
  {
    name: 'orbitNumber',
    type: 'integer',
    title: 'Orbit number',
    aliases: ['eo:orbitNumber', 'sat:absolute_orbit'],
    sortable: true,
  },
  {
    name: 'orbitDirection',
    type: 'string',
    title: 'Orbit direction',
    aliases: ['eo:orbitDirection', 'sat:orbit_state'],
    sortable: true,
  },
  {
    name: 'processingLevel',
    type: 'string',
    title: 'Processing level',
    aliases: ['eo:processingLevel', 'processing:level'],
    sortable: true,
  },
  {
    name: 'productType',
    type: 'string',
    title: 'Product type',
    aliases: ['eo:productType'],
    sortable: true,
  },
];

const BY_NAME = new Map<string, Queryable>();
for (const queryable of QUERYABLES) {
  BY_NAME.set(queryable.name, queryable);
  for (const alias of queryable.aliases) BY_NAME.set(alias, queryable);
}
const BY_LOWER_NAME = new Map<string, Queryable>();
for (const [name, queryable] of BY_NAME) BY_LOWER_NAME.set(name.toLowerCase(), queryable);

/** The registered queryable for a name or alias (exact first, then case-insensitive), if any. */
export function findQueryable(name: string): Queryable | undefined {
  return BY_NAME.get(name) ?? BY_LOWER_NAME.get(name.toLowerCase());
}

/** The canonical property name for a queryable name (unregistered names stay as they are). */
export function canonicalPropertyName(name: string): string {
  return findQueryable(name)?.name ?? name;
}

/**
 * True when sorting by the property orders text case- and accent-insensitively: a sortable
 * string queryable other than the record id (ids keep code-point order, stable for harvesters).
 */
export function isTextSortable(name: string): boolean {
  const queryable = findQueryable(name);
  return (
    queryable !== undefined &&
    queryable.sortable &&
    queryable.type === 'string' &&
    queryable.name !== 'id'
  );
}

/**
 * The core queryables a backend keeps as values of their own (SQLite: columns, see SORT_COLUMNS in
 * shared/search/sqlite/schema.ts), compared as written (a time is its own single instant) rather
 * than through the record's JSON properties.
 */
export const COLUMN_QUERYABLES = [
  'id',
  'type',
  'title',
  'parentId',
  'created',
  'updated',
  'start_datetime',
  'end_datetime',
] as const;
export type ColumnQueryable = (typeof COLUMN_QUERYABLES)[number];

/**
 * The JSON type of a property the catalogue learned from its records (one of their own, not a
 * core queryable): what `/queryables` says of it.
 */
export type LearnedType = 'string' | 'number' | 'boolean' | 'array';

/** A property the catalogue learned from the records written to it. */
export interface LearnedProperty {
  name: string;
  /** Every JSON type its values were seen with (one for most properties). */
  types: LearnedType[];
  /** Whether `sortby` can order by it on this backend (scalars; not arrays or analysed text). */
  sortable: boolean;
}

/** Whether a name is exactly a core queryable's name or one of its aliases. */
export function isCoreQueryableName(name: string): boolean {
  return BY_NAME.has(name);
}

/** The JSON type of an indexed property value, or undefined for null. */
export function learnedTypeOf(value: unknown): LearnedType | undefined {
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return undefined;
  }
}

/**
 * The properties of an index document (buildIndexDocument's `properties`) that are the record's
 * own rather than core queryables, each with the JSON type of its value: what writes teach the
 * catalogue. Pure.
 */
export function ownPropertyTypes(
  properties: Readonly<Record<string, unknown>>,
): [name: string, type: LearnedType][] {
  const own: [string, LearnedType][] = [];
  // for…in over the document's own plain object: no entries array per record (ingest hot path).
  for (const name in properties) {
    if (BY_NAME.has(name)) continue;
    const type = learnedTypeOf(properties[name]);
    if (type !== undefined) own.push([name, type]);
  }
  return own;
}
