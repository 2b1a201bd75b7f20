import { afterAnswer, firstQuestion } from '../../activities/mcp/input-required';
import { questionOutput } from '../../activities/tool-activity';
import { maxResumeChars, PersonInputNeeded } from '../../core/tool-question';

// A 2026-07-28 MCP tool's input_required, as questions to the person (activities/mcp/input-required.ts). The server
// is untrusted: what it asks for that a person cannot give is refused, and what it would put in history is bounded.

const elicit = (message: string, properties: Record<string, unknown> = {}) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties } },
});

it('asks several elicitations one at a time, then retries once with every answer and the state echoed', () => {
  const asked = firstQuestion('docs_ask', {
    inputRequired: {
      inputRequests: { a: elicit('First?'), b: elicit('Second?', { why: { type: 'string' } }) },
      requestState: 'st',
    },
  });
  expect(asked).toBeInstanceOf(PersonInputNeeded);
  const first = (asked as PersonInputNeeded).question;
  expect(first).toMatchObject({ text: 'First?' });
  expect(first.schema).toBeUndefined();
  const second = afterAnswer('docs_ask', { accepted: true, content: {}, resume: first.resume });
  expect((second as PersonInputNeeded).question).toMatchObject({ text: 'Second?', schema: { properties: { why: {} } } });
  const retry = afterAnswer('docs_ask', {
    accepted: true,
    content: { why: 'because' },
    resume: (second as PersonInputNeeded).question.resume,
  });
  expect(retry).toEqual({
    retry: {
      inputResponses: { a: { action: 'accept', content: {} }, b: { action: 'accept', content: { why: 'because' } } },
      requestState: 'st',
    },
  });
});

it('refuses what no person here can give: sampling, roots, a URL to open', () => {
  const refusals = [
    { method: 'sampling/createMessage', params: {} },
    { method: 'roots/list' },
    { method: 'elicitation/create', params: { mode: 'url', url: 'https://evil.example/login', message: 'Sign in' } },
  ].map((request) => firstQuestion('docs_ask', { inputRequired: { inputRequests: { x: request } } }));
  expect(refusals).toEqual([
    'not run: the MCP tool docs_ask asked for a model completion (sampling), which this client does not give',
    'not run: the MCP tool docs_ask asked for its roots (roots/list), which this client does not give',
    'not run: the MCP tool docs_ask asked for a URL to be opened (url elicitation), which this client does not give',
  ]);
});

it('keeps a server state too large for history out of it: the call is refused, the model told', () => {
  const asked = firstQuestion('docs_ask', {
    inputRequired: { inputRequests: { a: elicit('Sure?') }, requestState: 'x'.repeat(maxResumeChars + 1) },
  }) as PersonInputNeeded;
  expect(() => questionOutput('docs_ask', asked, true)).toThrow('not run: docs_ask asked a question too large to keep');
  // A run that cannot ask (an older run, a tool that may not) refuses rather than leave a question no one sees.
  expect(() => questionOutput('docs_ask', new PersonInputNeeded({ text: 'Sure?', resume: {} }), false)).toThrow(
    "not run: docs_ask asked for the person's input, which this run cannot ask for: Sure?",
  );
});

it('a decline is the model to read, and sends nothing', () => {
  expect(afterAnswer('docs_ask', { accepted: false, reason: 'denied: not now', resume: {} })).toEqual({
    declined: "not run: the person declined the MCP tool docs_ask's question (denied: not now)",
  });
});
