import { expect } from 'chai';
import {
  BlockWidths,
  FIRST_BLOCK_DROP,
  idBlockEnd,
  isIndexOrder,
} from '../../../shared/search/engine/id-blocks.js';

/** Code point order (the engines' keyword order, UTF-8 bytes), not JavaScript's UTF-16 order. */
const byCodePoints = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('id blocks (deep pages in the index order)', () => {
  it('knows the index order: id ascending alone', () => {
    expect(isIndexOrder([{ id: { order: 'asc' } }])).to.equal(true);
    expect(isIndexOrder([{ id: { order: 'desc' } }])).to.equal(false);
    expect(isIndexOrder([{ updated: { order: 'asc' } }, { id: { order: 'asc' } }])).to.equal(false);
    expect(isIndexOrder([{ _score: { order: 'desc' } }, { id: { order: 'asc' } }])).to.equal(false);
    expect(isIndexOrder([{ id: { order: 'asc', missing: '_first' } }])).to.equal(false);
    expect(isIndexOrder([])).to.equal(false);
  });

  it('ends a block after every id that shares the prefix', () => {
    expect(idBlockEnd('cairn-42-0899999', 2)).to.equal('cairn-42-0899:');
    expect(idBlockEnd('cairn-42-0899999', 5)).to.equal('cairn-42-09');
    expect(idBlockEnd('ab', 1)).to.equal('b');
    expect(idBlockEnd('ab', 2)).to.equal(undefined);
    expect(idBlockEnd('a', 1)).to.equal(undefined);
    expect(idBlockEnd('', 1)).to.equal(undefined);
    // Code points, not UTF-16 units: the astral character is one step.
    expect(idBlockEnd('x\u{1d538}yz', 2)).to.equal('x\u{1d539}');
    // No successor of U+10FFFF: the block of the shorter prefix ends at the same place.
    expect(idBlockEnd('a\u{10ffff}bc', 2)).to.equal('b');
    expect(idBlockEnd('\u{10ffff}\u{10ffff}b', 1)).to.equal(undefined);
    // The successor of U+D7FF is U+E000: surrogates are not characters of a string.
    expect(idBlockEnd('a\u{d7ff}b', 1)).to.equal('a\u{e000}');
  });

  it('holds every id after the checkpoint with the prefix, and none after the block', () => {
    const ids = [
      'a',
      'a0',
      'a09',
      'a1',
      'a1\u{10ffff}',
      'a2',
      'a\u{d7ff}',
      'a\u{e000}',
      'a\u{ffff}',
      'a\u{1d538}',
      'a\u{10ffff}',
      'a\u{10ffff}\u{10ffff}',
      'b',
      'ba',
      'ü',
      '\u{10ffff}',
    ].sort(byCodePoints);
    for (const after of ids) {
      for (let drop = 1; drop <= Array.from(after).length; drop += 1) {
        const end = idBlockEnd(after, drop);
        const prefix = Array.from(after).slice(0, -drop).join('');
        for (const id of ids) {
          if (byCodePoints(id, after) <= 0) continue;
          const inBlock = end === undefined || byCodePoints(id, end) < 0;
          // Every id with the prefix lies in the block; every id in the block sorts before
          // every id beyond it, which is what makes a block's first hits the page.
          if (id.startsWith(prefix)) expect(inBlock, `${after} ${drop} ${id}`).to.equal(true);
          if (end !== undefined) expect(byCodePoints(end, after)).to.be.greaterThan(0);
        }
      }
    }
  });

  it('remembers the block width per query and page size, a bounded number of queries', () => {
    const widths = new BlockWidths(2);
    expect(widths.get('q1', 10)).to.equal(FIRST_BLOCK_DROP);
    widths.set('q1', 10, 4);
    widths.set('q1', 10000, 6);
    expect(widths.get('q1', 10)).to.equal(4);
    expect(widths.get('q1', 10000)).to.equal(6);
    widths.set('q2', 10, 3);
    expect(widths.get('q1', 10)).to.equal(FIRST_BLOCK_DROP);
    expect(widths.get('q2', 10)).to.equal(3);
    widths.clear();
    expect(widths.get('q2', 10)).to.equal(FIRST_BLOCK_DROP);
  });
});
