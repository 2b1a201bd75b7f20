import { describeUsage } from '../../cli/usage-text';

describe('usage as the CLI prints it', () => {
  it('says how much of the input came from the prompt cache and how much was cached now, with the cost', () => {
    expect(
      describeUsage({ inputTokens: 5000, outputTokens: 40, cacheReadTokens: 4000, cacheWriteTokens: 900, costUsd: 0.0042 }),
    ).toBe('5000 in / 40 out tokens, 4000 input from cache, 900 cached now, $0.0042');
  });

  it('prints a usage without cache counts as it always did', () => {
    expect(describeUsage({ inputTokens: 200, outputTokens: 40, reasoningTokens: 12 })).toBe(
      '200 in / 40 out tokens, 12 of them thinking',
    );
  });
});
