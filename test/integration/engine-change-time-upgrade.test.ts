/**
 * An engine index created before records kept their change time (and their stems): starting the
 * backend adds the `changed` and `stems` fields to its mapping (a strict mapping would refuse every write otherwise), and
 * records written from then on are listed by their change time. On Elasticsearch and OpenSearch.
 */
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { STEMMED_LANGUAGES } from '../../shared/records/stems.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import { versionedIndexName } from '../../shared/search/engine/index-templates.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { createAdapter, requireEngineUrl, uniqueAlias } from './engine-backend-cases.js';

for (const engine of ['elasticsearch', 'opensearch'] as EngineName[]) {
  const url = requireEngineUrl(engine);
  if (!url) continue;
  describe(`${engine}: an index from before change times`, function () {
    this.timeout(60_000);

    it('gains the changed and stems fields at start-up; records written then are listed', async () => {
      const alias = uniqueAlias('envelope');
      const adapter = createAdapter(engine, url);
      const index = versionedIndexName(alias, 1);
      // What an older version left: the index without the field (and no template yet).
      await adapter.createIndex(index, {
        mappings: { properties: { id: { type: 'keyword' }, indexedAt: { type: 'date' } } },
      });
      const backend = createEngineBackend({
        engine,
        url,
        alias,
        spatial: 'envelope',
        refresh: 'wait_for',
      });
      try {
        await backend.init();
        const mapping = (await adapter.getMappings(index))[index] as {
          properties: Record<string, { type?: string }>;
        };
        expect(mapping.properties.changed?.type).to.equal('date');
        // The stems fields too (mapping version 8), one text field per stemmed language.
        const stems = mapping.properties.stems as {
          properties?: Record<string, { type?: string }>;
        };
        expect(Object.keys(stems.properties ?? {})).to.have.members(Object.keys(STEMMED_LANGUAGES));
        expect(stems.properties?.fr?.type).to.equal('text');
        const records = parseDocuments(JSON.stringify(CONTRACT_RECORDS.slice(0, 2))).records;
        expect((await backend.upsert(records)).written).to.equal(2);
        const page = await backend.changes({ limit: 10, count: true });
        expect(page.total).to.equal(2);
      } finally {
        await backend.destroy().catch(() => undefined);
        await backend.close();
        await adapter.close();
      }
    });
  });
}
