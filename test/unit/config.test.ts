import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { ConfigError, describeStartupFailure, loadConfig } from '../../shared/config/index.js';

describe('configuration', () => {
  it('defaults to the embedded SQLite backend on 127.0.0.1:8000', () => {
    const config = loadConfig({});
    expect(config.search).to.deep.equal({
      kind: 'sqlite',
      path: 'data/cairn.sqlite',
      readWorkers: availableParallelism(),
      readQueueLimit: 256,
    });
    expect(config.host).to.equal('127.0.0.1');
    expect(config.port).to.equal(8000);
    expect(Object.isFrozen(config.limits)).to.equal(true);
  });

  it('chooses the search engine when its URL is set', () => {
    const config = loadConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:9250' });
    expect(config.search).to.include({
      kind: 'elasticsearch',
      url: 'http://127.0.0.1:9250',
      alias: 'cairn-records',
    });
    const tuned = loadConfig({
      OPENSEARCH_URL: 'http://127.0.0.1:9251',
      SEARCH_SPATIAL_MODE: 'envelope',
      SEARCH_REFRESH: 'wait_for',
    });
    expect(tuned.search).to.include({
      kind: 'opensearch',
      spatial: 'envelope',
      refresh: 'wait_for',
    });
    expect(() => loadConfig({ SEARCH_SPATIAL_MODE: 'circles' })).to.throw(
      ConfigError,
      /SEARCH_SPATIAL_MODE/,
    );
  });

  it("takes the engine refresh interval as an engine time value, unset (the engine's) by default", () => {
    const engine = { ELASTICSEARCH_URL: 'http://127.0.0.1:9250' };
    const search = loadConfig(engine).search;
    expect(search.kind).to.equal('elasticsearch');
    expect(search).to.have.property('refreshInterval', undefined);
    for (const value of ['30s', '500ms', '2m', '-1'])
      expect(loadConfig({ ...engine, SEARCH_REFRESH_INTERVAL: value }).search).to.include({
        refreshInterval: value,
      });
    for (const value of ['30', 'soon', '0s', '1h30m'])
      expect(() => loadConfig({ ...engine, SEARCH_REFRESH_INTERVAL: value })).to.throw(
        ConfigError,
        /SEARCH_REFRESH_INTERVAL/,
      );
  });

  it('takes the index layout: one shard and auto-expanded replicas by default', () => {
    const engine = { OPENSEARCH_URL: 'http://127.0.0.1:9251' };
    expect(loadConfig(engine).search).to.deep.include({ shards: 1, replicas: undefined });
    expect(
      loadConfig({ ...engine, SEARCH_SHARDS: '6', SEARCH_REPLICAS: '1' }).search,
    ).to.deep.include({ shards: 6, replicas: 1 });
    expect(loadConfig({ ...engine, SEARCH_REPLICAS: '0' }).search).to.deep.include({
      replicas: 0,
    });
    for (const [name, value] of [
      ['SEARCH_SHARDS', '0'],
      ['SEARCH_SHARDS', 'many'],
      ['SEARCH_REPLICAS', '-1'],
      ['SEARCH_REPLICAS', '1.5'],
    ] satisfies [string, string][])
      expect(() => loadConfig({ ...engine, [name]: value })).to.throw(ConfigError, name);
  });

  it('takes the cap on candidates refined in Node: 10,000 by default', () => {
    const engine = { ELASTICSEARCH_URL: 'http://127.0.0.1:9250' };
    expect(loadConfig(engine).search).to.deep.include({ refineMaxCandidates: 10_000 });
    expect(loadConfig({ ...engine, SEARCH_REFINE_MAX_CANDIDATES: '500' }).search).to.deep.include({
      refineMaxCandidates: 500,
    });
    for (const value of ['-1', 'all', '1.5'])
      expect(() => loadConfig({ ...engine, SEARCH_REFINE_MAX_CANDIDATES: value })).to.throw(
        ConfigError,
        'SEARCH_REFINE_MAX_CANDIDATES',
      );
  });

  it('takes the shared checkpoint limits: 10 minutes idle and 512 per query by default', () => {
    const engine = { OPENSEARCH_URL: 'http://127.0.0.1:9251' };
    expect(loadConfig(engine).search).to.deep.include({
      checkpoints: { idleSeconds: 600, perQuery: 512 },
    });
    expect(
      loadConfig({
        ...engine,
        SEARCH_CHECKPOINT_IDLE_SECONDS: '120',
        SEARCH_CHECKPOINTS_PER_QUERY: '64',
      }).search,
    ).to.deep.include({ checkpoints: { idleSeconds: 120, perQuery: 64 } });
    for (const [name, value] of [
      ['SEARCH_CHECKPOINT_IDLE_SECONDS', '0'],
      ['SEARCH_CHECKPOINT_IDLE_SECONDS', 'soon'],
      ['SEARCH_CHECKPOINTS_PER_QUERY', '0'],
      ['SEARCH_CHECKPOINTS_PER_QUERY', '2.5'],
    ] satisfies [string, string][])
      expect(() => loadConfig({ ...engine, [name]: value })).to.throw(ConfigError, name);
  });

  it('lists every invalid value at once', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        LIMIT_MAX: '0',
        ELASTICSEARCH_URL: 'not a url',
        LOG_LEVEL: 'loud',
      });
      expect.fail('expected a ConfigError');
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'LIMIT_MAX', 'ELASTICSEARCH_URL', 'LOG_LEVEL'])
        expect(problems).to.contain(name);
    }
  });

  it('refuses a default limit above the maximum and two search engines at once', () => {
    expect(() => loadConfig({ LIMIT_DEFAULT: '50', LIMIT_MAX: '20' })).to.throw(
      ConfigError,
      /LIMIT_DEFAULT/,
    );
    expect(() =>
      loadConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:1', OPENSEARCH_URL: 'http://127.0.0.1:2' }),
    ).to.throw(ConfigError, /at most one/);
  });

  it('takes the refusal pace (10 a second, a burst of 20, held at most 1 s), held at most half the time budget', () => {
    expect(loadConfig({}).refusalPace).to.deep.equal({
      perSecond: 10,
      burst: 20,
      maxDelayMs: 1000,
    });
    expect(loadConfig({ QUERY_TIME_BUDGET_MS: '200' }).refusalPace.maxDelayMs).to.equal(100);
    expect(
      loadConfig({ REFUSAL_PACE_MAX_DELAY_MS: '5000', QUERY_TIME_BUDGET_MS: '3000' }).refusalPace
        .maxDelayMs,
    ).to.equal(1500);
  });
});

describe('describeStartupFailure', () => {
  it('prints a configuration error as its problems and anything else as one line', () => {
    expect(describeStartupFailure('Cairn worker', new ConfigError(['PORT: too big']))).to.equal(
      'Invalid configuration:\n  - PORT: too big',
    );
    expect(describeStartupFailure('Cairn worker', new Error('no route to host'))).to.equal(
      'Cairn worker failed to start: no route to host',
    );
    expect(describeStartupFailure('Cairn API', 'odd')).to.equal('Cairn API failed to start: odd');
  });
});
