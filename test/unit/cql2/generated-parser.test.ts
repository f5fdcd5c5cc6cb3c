/**
 * The committed generated parser must be what scripts/build-grammars.ts makes from the
 * grammar today, and the committed CQL2 JSON schema must be the official one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { findStaleFiles } from '../../../scripts/build-grammars.js';
import { REPO_ROOT, CQL2_DATA_DIR } from '../../support/fixtures.js';

describe('generated grammar parsers', function () {
  this.timeout(60_000);

  it('are up to date with their grammars (run `npx tsx scripts/build-grammars.ts`)', async function () {
    expect(await findStaleFiles()).to.deep.equal([]);
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
