import type { FinishReason } from '../../core/messages';

/**
 * The Responses API says why it stopped through the response's status and,
 * when incomplete, its reason; tool calls are items of a completed response.
 */
export function mapResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  switch (status) {
    case 'completed':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'incomplete':
      if (incompleteReason === 'max_output_tokens') return 'length';
      if (incompleteReason === 'content_filter') return 'content_filter';
      return 'other';
    default:
      return 'other';
  }
}
