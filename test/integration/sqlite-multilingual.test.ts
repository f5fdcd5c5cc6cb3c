/**
 * Multilingual records in a real SQLite file, loaded by the sequential pipeline and by the
 * parallel load (parse on worker threads): the stored record keeps its languages and
 * translations, and FTS5 finds it by a word of any translation, accents folded.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestDocumentsInParallel } from '../../shared/ingest/parallel-ingest.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { buildMatchAllQuery } from '../../shared/query/search-query.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { samplePath } from '../support/fixtures.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-multilingual-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const CZECH = 'CZ-CUZK-ATOM-DATA50';
const FRENCH = 'OCEANO_MODELE_HYDRODYN.xml';
const DOCUMENTS: RawDocument[] = [`${CZECH}.xml`, FRENCH].map((name) => ({
  name,
  content: readFileSync(samplePath('iso19139', name), 'utf8'),
}));

describe('multilingual records in SQLite', function () {
  this.timeout(120_000);

  for (const [label, load] of [
    ['sequential', (backend: SqliteBackend) => ingestDocuments(backend, DOCUMENTS)],
    [
      'parallel',
      (backend: SqliteBackend) => ingestDocumentsInParallel(backend, DOCUMENTS, { workers: 2 }),
    ],
  ] as const) {
    it(`keeps the translations and finds every language (${label} load)`, async () => {
      const backend = new SqliteBackend({ path: join(directory, `${label}.sqlite`) });
      await backend.init();
      try {
        const summary = await load(backend);
        expect(summary.rejected).to.deep.equal([]);
        const czech = await backend.get(CZECH);
        expect(czech?.languages).to.deep.equal(['cs', 'en', 'fr']);
        expect(czech?.translations?.fr?.title).to.equal(
          'Service de téléchargement ATOM pour Data50',
        );
        const found = async (words: string[]): Promise<string[]> =>
          (await backend.search({ ...buildMatchAllQuery(10), text: [words] })).records
            .map((record) => record.id)
            .sort();
        expect(await found(['Vodopis'])).to.deep.equal([CZECH]);
        expect(await found(['Hydrography'])).to.deep.equal([CZECH]);
        expect(await found(['telechargement'])).to.deep.equal([CZECH]);
        expect(await found(['oceanography'])).to.deep.equal([FRENCH]);
        expect(await found(['hydrodynamic', 'ocean'])).to.deep.equal([FRENCH]);
        expect(await found(['oceanography', 'Data50'])).to.deep.equal([]);
      } finally {
        await backend.close();
      }
    });
  }
});
