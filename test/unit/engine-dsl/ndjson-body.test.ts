import { expect } from 'chai';
import { BulkBody, ndjsonBody } from '../../../shared/search/engine/engine-adapter.js';
import { defined } from '../../support/defined.js';

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

  it('counts operations and bytes, and gives back a subset of operations for a retry', () => {
    const body = new BulkBody(16);
    body.add({ index: { _id: 'a' } }, '{"title":"Île"}');
    body.add({ delete: { _id: 'b' } });
    body.add({ index: { _id: 'c' } }, '{"title":"C"}');
    expect(body.count).to.equal(3);
    const all = [
      { index: { _id: 'a' } },
      '{"title":"Île"}',
      { delete: { _id: 'b' } },
      { index: { _id: 'c' } },
      '{"title":"C"}',
    ];
    expect(body.toBuffer().equals(expected(all))).to.equal(true);
    expect(body.bytes).to.equal(expected(all).length);
    expect(
      body.toBuffer([2, 0]).equals(expected([3, 4, 0, 1].map((i) => defined(all[i], `line ${i}`)))),
    ).to.equal(true);
    expect(body.toBuffer([1]).equals(expected(all.slice(2, 3)))).to.equal(true);
  });
});
