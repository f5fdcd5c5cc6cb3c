/**
 * The index templates of the Elasticsearch / OpenSearch backends, read from `es-mappings/`
 * (the single source for index creation) and composed for one deployment's names and
 * options: a records template made of component templates (base, `shape` spatial fields,
 * opt-in full text analysis) and an ingest-log template.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How record footprints are indexed (docs/operations.md, "Scaled mode"). */
export type SpatialMode = 'shape' | 'envelope';

/** Text analysis of the searched text fields: `standard` works on the minimal distributions. */
export type TextAnalysis = 'standard' | 'full';

/**
 * Bumped whenever the records mapping or the document layout changes; recorded in each index
 * version's `_meta`. Version 3: `ci` copies only for text beyond ASCII. Version 4: `sort.*`
 * keyword copies (case- and accent-folded) of sortable text properties. Version 5: the time
 * spans of date-like string properties (`tlo.*`, `thi.*`) and the `boxFootprint` flag; comparisons
 * with time literals and exact spatial filters need them (reindex). Version 6: the index is
 * sorted by `id` (`index.sort.*`, the default sort), so deep-paging walks in that order stop
 * early instead of visiting every match. Version 7: `centre.lon`/`centre.lat`, the centre of each
 * record's box, which the geohash grid aggregation counts (an older index gives no grid cells).
 * Version 8: `stems.*`, the record's words stemmed per language (shared/records/stems.ts); an
 * older index gets the fields mapped when opened, and its records their stems when written again
 * or reindexed. Queries read every earlier layout otherwise (text then sorts by code point, deep walks cost
 * more); a reindex moves an index to the current one.
 */
export const MAPPING_VERSION = 8;

const MAPPINGS_DIRECTORY = 'es-mappings';

type JsonObject = Record<string, unknown>;

/** Finds `es-mappings/` from this module's directory upwards (sources and compiled copies). */
function locateMappings(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(directory, MAPPINGS_DIRECTORY);
    if (existsSync(path.join(candidate, 'records.base.json'))) return candidate;
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`Cannot find ${MAPPINGS_DIRECTORY}/`);
    directory = parent;
  }
}

const cache = new Map<string, JsonObject>();

/** Reads one JSON file of `es-mappings/` (cached; callers get a deep copy). */
export function readMappingFile(name: string): JsonObject {
  let content = cache.get(name);
  if (!content) {
    content = JSON.parse(readFileSync(path.join(locateMappings(), name), 'utf8')) as JsonObject;
    cache.set(name, content);
  }
  return structuredClone(content);
}

/** The physical index name of a records version: `<alias>-v<n>`. */
export function versionedIndexName(alias: string, version: number): string {
  return `${alias}-v${version}`;
}

/** The version number of a physical records index, or undefined when it is not one of ours. */
export function parseIndexVersion(alias: string, index: string): number | undefined {
  const match = new RegExp(`^${alias.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}-v(\\d+)$`).exec(
    index,
  );
  return match ? Number(match[1]) : undefined;
}

export interface ComponentTemplate {
  name: string;
  body: JsonObject;
}

export interface RecordsTemplates {
  components: ComponentTemplate[];
  indexTemplate: { name: string; body: JsonObject };
}

/** What a records index records about itself in its mapping `_meta`. */
export interface RecordsIndexMeta {
  mappingVersion: number;
  spatial: SpatialMode;
  analysis: TextAnalysis;
}

/** How a records index is laid out on a cluster (the base mapping's defaults when unset). */
export interface IndexLayout {
  /** Primary shards (base mapping: 1). Fixed for an index: a reindex applies a new count. */
  shards?: number | undefined;
  /** Replicas per shard; unset: the base mapping's auto-expand 0-1. */
  replicas?: number | undefined;
}

/** The index settings of a layout and refresh interval; undefined when nothing is set. */
function indexSettings(layout: IndexLayout, refreshInterval?: string): JsonObject | undefined {
  const index: JsonObject = {
    ...(layout.shards !== undefined && { number_of_shards: layout.shards }),
    ...(layout.replicas !== undefined && {
      number_of_replicas: layout.replicas,
      auto_expand_replicas: false,
    }),
    ...(refreshInterval && { refresh_interval: refreshInterval }),
  };
  return Object.keys(index).length > 0 ? { index } : undefined;
}

/** Composes the records component and index templates for an alias and options. */
export function buildRecordsTemplates(
  alias: string,
  options: {
    spatial: SpatialMode;
    analysis: TextAnalysis;
    refreshInterval?: string | undefined;
  } & IndexLayout,
): RecordsTemplates {
  const { refreshInterval, shards, replicas, ...built } = options;
  const settings = indexSettings({ shards, replicas }, refreshInterval);
  const components: ComponentTemplate[] = [
    { name: `${alias}-base`, body: readMappingFile('records.base.json') },
  ];
  if (options.spatial === 'shape') {
    components.push({ name: `${alias}-shape`, body: readMappingFile('records.shape.json') });
  }
  if (options.analysis === 'full') {
    components.push({
      name: `${alias}-analysis-full`,
      body: readMappingFile('records.analysis-full.json'),
    });
  }
  const meta: RecordsIndexMeta = { mappingVersion: MAPPING_VERSION, ...built };
  return {
    components,
    indexTemplate: {
      name: alias,
      body: {
        index_patterns: [`${alias}-v*`],
        priority: 200,
        composed_of: components.map((component) => component.name),
        template: {
          // The index template's own settings win over its components' (records.base.json).
          ...(settings && { settings }),
          mappings: { _meta: { cairn: meta } },
        },
        _meta: { description: `Cairn records behind the alias ${alias}` },
      },
    },
  };
}

/** The ingest-log index template for an index name. */
export function buildIngestLogTemplate(ingestLog: string): { name: string; body: JsonObject } {
  const body = readMappingFile('ingest-log.json');
  return { name: ingestLog, body: { ...body, index_patterns: [ingestLog] } };
}

/** The mapping of `stems` in the base mapping: one text field per stemmed language. */
export function stemsMapping(): JsonObject {
  const base = readMappingFile('records.base.json');
  const mappings = (base.template as JsonObject).mappings as JsonObject;
  return (mappings.properties as JsonObject).stems as JsonObject;
}

/** The property kinds the base mapping declares explicitly under `props`. */
export function readDeclaredPropertyTypes(): Map<string, string> {
  const base = readMappingFile('records.base.json');
  const mappings = (base.template as JsonObject).mappings as JsonObject;
  const props = ((mappings.properties as JsonObject).props as JsonObject).properties as Record<
    string,
    { type: string }
  >;
  return new Map(Object.entries(props).map(([name, field]) => [name, field.type]));
}
