import { checkResolvedInput } from '../../core/input-check';
import { applyContextView } from '../../core/context-view';
import type { AttachmentPart } from '../../core/attachments';
import type { Message } from '../../core/messages';
import { resolveAgentInput } from '../../core/resolve-input';

const chart: AttachmentPart = { type: 'attachment', ref: 'c'.repeat(64), mediaType: 'image/png', size: 1234, name: 'chart.png' };
const conversation: Message[] = [
  { role: 'user', content: 'What is in the chart?', attachments: [chart] },
  { role: 'assistant', content: 'Bars.', toolCalls: [] },
  { role: 'user', content: 'And in this one?', attachments: [{ ...chart, ref: 'd'.repeat(64), name: 'other.png' }] },
  { role: 'assistant', content: 'Lines.', toolCalls: [] },
];

describe('references survive what copies messages', () => {
  it("a fork (initial messages) keeps each message's references, on both sides of the input check", () => {
    const input = { workspace: '/tmp', model: 'openai:gpt-4o-mini', messages: conversation, session: { idleTimeoutSeconds: 60 } };
    const resolved = resolveAgentInput(input);
    expect(resolved.ok && resolved.input.messages).toEqual(conversation);
    const checked = checkResolvedInput(resolved.ok ? resolved.input : undefined);
    expect(checked.ok && checked.input.messages).toEqual(conversation);
  });

  it('compaction keeps the references of the turns it keeps; the summary replaces the older ones', () => {
    const view = applyContextView(conversation, { summary: { content: 'the user sent a bar chart', upTo: 2 } });
    expect(view.slice(1)).toEqual(conversation.slice(2));
    expect(view[0]).toEqual({ role: 'user', content: expect.stringContaining('the user sent a bar chart') });
    expect(applyContextView(conversation, { compactAfterTurns: 0 })[0]).toEqual(conversation[0]);
  });

  it("refuses a prompt's attachments without a prompt, and a forged part, in both checks", () => {
    const base = resolveAgentInput({ workspace: '/tmp', model: 'openai:gpt-4o-mini', prompt: 'look', attachments: [chart] });
    expect(base.ok && base.input.attachments).toEqual([chart]);
    const resolved = base.ok ? base.input : ({} as never);
    const { prompt: _prompt, ...without } = resolved;
    const refusal = { ok: false, problems: expect.stringContaining('attachments go with a prompt') };
    expect(checkResolvedInput(without)).toEqual(refusal);
    expect(resolveAgentInput({ workspace: '/tmp', model: 'openai:gpt-4o-mini', attachments: [chart] })).toEqual(refusal);
    const forged = { ...resolved, attachments: [{ ...chart, ref: '../../etc/passwd' }] };
    expect(checkResolvedInput(forged)).toEqual({ ok: false, problems: expect.stringContaining('attachments') });
    expect(resolveAgentInput({ ...forged, agent: undefined })).toEqual({
      ok: false,
      problems: expect.stringContaining('attachments'),
    });
  });
});
