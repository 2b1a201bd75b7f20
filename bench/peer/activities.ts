import { textChunk } from '../support/bench-tools';

/** The peer's tool, as an activity: the same ~2 KB of text per turn our `bench_text` returns. */
export const peerActivities = {
  async benchText(input: { turn: number }): Promise<string> {
    return textChunk(input.turn);
  },
};

export type PeerActivities = typeof peerActivities;
