/**
 * parseEngineJson (shared/search/engine/engine-reads.ts) against the OpenSearch client's own
 * parser (its Serializer, secure-json-parse underneath): the same answers accepted, the same
 * refused, for keys that would poison a prototype, spelt plainly or with escapes.
 */
import { expect } from 'chai';
import { Serializer } from '@opensearch-project/opensearch';
import { parseEngineJson } from '../../../shared/search/engine/engine-reads.js';

const serializer = new Serializer();

function outcome(parse: (text: string) => unknown, text: string): unknown {
  try {
    return { value: parse(text) };
  } catch {
    return 'refused';
  }
}

const ACCEPTED = [
  '{"hits":{"total":{"value":2},"hits":[{"_id":"a","_source":{"title":"ünïcödé"}}]}}',
  '{"title":"the constructor of the __proto__ chain","text":"a \\u0001 control"}',
  '{"constructor":"a string, not an object"}',
  '{"constructor":{"name":"no prototype key"}}',
  '{"list":[1,2,{"protocol":"OGC:WMS"}]}',
  '[]',
  '"text"',
];

const REFUSED = [
  '{"__proto__":{"polluted":true}}',
  '{"hits":{"hits":[{"_source":{"__proto__":{"x":1}}}]}}',
  '{"\\u005f_proto__":{"x":1}}',
  '{"__pr\\u006fto__":{"x":1}}',
  '{"a":[{"constructor":{"prototype":{"x":1}}}]}',
  '{"\\u0063onstructor":{"prototype":{}}}',
];

describe('parsing engine answers (parseEngineJson)', () => {
  it('accepts what the OpenSearch client accepts, with the same value', () => {
    for (const text of ACCEPTED) {
      const ours = outcome(parseEngineJson, text);
      expect(ours, text).to.not.equal('refused');
      expect(ours, text).to.deep.equal(outcome((t) => serializer.deserialize(t), text));
    }
  });

  it('refuses what the OpenSearch client refuses: __proto__ and constructor.prototype keys', () => {
    for (const text of REFUSED) {
      expect(
        outcome((t) => serializer.deserialize(t), text),
        text,
      ).to.equal('refused');
      expect(outcome(parseEngineJson, text), text).to.equal('refused');
    }
  });

  it('refuses text that is not JSON', () => {
    expect(() => parseEngineJson('{"a":')).to.throw(SyntaxError);
  });
});
