import { defineProvider } from '../define-provider';
import { openaiAttachments } from '../built-in-attachments';
import { openaiAccountHooks } from '../openai/account-hooks';
import type { Response } from 'openai/resources/responses/responses';
import { batchAnswer, openaiBatch } from '../openai/batch';
import { callOpenAIResponses } from './call-openai-responses';
import { fromResponsesResponse } from './convert-response';
import { openaiResponsesProviderName, prepareResponsesRequest } from './prepare-request';

/**
 * The OpenAI Responses API (`openai-responses:<model>`): the API OpenAI recommends
 * for agents, and the one that keeps a reasoning model's reasoning across tool
 * calls (encrypted, nothing stored at OpenAI). OPENAI_BASE_URL honoured.
 */
export const openaiResponsesProvider = defineProvider({
  name: openaiResponsesProviderName,
  attachments: openaiAttachments,
  ...openaiAccountHooks,
  call: callOpenAIResponses,
  // The body the online call sends (never streamed), answered as a Response read by the online converter.
  batch: openaiBatch({
    endpoint: '/v1/responses',
    prepare: prepareResponsesRequest,
    convert: (body, call) =>
      fromResponsesResponse(batchAnswer<Response>(body), { provider: openaiResponsesProviderName, model: call.model }),
  }),
});
