/**
 * The result cache's parts without I/O: the answer store (generation, age, byte bound, least
 * recently used out first), the request key, the paths it sees, If-None-Match comparison,
 * and the generation wrapper advancing after every write (even a failed one) and never
 * after a read.
 */
import { expect } from 'chai';
import type { Request } from 'express';
import {
  AnswerStore,
  answerBytes,
  type StoredAnswer,
} from '../../services/api/middleware/answer-store.js';
import {
  isCachedPath,
  matchesIfNoneMatch,
  requestKey,
  strongEtag,
} from '../../services/api/middleware/result-cache.js';
import {
  LocalGeneration,
  withGenerationAdvance,
} from '../../shared/search/catalogue-generation.js';
import type { SearchBackend } from '../../shared/search/backend.js';

function answer(generation: string, bytes: number, storedAt = Date.now()): StoredAnswer {
  const body = Buffer.alloc(bytes, 'a');
  return {
    generation,
    storedAt,
    headers: [],
    body,
    etag: strongEtag(body),
    route: '/r',
    bytes: answerBytes('k', body, []),
  };
}

describe('result cache', () => {
  describe('AnswerStore', () => {
    const limits = { maxBytes: 10_000, maxEntryBytes: 4_000, maxAgeMs: 60_000 };

    it('gives an answer back only at the generation it was kept under', () => {
      const store = new AnswerStore(limits);
      store.set('k', answer('7', 100));
      expect(store.get('k', '8')).to.equal(undefined);
      // The stale answer was dropped on the way, not only hidden.
      expect(store.size).to.equal(0);
      expect(store.bytes).to.equal(0);
      store.set('k', answer('8', 100));
      expect(store.get('k', '8')?.generation).to.equal('8');
    });

    it('drops an answer older than the maximum age', () => {
      const store = new AnswerStore(limits);
      store.set('k', answer('1', 100, 1_000));
      expect(store.get('k', '1', 1_000 + 60_000)).to.not.equal(undefined);
      expect(store.get('k', '1', 1_000 + 60_001)).to.equal(undefined);
    });

    it('keeps no answer larger than the entry bound', () => {
      const store = new AnswerStore(limits);
      store.set('k', answer('1', 4_001));
      expect(store.size).to.equal(0);
      expect(store.accepts(4_000)).to.equal(true);
    });

    it('stays within its byte bound, dropping the least recently used first', () => {
      const store = new AnswerStore(limits);
      for (const key of ['a', 'b', 'c']) store.set(key, answer('1', 3_000));
      // a is used, so b is the least recently used when d comes.
      expect(store.get('a', '1')).to.not.equal(undefined);
      store.set('d', answer('1', 3_000));
      expect(store.bytes).to.be.at.most(limits.maxBytes);
      expect(store.get('b', '1')).to.equal(undefined);
      expect(store.get('a', '1')).to.not.equal(undefined);
      expect(store.get('d', '1')).to.not.equal(undefined);
    });
  });

  describe('request key', () => {
    const keyOf = (url: string, headers: Record<string, string> = {}): string =>
      requestKey({
        originalUrl: url,
        publicBaseUrl: 'http://example.org',
        headers,
      } as unknown as Request);

    it('orders parameters by name and keeps the order of a repeated name', () => {
      expect(keyOf('/catalogue/search?limit=2&bbox=1,2,3,4')).to.equal(
        keyOf('/catalogue/search?bbox=1,2,3,4&limit=2'),
      );
      expect(keyOf('/catalogue/search?ids=a&ids=b')).to.not.equal(
        keyOf('/catalogue/search?ids=b&ids=a'),
      );
    });

    it('holds the base URL, Accept and Accept-Language', () => {
      const base = keyOf('/catalogue');
      expect(keyOf('/catalogue', { accept: 'text/html' })).to.not.equal(base);
      expect(keyOf('/catalogue', { 'accept-language': 'fr' })).to.not.equal(base);
      const other = requestKey({
        originalUrl: '/catalogue',
        publicBaseUrl: 'http://other.example.org',
        headers: {},
      } as unknown as Request);
      expect(other).to.not.equal(base);
    });
  });

  it('sees the public reads under /catalogue, not the admin pages however spelt', () => {
    expect(isCachedPath('/catalogue')).to.equal(true);
    expect(isCachedPath('/catalogue/collections/metadata:main/items')).to.equal(true);
    expect(isCachedPath('/catalogue/admin')).to.equal(false);
    expect(isCachedPath('/catalogue/Admin/jobs')).to.equal(false);
    expect(isCachedPath('/catalogue/%61dmin/jobs')).to.equal(false);
    expect(isCachedPath('/catalogue//admin')).to.equal(false);
    expect(isCachedPath('/catalogue/%E0%A4%A')).to.equal(false);
    expect(isCachedPath('/metrics')).to.equal(false);
    expect(isCachedPath('/healthz')).to.equal(false);
  });

  it('compares If-None-Match weakly, in lists and with *', () => {
    const etag = strongEtag(Buffer.from('body'));
    expect(matchesIfNoneMatch(etag, etag)).to.equal(true);
    expect(matchesIfNoneMatch(`"x", W/${etag}`, etag)).to.equal(true);
    expect(matchesIfNoneMatch('*', etag)).to.equal(true);
    expect(matchesIfNoneMatch('"x"', etag)).to.equal(false);
    expect(matchesIfNoneMatch(undefined, etag)).to.equal(false);
    expect(strongEtag(Buffer.from('other'))).to.not.equal(etag);
  });

  describe('withGenerationAdvance', () => {
    const calls: string[] = [];
    const backend = {
      kind: 'sqlite',
      upsert: () => {
        calls.push('upsert');
        return Promise.resolve({ written: 1, failures: [] });
      },
      delete: () => Promise.reject(new Error('engine down')),
      get: () => Promise.resolve(null),
    } as unknown as SearchBackend;

    it('advances after a write returns, after a failed write too, never after a read', async () => {
      const generation = new LocalGeneration();
      const wrapped = withGenerationAdvance(backend, generation);
      expect(wrapped.kind).to.equal('sqlite');
      await wrapped.get('x');
      expect(await generation.current()).to.equal('0');
      await wrapped.upsert([]);
      expect(calls).to.deep.equal(['upsert']);
      expect(await generation.current()).to.equal('1');
      let failed = false;
      await wrapped.delete(['x']).catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await generation.current()).to.equal('2');
    });
  });
});
