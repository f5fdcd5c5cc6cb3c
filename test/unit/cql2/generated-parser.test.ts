/**
 * The generated parsers (not committed; made by npm ci, the build and test/support/ensure-grammars.ts)
 * must be what scripts/build-grammars.ts makes from the grammars today, and named as
 * scripts/build.mjs expects; the committed CQL2 JSON schema must be the official one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { findStaleFiles, GRAMMARS } from '../../../scripts/build-grammars.js';
import { REPO_ROOT, CQL2_DATA_DIR } from '../../support/fixtures.js';

describe('generated grammar parsers', function () {
  this.timeout(60_000);

  it('are up to date with their grammars (run `npx tsx scripts/build-grammars.ts`)', async function () {
    expect(await findStaleFiles()).to.deep.equal([]);
  });

  it('are named after their grammar, as scripts/build.mjs looks for them', function () {
    for (const spec of GRAMMARS) {
      const base = spec.grammar.replace(/\.peggy$/, '');
      expect(spec.parser).to.equal(`${base}-parser.generated.js`);
      expect(spec.declarations).to.equal(`${base}-parser.generated.d.ts`);
    }
  });

  it('are ignored by git, never committed', function () {
    const ignored = readFileSync(path.join(REPO_ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).to.include.members(['*.generated.js', '*.generated.d.ts']);
  });
});

describe('committed CQL2 JSON schema', function () {
  before(function () {});

  it('is the official schema (formatting aside)', function () {
    const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8')) as unknown;
    expect(read(path.join(REPO_ROOT, 'shared/query/cql2/cql2.schema.json'))).to.deep.equal(
      read(path.join(CQL2_DATA_DIR, 'cql2.schema.json')),
    );
  });
});
