import { textPieces } from './stream-events';

/**
 * A Responses API reply as the server-sent events the API streams with
 * `stream: true`: created, each output item added, its text (a word at a time) or arguments as
 * deltas and done (a reasoning summary part by part), the item done, then completed (or incomplete) with the whole
 * response, each event numbered in sequence.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function responsesEventStream(response: { output: Array<Record<string, any>>; status?: string }): string[] {
  const events: Array<Record<string, unknown>> = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    events.push({ type, sequence_number: events.length, ...fields });
  emit('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  emit('response.in_progress', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  response.output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'message') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      item.content.forEach((part: Record<string, unknown>, content_index: number) => {
        const empty = part.type === 'output_text' ? { ...part, text: '' } : { ...part, refusal: '' };
        emit('response.content_part.added', { item_id, output_index, content_index, part: empty });
        if (part.type === 'output_text') {
          for (const delta of textPieces(String(part.text)))
            emit('response.output_text.delta', { item_id, output_index, content_index, delta, logprobs: [] });
          emit('response.output_text.done', { item_id, output_index, content_index, text: part.text, logprobs: [] });
        } else {
          emit('response.refusal.delta', { item_id, output_index, content_index, delta: part.refusal });
          emit('response.refusal.done', { item_id, output_index, content_index, refusal: part.refusal });
        }
        emit('response.content_part.done', { item_id, output_index, content_index, part });
      });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      emit('response.function_call_arguments.delta', { item_id, output_index, delta: item.arguments });
      emit('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments, name: item.name });
    } else {
      emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      item.summary?.forEach((part: { type: string; text: string }, summary_index: number) => {
        emit('response.reasoning_summary_part.added', { item_id, output_index, summary_index, part: { ...part, text: '' } });
        emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index, delta: part.text });
        emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index, text: part.text });
        emit('response.reasoning_summary_part.done', { item_id, output_index, summary_index, part });
      });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}
