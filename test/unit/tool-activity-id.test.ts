// The patch flag alone is stubbed: toolActivityId asks patched() whether the run records ids from call ids, which
// only a workflow context can answer. Everything else is the real function.
jest.mock('@temporalio/workflow', () => ({ patched: () => true }));

import { toolActivityId } from '../../workflows/tool-activity-id';

describe('toolActivityId', () => {
  it('keeps a well-formed call id as it is', () => {
    expect(toolActivityId('call_abc-123')).toBe('tool-call_abc-123');
    expect(toolActivityId('toolu_01A09q90qw90lq917835lq9')).toBe('tool-toolu_01A09q90qw90lq917835lq9');
  });

  it('never puts a call id that is not well-formed into the id raw: a lone surrogate, 2,000 characters, a slash, control characters', () => {
    for (const id of ['\ud800', 'y'.repeat(2_000), 'a/b c', 'a\u0000b', '\u202eevil', '', 'x'.repeat(65)]) {
      const activityId = toolActivityId(id)!;
      expect(activityId).toMatch(new RegExp(`^tool-h[0-9a-f]{16}-${id.length}$`));
      expect(Buffer.byteLength(activityId)).toBeLessThan(1_000);
      expect(toolActivityId(id)).toBe(activityId);
    }
  });

  it('gives distinct ill-formed ids distinct activity ids, across 20,000 near-identical ones', () => {
    const ids = Array.from({ length: 20_000 }, (_, index) => `same prefix / ${index} \ud800`);
    ids.push('\ud800', '\ud801', '\udc00', '\ud800x', 'x\ud800');
    expect(new Set(ids.map((id) => toolActivityId(id))).size).toBe(ids.length);
  });
});
