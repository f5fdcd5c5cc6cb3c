import { expect } from 'chai';
import { ndjsonBody } from '../../../shared/search/engine/engine-adapter.js';

/** The body as the clients would have built it: lines joined by newlines, one at the end. */
const expected = (lines: (object | string)[]): Buffer =>
  Buffer.from(
    `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
  );

describe('bulk request body (ndjsonBody)', () => {
  it('writes action objects and document lines, each followed by a newline', () => {
    const lines = [
      { index: { _id: 'a', _index: 'x' } },
      '{"title":"Harbour"}',
      { delete: { _id: 'b' } },
    ];
    expect(ndjsonBody(lines).equals(expected(lines))).to.equal(true);
  });

  it('encodes text beyond ASCII exactly, growing the buffer where a line needs more bytes', () => {
    const lines = [
      { index: { _id: 'é' } },
      JSON.stringify({ title: 'Île de Pâques', note: '🌊'.repeat(2000) }),
      'ü'.repeat(5000),
      '{"ascii":"after the multi-byte lines"}',
    ];
    const body = ndjsonBody(lines);
    expect(body.equals(expected(lines))).to.equal(true);
    expect(body.toString('utf8').split('\n')).to.have.length(lines.length + 1);
  });

  it('is empty for no operations', () => {
    expect(ndjsonBody([]).length).to.equal(0);
  });
});
