/**
 * The records index's life: templates, the alias over the versioned index it points to, the
 * kinds of the dynamic properties in that index's mapping, and reindexing into the next
 * version. Reads go through the alias (`cairn-records`) over a versioned index
 * (`cairn-records-v1`, …) created from the templates in `es-mappings/`; `reindex()` builds the
 * next version from the stored source documents and moves the alias atomically. Kept apart from
 * the reads and writes because it is the only part that changes which index they reach.
 */
import { performance } from 'node:perf_hooks';
import { InternalError } from '../../errors/index.js';
import type { CoreRecord } from '../../records/core-record.js';
import type { WriteFailure } from '../backend.js';
import {
  classifyClientError,
  type EngineAdapter,
  type EngineName,
  type JsonObject,
} from './engine-adapter.js';
import { ENGINE_TITLES, toWriteError } from './engine-errors.js';
import type { FieldKind } from './engine-fields.js';
import {
  buildIngestLogTemplate,
  buildRecordsTemplates,
  parseIndexVersion,
  stemsMapping,
  versionedIndexName,
  type IndexLayout,
  type RecordsIndexMeta,
  type SpatialMode,
  type TextAnalysis,
} from './index-templates.js';
import { rebuildIndex, type ReindexResult } from './reindex.js';
import { TOMBSTONES_INDEX_BODY } from './change-feed.js';

/** A physical records index and the spatial mode it was built with. */
export interface RecordsIndex {
  index: string;
  spatial: SpatialMode;
}

/** What the index set-up is given. */
export interface IndexLifecycleOptions {
  adapter: EngineAdapter;
  engine: EngineName;
  alias: string;
  ingestLog: string;
  /** The tombstones index (tombstones.ts). */
  tombstones: string;
  /** The spatial mode new index versions are built with. */
  spatial: SpatialMode;
  analysis: TextAnalysis;
  refreshInterval: string | undefined;
  layout: IndexLayout;
  /** Keep the previous index version (write-blocked) after a reindex. */
  keepPreviousIndex: boolean;
}

/** Writes records built for `spatial` into `index` (refresh off); returns the failures. */
export type WriteToIndex = (
  records: CoreRecord[],
  index: string,
  spatial: SpatialMode,
  changed: ReadonlyMap<string, string>,
) => Promise<{ written: number; failures: WriteFailure[] }>;

/** Flattens the mapping of `props.*` into the kinds of its fields. */
export function readPropertyKinds(mappings: JsonObject): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  const props = (mappings.properties as Record<string, JsonObject> | undefined)?.props;
  const fields = (props?.properties ?? {}) as Record<string, { type?: string }>;
  for (const [name, field] of Object.entries(fields)) {
    const kind: FieldKind =
      field.type === 'double' || field.type === 'long' || field.type === 'float'
        ? 'number'
        : field.type === 'date'
          ? 'time'
          : 'string';
    kinds.set(`props.${name}`, kind);
  }
  return kinds;
}

/** The alias, the index versions behind it and what the live one maps. */
export class IndexLifecycle {
  private readonly options: IndexLifecycleOptions;
  /** The physical index behind the alias, and what it was built with; unset until read. */
  private live: RecordsIndex | undefined;
  private propertyKinds = new Map<string, FieldKind>();
  /** performance.now() when the mapping read that gave propertyKinds began. */
  private kindsReadAt = -Infinity;
  /** The mapping read under way, if any, and when it began. */
  private kindsRead: { startedAt: number; done: Promise<void> } | undefined;
  /** The read queued behind it, shared by every search that came after it began. */
  private queuedKindsRead: Promise<void> | undefined;
  /** While a reindex runs: the index being built, which in-process writes also reach. */
  private buildingIndex: RecordsIndex | undefined;

  constructor(options: IndexLifecycleOptions) {
    this.options = options;
  }

  /** The physical index the alias points to (after init). */
  get liveIndex(): string | undefined {
    return this.live?.index;
  }

  /** The live index as last loaded (undefined before init() reached the engine). */
  get liveRecords(): RecordsIndex | undefined {
    return this.live;
  }

  /** The index a running reindex is building, if any. */
  get building(): RecordsIndex | undefined {
    return this.buildingIndex;
  }

  /** Installs (or updates) the index templates from `es-mappings/`. */
  async installTemplates(): Promise<void> {
    const { adapter, alias, spatial } = this.options;
    const records = buildRecordsTemplates(alias, {
      spatial,
      analysis: this.options.analysis,
      refreshInterval: this.options.refreshInterval,
      ...this.options.layout,
    });
    try {
      for (const component of records.components) {
        await adapter.putComponentTemplate(component.name, component.body);
      }
      await adapter.putIndexTemplate(records.indexTemplate.name, records.indexTemplate.body);
      const ingestLog = buildIngestLogTemplate(this.options.ingestLog);
      await adapter.putIndexTemplate(ingestLog.name, ingestLog.body);
    } catch (error) {
      const engineError = classifyClientError(error);
      if (engineError.kind === 'rejected' && spatial === 'shape') {
        throw new InternalError(
          `The ${ENGINE_TITLES[this.options.engine]} at this URL refused the records templates; spatial mode "shape" needs the geo_shape field type (OpenSearch: the geo module; Elasticsearch: x-pack spatial), which minimal distributions lack. Use spatial mode "envelope" there.`,
          { cause: engineError },
        );
      }
      throw toWriteError(error);
    }
  }

  /** Installs the templates, creates the first index version and the ingest log if missing. */
  async init(): Promise<void> {
    await this.installTemplates();
    const { adapter, alias, ingestLog } = this.options;
    try {
      let targets = await adapter.aliasTargets(alias);
      if (targets.length === 0) {
        const first = versionedIndexName(alias, 1);
        if (!(await adapter.indexExists(first))) {
          await adapter.createIndex(first, {
            aliases: { [alias]: { is_write_index: true } },
          });
        } else {
          await adapter.updateAliases([{ add: { index: first, alias, is_write_index: true } }]);
        }
        targets = [first];
      }
      const [target] = targets;
      if (target === undefined || targets.length !== 1) {
        throw new InternalError(`The alias ${alias} points to ${targets.length} indices`);
      }
      if (!(await adapter.indexExists(ingestLog))) {
        await adapter.createIndex(ingestLog, {}).catch((error: unknown) => {
          // Another process may have created it in between.
          if (classifyClientError(error).kind !== 'rejected') throw error;
        });
      }
      const { tombstones } = this.options;
      if (!(await adapter.indexExists(tombstones))) {
        await adapter.createIndex(tombstones, TOMBSTONES_INDEX_BODY).catch((error: unknown) => {
          if (classifyClientError(error).kind !== 'rejected') throw error;
        });
      }
      await this.loadLiveIndex(target);
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /** Reads what the live index was built with, and its dynamic property kinds. */
  private async loadLiveIndex(index: string): Promise<RecordsIndex> {
    const startedAt = performance.now();
    const mappings = (await this.options.adapter.getMappings(index))[index] ?? {};
    const meta = ((mappings._meta as JsonObject | undefined)?.cairn ??
      {}) as Partial<RecordsIndexMeta>;
    const properties = (mappings.properties ?? {}) as JsonObject;
    if (properties.changed === undefined) {
      // An index created before change times were kept: the field is added to its mapping (its
      // records have none until written again; a reindex gives them their index time).
      await this.options.adapter.putMapping(index, { changed: { type: 'date' } });
    }
    if (properties.stems === undefined) {
      // An index created before stems were kept: their fields are mapped (the mapping is strict),
      // so records written to it from now on carry them.
      await this.options.adapter.putMapping(index, { stems: stemsMapping() });
    }
    const live = { index, spatial: meta.spatial ?? this.options.spatial };
    this.live = live;
    this.propertyKinds = readPropertyKinds(mappings);
    this.kindsReadAt = startedAt;
    return live;
  }

  /**
   * The live index. When init() could not reach the engine (it was down at start-up), the
   * first use tries again, so the backend recovers without a restart.
   */
  async requireLive(): Promise<RecordsIndex> {
    if (this.live) return this.live;
    const { adapter, alias } = this.options;
    const targets = await adapter.aliasTargets(alias);
    const [target] = targets;
    if (target === undefined || targets.length !== 1) {
      throw new InternalError(`The alias ${alias} points to ${targets.length} indices`);
    }
    return this.loadLiveIndex(target);
  }

  /** The kind of a `props.*` field in the live index's mapping as last read, if mapped. */
  mappedKind(path: string): FieldKind | undefined {
    return this.propertyKinds.get(path);
  }

  /**
   * Makes the property kinds those of a mapping read begun at `since` (performance.now()) or
   * later: the last read when it began then, else the read under way when it did, else one
   * more read. At most one read is under way and one waits behind it, shared by every search
   * that asks meanwhile, so searches naming absent properties cost at most one read at a time.
   * A search asks with the time it began: every property of a record written (and
   * acknowledged) before then, through any process, is in the kinds it then compiles with.
   */
  readKindsSince(since: number): Promise<void> {
    if (this.kindsReadAt >= since) return Promise.resolve();
    const current = this.kindsRead;
    if (!current) return this.startKindsRead();
    if (current.startedAt >= since) return current.done;
    // Every search queued here began before the next read begins (this one has not ended).
    this.queuedKindsRead ??= current.done
      .catch(() => undefined)
      .then(() => {
        this.queuedKindsRead = undefined;
        return this.kindsRead ? this.kindsRead.done : this.startKindsRead();
      });
    return this.queuedKindsRead;
  }

  /** Reads the live index's mapping now (the read under way until it ends). */
  private startKindsRead(): Promise<void> {
    const live = this.live;
    if (!live) return Promise.resolve();
    const startedAt = performance.now();
    const done: Promise<void> = this.readKinds(live, startedAt).finally(() => {
      if (this.kindsRead?.done === done) this.kindsRead = undefined;
    });
    this.kindsRead = { startedAt, done };
    return done;
  }

  /**
   * Takes the kinds of the mapping of the index the alias points to — the one searches reach,
   * which another process's reindex may have replaced since this one read `live` — unless a
   * later read's are in, or this process moved the alias meanwhile (its own read is then the
   * one to keep).
   */
  private async readKinds(live: RecordsIndex, startedAt: number): Promise<void> {
    const found = Object.values(await this.options.adapter.getMappings(this.options.alias));
    const mappings = found.length === 1 ? found[0]! : {};
    if (this.live === live && startedAt > this.kindsReadAt) {
      this.propertyKinds = readPropertyKinds(mappings);
      this.kindsReadAt = startedAt;
    }
  }

  /** Makes everything written so far visible to search (after bulk loads with refresh off). */
  async refresh(): Promise<void> {
    try {
      await this.options.adapter.refresh(this.options.alias);
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /**
   * Builds the next index version from the stored source documents with the current parsers
   * and mapping (`write` puts each batch there), then moves the alias to it atomically; reads
   * never see a half-built index. `onSwapped` runs once the alias has moved and the new
   * version's mapping is read.
   */
  async reindex(write: WriteToIndex, onSwapped: () => void): Promise<ReindexResult> {
    if (this.buildingIndex) throw new InternalError('A reindex is already running');
    const { adapter, alias } = this.options;
    try {
      const live = await this.requireLive();
      await this.installTemplates();
      const existing = Object.keys(await adapter.getMappings(`${alias}-v*`));
      const version =
        Math.max(0, ...existing.map((index) => parseIndexVersion(alias, index) ?? 0)) + 1;
      const target = { index: versionedIndexName(alias, version), spatial: this.options.spatial };
      return await rebuildIndex({
        adapter,
        alias,
        from: live.index,
        to: target.index,
        keepPrevious: this.options.keepPreviousIndex,
        refreshInterval: this.options.refreshInterval,
        write: (records, changed) => write(records, target.index, target.spatial, changed),
        onBuildStart: () => {
          this.buildingIndex = target;
        },
        onSwapped: async () => {
          this.buildingIndex = undefined;
          await this.loadLiveIndex(target.index);
          onSwapped();
        },
      });
    } catch (error) {
      throw toWriteError(error);
    } finally {
      this.buildingIndex = undefined;
    }
  }

  /** Removes the alias, every index version and the templates (tests, teardown). */
  async destroy(): Promise<void> {
    const { adapter, alias, ingestLog } = this.options;
    try {
      const indices = Object.keys(await adapter.getMappings(`${alias}-v*`));
      for (const index of indices) await adapter.deleteIndex(index);
      await adapter.deleteIndex(ingestLog);
      await adapter.deleteIndex(this.options.tombstones);
      await adapter.deleteIndexTemplate(alias);
      await adapter.deleteIndexTemplate(ingestLog);
      for (const suffix of ['base', 'shape', 'analysis-full']) {
        await adapter.deleteComponentTemplate(`${alias}-${suffix}`);
      }
    } catch (error) {
      throw toWriteError(error);
    }
  }
}
