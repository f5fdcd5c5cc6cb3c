/** exceedsJsonDepth: nesting measured on JSON text or bytes, ignoring brackets inside strings. */
import { expect } from 'chai';
import { exceedsJsonDepth } from '../../shared/records/formats/json/json-depth.js';
import { parseDocuments } from '../../shared/records/formats/index.js';

describe('JSON depth limit', () => {
  it('counts arrays and objects, not brackets in strings or escaped quotes', () => {
    expect(exceedsJsonDepth('{"a":[{"b":1}]}', 3)).to.equal(false);
    expect(exceedsJsonDepth('{"a":[{"b":1}]}', 2)).to.equal(true);
    expect(exceedsJsonDepth('{"a":"[[[[{{{{\\"[[["}', 1)).to.equal(false);
    expect(exceedsJsonDepth(Buffer.from('[[["]]]"]]]'), 3)).to.equal(false);
    expect(exceedsJsonDepth(Buffer.from('[[[[]]]]'), 3)).to.equal(true);
  });

  it('refuses a record deeper than the limit before parsing it, naming the limit', () => {
    const deep = `{"type":"Feature","id":"d","geometry":null,"properties":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const parsed = parseDocuments(deep, { maxDepth: 64 });
    expect(parsed.records).to.deep.equal([]);
    expect(parsed.failures[0]?.reason).to.match(/nested deeper than 64 levels.*JSON_DEPTH_LIMIT/);
  });
});
