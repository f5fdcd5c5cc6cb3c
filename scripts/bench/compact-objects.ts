/**
 * What dropping a record's empty members costs, by how it is written: `Object.entries` →
 * `filter` → `Object.fromEntries` (as `compact` in records/present.ts and `withoutEmpty` in
 * stac-item.ts were), or a loop over `Object.keys` (as they are). Both run over the same
 * 1,000 property objects shaped as presentProperties builds them, in turn, for several rounds;
 * prints µs per call and writes them to a JSON file.
 *
 *   npx tsx scripts/bench/compact-objects.ts [--rounds 6] [--out bench/results/compact-objects.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Members = Record<string, unknown>;

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0);

const VARIANTS: Record<string, (object: Members) => Members> = {
  'entries → filter → fromEntries': (object) =>
    Object.fromEntries(Object.entries(object).filter(([, value]) => !isEmpty(value))),
  'loop over Object.keys': (object) => {
    const kept: Members = {};
    for (const key of Object.keys(object)) {
      const value = object[key];
      if (!isEmpty(value)) kept[key] = value;
    }
    return kept;
  },
};

/** A property object as presentProperties assembles it (EO members, then the core ones). */
function properties(index: number): Members {
  return Object.assign(
    {},
    { processingLevel: 'L2A', sensorType: 'RADAR', instrument: 'C-SAR', orbitNumber: index },
    {
      type: 'dataset',
      title: `Record ${index}`,
      description: 'A generated record.',
      keywords: ['sea ice', 'polar'],
      themes: [{ scheme: 'https://example.org/s', concepts: [{ id: 'oceans' }] }],
      formats: [{ name: 'Shapefile' }],
      contacts: [{ organization: 'Institute', roles: ['pointOfContact'] }],
      externalIds: [],
      language: { code: 'en' },
      license: 'ODbL-1.0',
      rights: undefined,
      created: '2012-08-17T00:00:00.000Z',
      updated: '2024-12-25T12:00:00.000Z',
      parentId: null,
    },
  );
}

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, out: { type: 'string' } },
});
const objects = Array.from({ length: 1000 }, (_, index) => properties(index));
const answers = Object.values(VARIANTS).map((variant) => JSON.stringify(objects.map(variant)));
if (answers.some((answer) => answer !== answers[0])) throw new Error('the variants differ');
const timings = Object.entries(VARIANTS).map(([name, variant]) => ({
  name,
  variant,
  perCall: [] as number[],
}));
const calls = 200 * objects.length;
for (let round = 0; round < Number(values.rounds); round += 1) {
  for (const { variant, perCall } of timings) {
    const started = performance.now();
    for (let pass = 0; pass < 200; pass += 1) for (const object of objects) variant(object);
    perCall.push(Math.round(((performance.now() - started) * 1000 * 1000) / calls) / 1000);
  }
}
const perCall = Object.fromEntries(timings.map(({ name, perCall }) => [name, perCall]));
const result = { benchmark: 'compact-objects', date: new Date().toISOString(), perCallUs: perCall };
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
console.log('| variant | µs per call, each round |\n| --- | --- |');
for (const [name, rounds] of Object.entries(perCall))
  console.log(`| ${name} | ${rounds.join(', ')} |`);
