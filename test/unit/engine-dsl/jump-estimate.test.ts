import { expect } from 'chai';
import {
  buildFirstRound,
  buildSecondRound,
  estimateSampleRank,
  findClosestBelow,
} from '../../../shared/search/engine/jump-estimate.js';

describe('jump estimate (deep pages in the index order)', () => {
  describe('estimateSampleRank', () => {
    it('puts the target in the middle of the samples, a standard deviation wide', () => {
      // σ = √(500 · 0.5 · 0.5) ≈ 11.2 samples.
      expect(estimateSampleRank(50_001, 100_000, 500)).to.deep.equal({
        target: 50_000,
        estimate: 250,
        step: 12,
        fromStart: false,
      });
    });

    it('counts from the start below the middle of the matches', () => {
      // σ = √(500 · 0.25 · 0.75) ≈ 9.7 samples.
      expect(estimateSampleRank(25_001, 100_000, 500)).to.deep.equal({
        target: 25_000,
        estimate: 125,
        step: 10,
        fromStart: true,
      });
    });

    it('counts from the end from the middle on', () => {
      expect(estimateSampleRank(50, 100, 500).fromStart).to.equal(true);
      expect(estimateSampleRank(51, 100, 500).fromStart).to.equal(false);
    });

    it('estimates the first sample, a step of 1, at the first offset', () => {
      expect(estimateSampleRank(1, 100_000, 500)).to.deep.equal({
        target: 0,
        estimate: 0,
        step: 1,
        fromStart: true,
      });
    });

    it('estimates the last sample at the last match', () => {
      expect(estimateSampleRank(100_000, 100_000, 500)).to.deep.equal({
        target: 99_999,
        estimate: 499,
        step: 1,
        fromStart: false,
      });
    });

    it('has nothing to estimate from without samples', () => {
      expect(estimateSampleRank(50_001, 100_000, 0)).to.deep.include({ estimate: 0, step: 1 });
    });

    it('scales with the number of samples, not the matches', () => {
      expect(estimateSampleRank(151, 300, 300)).to.deep.equal({
        target: 150,
        estimate: 150,
        step: 9,
        fromStart: false,
      });
    });
  });

  describe('buildFirstRound', () => {
    it('takes nine samples a step apart around the estimate', () => {
      expect(buildFirstRound(estimateSampleRank(50_001, 100_000, 500))).to.deep.equal([
        202, 214, 226, 238, 250, 262, 274, 286, 298,
      ]);
    });

    it('leaves indices below the first sample for the counting to drop', () => {
      expect(buildFirstRound(estimateSampleRank(1, 100_000, 500))).to.deep.equal([
        -4, -3, -2, -1, 0, 1, 2, 3, 4,
      ]);
    });
  });

  describe('findClosestBelow', () => {
    const ranked = new Map([
      [3, 100],
      [5, 180],
      [7, 260],
    ]);

    it('finds the highest counted rank at or below the target', () => {
      expect(findClosestBelow(ranked, 200)).to.deep.equal({ index: 5, rank: 180 });
      expect(findClosestBelow(ranked, 180)).to.deep.equal({ index: 5, rank: 180 });
      expect(findClosestBelow(ranked, 1_000)).to.deep.equal({ index: 7, rank: 260 });
    });

    it('starts from the start when every counted rank is above the target', () => {
      expect(findClosestBelow(ranked, 99)).to.deep.equal({ index: -1, rank: 0 });
      expect(findClosestBelow(new Map(), 50)).to.deep.equal({ index: -1, rank: 0 });
    });

    it('prefers the start to a sample of rank 0 (the same place)', () => {
      expect(findClosestBelow(new Map([[0, 0]]), 10)).to.deep.equal({ index: -1, rank: 0 });
    });
  });

  describe('buildSecondRound', () => {
    const at = (target: number, step: number) => ({
      target,
      estimate: 0,
      step,
      fromStart: true,
    });

    it('takes the samples between the closest below and the next counted above', () => {
      const ranked = new Map([
        [3, 100],
        [5, 180],
        [8, 260],
      ]);
      expect(buildSecondRound(ranked, at(200, 12), 10)).to.deep.equal([6, 7]);
    });

    it('takes at most two steps of samples', () => {
      expect(buildSecondRound(new Map([[3, 100]]), at(200, 2), 10)).to.deep.equal([4, 5, 6, 7]);
    });

    it('runs to the last sample when none above the target was counted', () => {
      expect(buildSecondRound(new Map([[3, 100]]), at(200, 12), 10)).to.deep.equal([
        4, 5, 6, 7, 8, 9,
      ]);
    });

    it('starts at the first sample when none below the target was counted', () => {
      expect(buildSecondRound(new Map([[2, 300]]), at(200, 12), 10)).to.deep.equal([0, 1]);
    });

    it('has nothing to count between neighbours', () => {
      const ranked = new Map([
        [4, 190],
        [5, 210],
      ]);
      expect(buildSecondRound(ranked, at(200, 12), 10)).to.deep.equal([]);
    });
  });

  it('lands exactly on the target when the samples are evenly spread', () => {
    // 500 samples of 100,000 matches, one every 200: sample i has rank 200·i.
    const estimate = estimateSampleRank(60_001, 100_000, 500);
    const ranked = new Map(
      buildFirstRound(estimate)
        .filter((index) => index >= 0 && index < 500)
        .map((index) => [index, 200 * index]),
    );
    expect(findClosestBelow(ranked, estimate.target)).to.deep.equal({ index: 300, rank: 60_000 });
    // σ ≈ 11 samples: the second round still counts those up to the next counted one.
    expect(buildSecondRound(ranked, estimate, 500)).to.deep.equal([
      301, 302, 303, 304, 305, 306, 307, 308, 309, 310,
    ]);
  });
});
