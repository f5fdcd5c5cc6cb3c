/**
 * The official CQL2 examples (OGC's cql2/standard/schema/examples): every text file parses,
 * its JSON twin parses, both give the same tree, and printing the tree in either encoding and
 * parsing it again gives the tree back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Expression } from '../../../shared/query/filter-ast.js';
import {
  parseCql2Json,
  parseCql2Text,
  printCql2Json,
  printCql2Text,
} from '../../../shared/query/cql2/index.js';
import { CQL2_DATA_DIR } from '../../support/fixtures.js';

const TEXT_DIR = path.join(CQL2_DATA_DIR, 'examples/text');
const JSON_DIR = path.join(CQL2_DATA_DIR, 'examples/json');

interface ExamplePair {
  name: string;
  text: string;
  json: unknown;
}

/** Pairs each text example with its JSON twin (an `-alt01` text with the base JSON). */
function loadExamples(): ExamplePair[] {
  return readdirSync(TEXT_DIR)
    .filter((file) => file.endsWith('.txt'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.txt$/, ''),
      text: readFileSync(path.join(TEXT_DIR, file), 'utf8'),
      json: JSON.parse(
        readFileSync(path.join(JSON_DIR, file.replace(/(-alt01)?\.txt$/, '.json')), 'utf8'),
      ) as unknown,
    }));
}

/** A deep copy with -0 as 0: JSON text cannot keep the sign of zero. */
const withoutNegativeZero = (expression: Expression): unknown =>
  JSON.parse(JSON.stringify(expression)) as unknown;

describe('CQL2 official examples', function () {
  const examples = loadExamples();

  before(function () {});

  it('has 120 text examples (109 JSON twins and 11 alternative spellings)', function () {
    expect(examples).to.have.length(120);
    expect(examples.filter((example) => example.name.endsWith('-alt01'))).to.have.length(11);
    expect(readdirSync(JSON_DIR).filter((file) => file.endsWith('.json'))).to.have.length(109);
  });

  for (const example of examples) {
    describe(example.name, function () {
      it('parses as text and as JSON to the same tree', function () {
        expect(parseCql2Text(example.text)).to.deep.equal(parseCql2Json(example.json));
      });

      it('round-trips through CQL2 text', function () {
        const tree = parseCql2Text(example.text);
        expect(parseCql2Text(printCql2Text(tree))).to.deep.equal(tree);
      });

      it('round-trips through CQL2 JSON (as a value and as JSON text)', function () {
        const tree = parseCql2Json(example.json);
        expect(parseCql2Json(printCql2Json(tree))).to.deep.equal(tree);
        const reread = parseCql2Json(JSON.stringify(printCql2Json(tree)));
        expect(withoutNegativeZero(reread)).to.deep.equal(withoutNegativeZero(tree));
      });
    });
  }
});
