/**
 * Every data set of records in the repository loads whole through the ingest CLI, the way a user
 * loads it (`npm run ingest`, a child process), on the backend CAIRN_TEST_SYSTEM_BACKEND chooses:
 * each GeoJSON layer under test/fixtures/ (the CQL2 test data set, Natural Earth 1:110m) and the
 * samples of data/samples/. The count the catalogue serves must equal the number of records in
 * the files, counted here from the files themselves; Russia, whose outline reaches longitude
 * 180.00000000000006, must be there and found at the antimeridian.
 *
 * The Natural Earth layers number their features from 1 each, so each data set loads into a
 * store of its own (in one store, the layers' features would replace one another by id).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { cliCount, ingestWithCli, type CliCatalogue } from '../support/ingest-cli.js';
import { fixturePath, REPO_ROOT, samplePath } from '../support/fixtures.js';
import { systemBackend } from '../support/system-backend.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

/** The files of a folder and its subfolders, as paths. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .sort();
}

/** The records a file holds, counted from its text: a FeatureCollection's features, else one. */
function recordsIn(file: string): number {
  if (!file.endsWith('.json') && !file.endsWith('.geojson')) return 1;
  const value = JSON.parse(readFileSync(file, 'utf8')) as { type?: string; features?: unknown[] };
  return value.type === 'FeatureCollection' ? (value.features?.length ?? 0) : 1;
}

interface DataSet {
  name: string;
  path: string;
  records: number;
}

/** The record data sets: every GeoJSON file under test/fixtures/, and data/samples/ whole. */
function recordDataSets(): DataSet[] {
  const layers = filesUnder(fixturePath())
    .filter((file) => file.endsWith('.geojson'))
    .map((file) => ({ name: relative(REPO_ROOT, file), path: file, records: recordsIn(file) }));
  const samples = filesUnder(samplePath()).filter((file) => /\.(xml|json)$/.test(file));
  return [
    ...layers,
    {
      name: 'data/samples',
      path: samplePath(),
      records: samples.reduce((sum, file) => sum + recordsIn(file), 0),
    },
  ];
}

const target = systemBackend();

describe(`every record data set loads whole through the ingest CLI (${target.label})`, function () {
  this.timeout(180_000);
  const dataSets = recordDataSets();

  it('finds the Natural Earth layers and the samples', () => {
    expect(dataSets.map((set) => set.name)).to.include.members([
      'test/fixtures/cql2/ne110m/ne_110m_admin_0_countries.geojson',
      'test/fixtures/cql2/ne110m/ne_110m_populated_places_simple.geojson',
      'test/fixtures/cql2/ne110m/ne_110m_rivers_lake_centerlines.geojson',
      'data/samples',
    ]);
    expect(dataSets.find((set) => set.name.endsWith('countries.geojson'))?.records).to.equal(177);
  });

  for (const dataSet of dataSets) {
    describe(dataSet.name, () => {
      let catalogue: CliCatalogue;

      before(async function () {
        this.timeout(300_000);
        catalogue = await ingestWithCli(target, [dataSet.path], { LIMIT_MAX: '1000' });
      });
      after(async () => catalogue?.close());

      it(`writes all ${dataSet.records} records and rejects none`, () => {
        const { ingest } = catalogue;
        expect(ingest.code, ingest.stdout + ingest.stderr).to.equal(0);
        expect(cliCount(ingest.stdout, 'records rejected'), ingest.stdout).to.equal(0);
        expect(cliCount(ingest.stdout, 'records read')).to.equal(dataSet.records);
        expect(cliCount(ingest.stdout, 'records written')).to.equal(dataSet.records);
      });

      it('serves as many distinct records as the files hold', async () => {
        const page = await request(catalogue.app).get(`${ITEMS}?limit=1000`).expect(200);
        expect(page.body.numberMatched).to.equal(dataSet.records);
        const ids = new Set((page.body.features as { id: string }[]).map((item) => item.id));
        expect(ids.size).to.equal(dataSet.records);
      });

      if (dataSet.name.endsWith('ne_110m_admin_0_countries.geojson')) {
        it('has Russia, its outline at the antimeridian snapped onto 180', async () => {
          const russia = await request(catalogue.app).get(`${ITEMS}/19`).expect(200);
          expect(russia.body.properties.NAME).to.equal('Russia');
          const longitudes = (russia.body.geometry.coordinates as number[][][][])
            .flat(2)
            .map(([longitude]) => longitude as number);
          expect(Math.max(...longitudes)).to.equal(180);
          expect(Math.min(...longitudes)).to.equal(-180);
          // The box east of 179.9°E at high latitudes holds only Russia's far east.
          const east = await request(catalogue.app)
            .get(`${ITEMS}?bbox=179.9,60,180,72&limit=10`)
            .expect(200);
          expect((east.body.features as { id: string }[]).map((item) => item.id)).to.deep.equal([
            '19',
          ]);
        });
      }
    });
  }
});
