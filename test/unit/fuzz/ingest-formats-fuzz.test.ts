/**
 * Fuzzing of every ingest format (ISO 19139, ISO 19115-3, Dublin Core / csw:Record, STAC Items
 * and Collections, OGC API – Records GeoJSON): real documents — the repository's samples
 * (data/samples) and documents Cairn's own writers produce from generated records — mutated structurally, plus garbage. Every input must end as records or as failures
 * with a reason from a typed error ("unreadable record" means something else was thrown: a
 * crash). Every record that comes out must also index and present without throwing, so a
 * mutant can never be half written or break a later read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { parseDocuments, detectJsonFormat } from '../../../shared/records/formats/index.js';
import { parseOgcRecord } from '../../../shared/records/formats/json/ogc-record.js';
import { parseStacCollection, parseStacItem } from '../../../shared/records/formats/json/stac.js';
import {
  findRecordElements,
  readXmlRecordElement,
} from '../../../shared/records/formats/xml/xml-records.js';
import { buildIndexDocument } from '../../../shared/records/index-document.js';
import { buildStacItem } from '../../../shared/records/writers/stac-item.js';
import {
  writeAtomEntry,
  writeCswRecord,
  writeIso19139,
} from '../../../shared/records/writers/xml/index.js';
import { parseXml } from '../../../shared/xml/index.js';
import { presentRecord } from '../../../services/api/protocols/records/present.js';
import { generateRecords } from '../../../scripts/corpus/generator.js';
import { describeRun, fuzzParameters, Tally } from '../../support/fuzz-settings.js';
import { mutateJsonValue, mutateString, mutateXml } from '../../support/fuzz-mutations.js';
import { samplePath } from '../../support/fixtures.js';
import { defined } from '../../support/defined.js';

/** Default inputs per family (scaled by CAIRN_FUZZ_SCALE); JSON seeds are large STAC Items. */
const RUNS = { xml: 1_500, json: 500, garbage: 1_500 };

function readSamples(folder: string, extension: string): string[] {
  const directory = samplePath(folder);
  return readdirSync(directory)
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => readFileSync(join(directory, name), 'utf8'));
}

/** Generated records as the JSON Cairn reads, and as the XML its writers produce. */
const GENERATED = [...generateRecords(6, 11)];
const generatedXml = (): string[] => {
  const parsed = GENERATED.flatMap((feature) => parseDocuments(JSON.stringify(feature)).records);
  return parsed.flatMap((record) => [
    writeIso19139(record, { useSource: false }),
    writeCswRecord(record, { version: '2.0.2', elementSet: 'full' }),
    writeCswRecord(record, { version: '3.0.0', elementSet: 'full' }),
  ]);
};

const XML_SEEDS = [
  ...readSamples('iso19139', '.xml'),
  ...readSamples('iso19115-3', '.xml'),
  ...readSamples('dublin-core-cite', '.xml'),
  ...readSamples('stac', '.xml'),
  ...generatedXml(),
];
const JSON_SEEDS: unknown[] = [
  ...readSamples('stac', '.json').map((text) => JSON.parse(text) as unknown),
  ...GENERATED,
  { type: 'FeatureCollection', features: GENERATED.slice(0, 2) },
];

/**
 * Reruns the parser that failed without the per-record catch, so that a crash hidden behind
 * "unreadable record" surfaces with its own message and stack.
 */
function exposeCrash(content: string): void {
  const text = content.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('<')) {
    const document = parseXml(text);
    for (const element of findRecordElements(document.root)) readXmlRecordElement(element, text);
    return;
  }
  const values: unknown[] = (() => {
    try {
      return [JSON.parse(text)];
    } catch {
      return text
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    }
  })();
  for (const value of values) {
    const object = value as Record<string, unknown>;
    const members =
      object?.type === 'FeatureCollection' && Array.isArray(object.features)
        ? object.features
        : [value];
    for (const member of members as Record<string, unknown>[]) {
      if (typeof member !== 'object' || member === null) continue;
      const format = detectJsonFormat(member);
      if (format === 'stac-item') parseStacItem(member, text);
      else if (format === 'stac-collection') parseStacCollection(member, text);
      else if (format) parseOgcRecord(member, text);
    }
  }
}

/** A parsed record must index and present in every encoding without throwing. */
function checkRecord(record: CoreRecord): void {
  if (typeof record.id !== 'string' || record.id === '') throw new Error('record without an id');
  const document = buildIndexDocument(record);
  for (const box of document.boxes) {
    const [west, south, east, north] = box;
    if (![west, south, east, north].every(Number.isFinite) || south > north || west > east)
      throw new Error(`bad indexed box ${JSON.stringify(box)} of ${record.id}`);
  }
  if (document.timeStart && document.timeEnd && document.timeStart > document.timeEnd)
    throw new Error(`time extent of ${record.id} ends before it starts`);
  JSON.stringify(presentRecord(record, 'http://example.test'));
  writeCswRecord(record, { version: '3.0.0', elementSet: 'full' });
  writeIso19139(record, { useSource: false });
  writeAtomEntry(record);
  buildStacItem(record, { self: 'http://example.test/i', root: 'http://example.test/' });
}

/** Ingests one document as the pipeline does and checks what came out. */
function ingest(content: string, tally: Tally): void {
  const parsed = parseDocuments(content, { name: 'fuzzed' });
  for (const failure of parsed.failures) {
    if (failure.reason === 'unreadable record') {
      exposeCrash(content);
      throw new Error('a record failed with an untyped error that did not reproduce');
    }
  }
  parsed.records.forEach(checkRecord);
  tally.add(
    parsed.records.length > 0 && parsed.failures.length > 0
      ? 'some records read'
      : parsed.records.length > 0
        ? 'read'
        : 'refused',
  );
}

function run(name: string, runs: number, inputs: fc.Arbitrary<string>): void {
  const tally = new Tally();
  fc.assert(
    fc.property(inputs, (content) => ingest(content, tally)),
    fuzzParameters(runs),
  );
  console.log(describeRun(name, tally.total, tally.counts));
  expect(tally.total).to.be.greaterThan(0);
}

describe('ingest formats under fuzzing', function () {
  this.timeout(120_000);

  it('every seed document is read as at least one record before mutation', () => {
    console.log(
      `      ${XML_SEEDS.length} XML and ${JSON_SEEDS.length} JSON seed documents` +
        ' (repository samples included)',
    );
    for (const seed of [...XML_SEEDS, ...JSON_SEEDS.map((value) => JSON.stringify(value))]) {
      const parsed = parseDocuments(seed);
      expect(parsed.failures, seed.slice(0, 200)).to.deep.equal([]);
      parsed.records.forEach(checkRecord);
    }
  });

  it('mutated XML records (ISO 19139, ISO 19115-3, Dublin Core) → records or typed failures', () => {
    const inputs = fc
      .nat({ max: XML_SEEDS.length - 1 })
      .chain((i) => defined(mutators.xml[i], `XML mutator ${i}`));
    run('XML records', RUNS.xml, inputs);
  });

  it('mutated JSON records (STAC Item/Collection, OGC Record, collections, NDJSON) → records or typed failures', () => {
    const inputs = fc
      .tuple(
        fc
          .nat({ max: JSON_SEEDS.length - 1 })
          .chain((i) => defined(mutators.json[i], `JSON mutator ${i}`)),
        fc.nat({ max: 4 }),
      )
      .map(([value, shape]) => {
        if (shape === 0) return `${JSON.stringify(value)}\n${JSON.stringify(value)}\n`; // NDJSON
        if (shape === 1) return JSON.stringify([value, JSON_SEEDS[0]]);
        return JSON.stringify(value);
      });
    run('JSON records', RUNS.json, inputs);
  });

  it('garbage and mutated text → typed failures, never a crash', () => {
    const seedText = [...XML_SEEDS.slice(0, 4), JSON.stringify(JSON_SEEDS[0])];
    const inputs = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
      fc.constantFrom(...seedText).chain(mutateString),
      fc.string({
        unit: fc.constantFrom(
          '<',
          '>',
          '/',
          'a',
          ' ',
          '=',
          '"',
          '{',
          '}',
          '[',
          ']',
          ':',
          ',',
          '\n',
        ),
        maxLength: 80,
      }),
    );
    run('garbage', RUNS.garbage, inputs);
  });

  // Built once: each mutator analyses its seed document.
  const mutators = {
    xml: XML_SEEDS.map(mutateXml),
    json: JSON_SEEDS.map(mutateJsonValue),
  };
});
