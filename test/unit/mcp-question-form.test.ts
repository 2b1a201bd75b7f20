import type { PendingApproval } from '../../core/result';
import { acceptedArguments, approvalForm, question, reasonForm } from '../../serve/mcp/elicit-approvals';

// How `agent mcp` puts a request to its MCP client's user (both revisions share these): a call to approve gets the
// reason and edited-arguments form; a tool's question (a remote agent asking the run's person) gets its own fields.

const call: PendingApproval = {
  id: 'call_w',
  tool: 'write_file',
  summary: 'write_file "a.txt"',
  description: 'write_file "a.txt" (1 byte, 1 line)',
  agents: ['default'],
  askedAt: '2026-12-03T08:00:00.000Z',
  rule: 'approveTools',
};
const asked: PendingApproval = {
  ...call,
  id: 'call_book',
  tool: 'remote_helper',
  summary: 'remote_helper asks: Which day?',
  description: 'remote_helper asks: Which day?\nApprove to answer, with arguments: …',
  rule: 'tool_question',
  // A hostile schema may name its own `reason`: the decline's reason keeps its meaning.
  question: { schema: { type: 'object', properties: { answer: { type: 'string' }, reason: { type: 'number' } } } },
};

it("asks a call's approval with the reason and arguments form, and approves with the arguments given", () => {
  expect(approvalForm(call)).toBe(reasonForm);
  expect(question(call)).toBe('Approve write_file "a.txt" (1 byte, 1 line)?');
  expect(acceptedArguments(call, { arguments: ' {"path":"b.txt"} ', reason: 'x' })).toBe('{"path":"b.txt"}');
});

it("asks a tool's question in its own fields, and approves with the answer (the reason left out)", () => {
  expect(approvalForm(asked)).toEqual({
    type: 'object',
    properties: { answer: { type: 'string' }, reason: reasonForm.properties.reason },
  });
  expect(question(asked).split('\n')[0]).toBe('remote_helper asks: Which day?');
  expect(acceptedArguments(asked, { answer: 'Tuesday', reason: 'ignored' })).toBe('{"answer":"Tuesday"}');
  expect(acceptedArguments(asked, {})).toBe('');
});
