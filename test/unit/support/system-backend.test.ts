/**
 * The choice of backend for the system suites (test/support/system-backend.ts): what
 * CAIRN_TEST_SYSTEM_BACKEND and CAIRN_TEST_SYSTEM_SPATIAL select, and that a wrong value or a
 * missing engine URL is an error that says what to set, never a silent fall-back to SQLite.
 */
import { expect } from 'chai';
import { chosenBackendKind, engineUrl, systemBackend } from '../../support/system-backend.js';

const VARIABLES = [
  'CAIRN_TEST_SYSTEM_BACKEND',
  'CAIRN_TEST_SYSTEM_SPATIAL',
  'CAIRN_TEST_ELASTICSEARCH_URL',
  'CAIRN_TEST_OPENSEARCH_URL',
] as const;

describe('system suite backend selection', () => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const name of VARIABLES) {
      saved.set(name, process.env[name]);
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of VARIABLES) {
      const value = saved.get(name);
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('runs on SQLite when nothing is chosen', () => {
    expect(chosenBackendKind()).to.equal(undefined);
    expect(systemBackend()).to.deep.equal({ kind: 'sqlite', label: 'SQLite' });
  });

  it('runs each engine in its production spatial mode unless one is given', () => {
    process.env.CAIRN_TEST_SYSTEM_BACKEND = 'elasticsearch';
    process.env.CAIRN_TEST_ELASTICSEARCH_URL = 'http://127.0.0.1:9250';
    expect(systemBackend()).to.deep.equal({
      kind: 'elasticsearch',
      label: 'Elasticsearch (envelope)',
      url: 'http://127.0.0.1:9250',
      spatial: 'envelope',
    });
    process.env.CAIRN_TEST_SYSTEM_BACKEND = 'opensearch';
    expect(systemBackend()).to.include({ kind: 'opensearch', spatial: 'shape', url: undefined });
    process.env.CAIRN_TEST_SYSTEM_SPATIAL = 'envelope';
    expect(systemBackend()).to.include({ label: 'OpenSearch (envelope)', spatial: 'envelope' });
  });

  it('refuses unknown values, naming the variable', () => {
    process.env.CAIRN_TEST_SYSTEM_BACKEND = 'postgres';
    expect(() => systemBackend()).to.throw(/CAIRN_TEST_SYSTEM_BACKEND=postgres/);
    process.env.CAIRN_TEST_SYSTEM_BACKEND = 'opensearch';
    process.env.CAIRN_TEST_SYSTEM_SPATIAL = 'points';
    expect(() => systemBackend()).to.throw(/CAIRN_TEST_SYSTEM_SPATIAL=points/);
  });

  it('fails on an engine without its URL, saying which variable to set', () => {
    process.env.CAIRN_TEST_SYSTEM_BACKEND = 'opensearch';
    expect(() => engineUrl(systemBackend())).to.throw(/needs CAIRN_TEST_OPENSEARCH_URL/);
  });
});
