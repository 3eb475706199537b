import { describe, expect, it } from 'vitest';
import { plannedCrop } from '@/lib/fields/stats';

const guess = (scores: [string, number][]) => JSON.stringify({ crop_type: scores[0]![0], confidence: scores[0]![1], top_candidates: scores.map(([crop, score]) => ({ crop, score })) });

describe('the crop the statistics count', () => {
  it('is the one a user named, else the classifier’s, but not a near-guess', () => {
    const sure = guess([['wheat', 0.62], ['barley', 0.2], ['corn', 0.1], ['soy', 0.08]]);
    // Within 5 points of the next crop: a guess the pages flag and the statistics do not count.
    const nearGuess = guess([['grass', 0.167], ['potato', 0.159], ['soy', 0.15], ['corn', 0.14], ['wheat', 0.13], ['barley', 0.12], ['rapeseed', 0.1], ['sunflower', 0.034]]);
    expect(plannedCrop({ cropType: null, cropJson: sure })).toBe('wheat');
    expect(plannedCrop({ cropType: null, cropJson: nearGuess })).toBeNull();
    expect(plannedCrop({ cropType: 'oats', cropJson: nearGuess })).toBe('oats');
    expect(plannedCrop({ cropType: null, cropJson: null })).toBeNull();
  });
});
