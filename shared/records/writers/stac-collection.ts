/**
 * CoreRecord → STAC Collection 1.0.0. Pure: the caller gives the hierarchy links.
 *
 * - A record whose stored source is a STAC Collection is written from that source, with its
 *   hierarchy links (self, root, parent, items, child, item) replaced by this catalogue's and
 *   relative hrefs resolved against its old self.
 * - Any other record (an ISO series, a record that others name as parent) is built from its
 *   fields: its footprint's box (else the whole world) and its time extent (else open at both
 *   ends) as the extent, its description (else title, else id) as the required description,
 *   and its licence as in items (`proprietary` when it has none), and its languages as items
 *   write them (the STAC Language extension).
 */
import type { CoreRecord } from '../core-record.js';
import { computeBbox } from '../formats/json/json-values.js';
import {
  buildLicense,
  buildProviders,
  buildStacLanguages,
  isObject,
  resolveHref,
  STAC_VERSION,
  type StacLink,
} from './stac-item.js';

/** Links the catalogue gives a STAC Collection. */
export interface StacCollectionLinks {
  self: string;
  root: string;
  parent: string;
  items: string;
  /** Further links (alternate encodings …), added after the hierarchy links. */
  extra?: StacLink[];
}

const WORLD = [-180, -90, 180, 90];
const COLLECTION_HIERARCHY_RELS = new Set(['self', 'root', 'parent', 'items', 'child', 'item']);

type JsonObject = Record<string, unknown>;

function buildHierarchy(links: StacCollectionLinks): StacLink[] {
  return [
    { rel: 'self', href: links.self, type: 'application/json' },
    { rel: 'root', href: links.root, type: 'application/json', title: 'STAC API' },
    { rel: 'parent', href: links.parent, type: 'application/json', title: 'STAC API' },
    { rel: 'items', href: links.items, type: 'application/geo+json', title: 'Items' },
    ...(links.extra ?? []),
  ];
}

function readSourceCollection(record: CoreRecord): JsonObject | undefined {
  if (record.source.format !== 'stac-collection' || !record.source.content) return undefined;
  try {
    const parsed: unknown = JSON.parse(record.source.content);
    return isObject(parsed) && parsed.type === 'Collection' && isObject(parsed.extent)
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

function rewriteSource(
  source: JsonObject,
  record: CoreRecord,
  links: StacCollectionLinks,
): JsonObject {
  const sourceLinks = Array.isArray(source.links) ? source.links.filter(isObject) : [];
  const oldSelf = sourceLinks.find((link) => link.rel === 'self' && typeof link.href === 'string')
    ?.href as string | undefined;
  const base = oldSelf && /^https?:\/\//i.test(oldSelf) ? oldSelf : undefined;
  const kept = sourceLinks
    .filter((link) => typeof link.href === 'string' && typeof link.rel === 'string')
    .filter((link) => !COLLECTION_HIERARCHY_RELS.has(link.rel as string))
    .map((link) => ({ ...link, href: resolveHref(link.href as string, base) }) as StacLink);
  return {
    ...source,
    stac_version: typeof source.stac_version === 'string' ? source.stac_version : STAC_VERSION,
    id: record.id,
    links: [...buildHierarchy(links), ...kept],
  };
}

function buildCollection(record: CoreRecord, links: StacCollectionLinks): JsonObject {
  const license = buildLicense(record.license);
  const bbox = record.bbox ?? (record.geometry ? computeBbox(record.geometry) : undefined);
  const providers = buildProviders(record);
  const languages = buildStacLanguages(record);
  return {
    type: 'Collection',
    stac_version: STAC_VERSION,
    stac_extensions: languages.extensions,
    id: record.id,
    ...languages.members,
    ...(record.title && { title: record.title }),
    description: record.description || record.title || record.id,
    ...(record.keywords.length > 0 && { keywords: record.keywords }),
    license: license.value ?? 'proprietary',
    ...(providers.length > 0 && { providers }),
    extent: {
      spatial: { bbox: [bbox ?? WORLD] },
      temporal: { interval: [[record.time?.start ?? null, record.time?.end ?? null]] },
    },
    links: [...buildHierarchy(links), ...(license.link ? [license.link] : [])],
  };
}

/** Writes a record as a STAC Collection: from its STAC source when it has one, else its fields. */
export function writeStacCollection(record: CoreRecord, links: StacCollectionLinks): JsonObject {
  const source = readSourceCollection(record);
  return source ? rewriteSource(source, record, links) : buildCollection(record, links);
}
