/**
 * The pure parts of the engines' id walk (shared/search/engine/id-walk.ts): the body of a walk's
 * search (a range on the sorted id, no count, no source, doc values of `updated` only when
 * asked), the entry read from a hit, and the sampled bounds of a range open above.
 */
import { expect } from 'chai';
import {
  buildWalkBody,
  jumpCandidates,
  readWalkHit,
  sampledBlockEnds,
  type IdSample,
} from '../../../shared/search/engine/id-walk.js';

describe('engine id walk', () => {
  it('searches a range of the sorted id without a count, a source or stored fields', () => {
    const body = buildWalkBody({ after: 'a', through: 'k', from: 9, size: 3, withUpdated: false });
    expect(body).to.deep.equal({
      query: { range: { id: { gt: 'a', lte: 'k' } } },
      sort: [{ id: { order: 'asc' } }],
      from: 9,
      size: 3,
      track_total_hits: false,
      _source: false,
      stored_fields: '_none_',
    });
  });

  it('bounds an open range by the block end, never past through, and reads updated as doc values', () => {
    expect(
      buildWalkBody({ after: 'a', blockEnd: 'f', from: 0, size: 2, withUpdated: true }),
    ).to.deep.include({
      query: { range: { id: { gt: 'a', lt: 'f' } } },
      docvalue_fields: [{ field: 'props.updated', format: 'epoch_millis' }],
    });
    expect(
      buildWalkBody({
        after: 'a',
        through: 'c',
        blockEnd: 'f',
        from: 0,
        size: 2,
        withUpdated: false,
      }).query,
    ).to.deep.equal({ range: { id: { gt: 'a', lte: 'c' } } });
    expect(buildWalkBody({ from: 0, size: 2, withUpdated: false }).query).to.deep.equal({
      match_all: {},
    });
    expect(
      buildWalkBody({ through: 'c', from: 0, size: 2, withUpdated: false }).query,
    ).to.deep.equal({ range: { id: { lte: 'c' } } });
  });

  it('reads the id from the sort value and updated as an ISO instant', () => {
    expect(readWalkHit({ _id: 'x', sort: ['x'] })).to.deep.equal({ id: 'x' });
    expect(
      readWalkHit({ _id: 'x', sort: ['x'], fields: { 'props.updated': ['1714521600000'] } }),
    ).to.deep.equal({ id: 'x', updated: '2024-05-01T00:00:00.000Z' });
    expect(
      readWalkHit({ _id: 'x', sort: ['x'], fields: { 'props.updated': ['not a number'] } }),
    ).to.deep.equal({ id: 'x' });
  });

  describe('sampled bounds of a range open above', () => {
    // 100 records per sampled id.
    const sample: IdSample = {
      ids: Array.from({ length: 50 }, (_, index) => `id-${String(index * 100).padStart(5, '0')}`),
      spacing: 100,
    };

    it('ends a range about one and a half times the ids needed on, then twice and four times as far', () => {
      // 1,000 ids needed: 15 sampled ids on from the first one after `after`.
      expect(sampledBlockEnds(sample, 'id-00050', 1000)).to.deep.equal([
        'id-01600',
        'id-03100',
        // 61 sampled ids on is past the sample: the range is left open then.
      ]);
      expect(sampledBlockEnds(sample, 'id-00100', 100)).to.deep.equal([
        'id-00400',
        'id-00600',
        'id-01000',
      ]);
    });

    it('starts after `after` in UTF-8 order, and gives nothing where the sample ends', () => {
      expect(sampledBlockEnds(sample, '', 1)[0]).to.equal('id-00100');
      expect(sampledBlockEnds(sample, 'id-04850', 10)).to.deep.equal([]);
      expect(sampledBlockEnds({ ids: [], spacing: 1 }, 'a', 10)).to.deep.equal([]);
      const odd: IdSample = { ids: ['a', '\u00e9', '\ufffd', '\u{1f30d}'], spacing: 2 };
      expect(sampledBlockEnds(odd, '\u00e9', 1)).to.deep.equal(['\u{1f30d}']);
    });
  });

  it('jumps toward sampled ids three quarters, a half and a quarter of the reach short of the skip', () => {
    const sample: IdSample = {
      ids: Array.from({ length: 100 }, (_, index) => `id-${String(index * 10).padStart(4, '0')}`),
      spacing: 10,
    };
    // 500 to skip after id-0005, 400 within reach: 200, 300 and 400 records on.
    expect(jumpCandidates(sample, 'id-0005', 500, 400)).to.deep.equal([
      'id-0200',
      'id-0300',
      'id-0400',
    ]);
    expect(jumpCandidates(sample, undefined, 500, 400)[0]).to.equal('id-0190');
    // Not one sampled id on: nothing to jump to; past the sample's end: none.
    expect(jumpCandidates(sample, 'id-0005', 9, 8)).to.deep.equal([]);
    expect(jumpCandidates(sample, 'id-0975', 500, 400)).to.deep.equal([]);
  });
});
