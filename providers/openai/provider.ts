import { defineProvider } from '../define-provider';
import { openaiAttachments } from '../built-in-attachments';
import { openaiAccountHooks } from './account-hooks';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { batchAnswer, openaiBatch } from './batch';
import { callOpenAI } from './call-openai';
import { fromOpenAICompletion } from './convert-response';
import { openaiProviderName, prepareOpenAIRequest } from './prepare-request';

/** OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio) with OPENAI_BASE_URL. */
export const openaiProvider = defineProvider({
  name: openaiProviderName,
  attachments: openaiAttachments,
  ...openaiAccountHooks,
  call: callOpenAI,
  // The body the online call sends (never streamed), answered as a Chat Completion read by the online converter.
  batch: openaiBatch({
    endpoint: '/v1/chat/completions',
    prepare: prepareOpenAIRequest,
    convert: (body, call) =>
      fromOpenAICompletion(batchAnswer<ChatCompletion>(body), { provider: openaiProviderName, model: call.model }),
  }),
});
