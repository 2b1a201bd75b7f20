import { unseal } from './reasoning-seals';
import { openaiResponsesPartProblem } from './attachment-parts';

/** A refusal and its HTTP status: the Responses API answers 404 for an item it cannot find, 400 otherwise. */
export interface WireRefusal {
  status: number;
  message: string;
}

const notPersisted = (id: string) =>
  `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;

/**
 * What the real OpenAI Responses API refuses, in its own words, so the fake
 * server refuses it too: with `store: false` nothing can be referred to by id,
 * so a reasoning item must carry its encrypted content exactly as it was given
 * (and the item that followed it); function calls and their outputs pair by call_id.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, checked field by field
export function openaiResponsesProblem(body: any): WireRefusal | undefined {
  const refuse = (message: string, status = 400): WireRefusal => ({ status, message });
  if (typeof body?.model !== 'string' || !body.model) return refuse("Missing required parameter: 'model'.");
  const input: any[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!Array.isArray(input)) return refuse("Missing required parameter: 'input'.");
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (tool?.type === 'function' && (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))) {
      return refuse(
        `Invalid 'tools[${index}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      );
    }
  }
  const stored = body.store !== false;
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    const type = item?.type ?? (item?.role ? 'message' : undefined);
    if (type === 'reasoning') {
      if (!stored && !item.encrypted_content) return refuse(notPersisted(item.id), 404);
      if (item.encrypted_content && unseal(item.encrypted_content, item.id) === undefined) {
        return refuse(`The encrypted content ${abbreviated(item.encrypted_content)} could not be verified.`);
      }
      const next = input.slice(index + 1).find((later) => later?.type !== 'reasoning');
      const follows =
        next?.type === 'function_call' || ((next?.type === 'message' || next?.type === undefined) && next?.role === 'assistant');
      if (!follows) return refuse(`Item '${item.id}' of type 'reasoning' was provided without its required following item.`);
    } else if (type === 'function_call') {
      if (!stored && item.id) return refuse(notPersisted(item.id), 404);
      calls.add(item.call_id);
    } else if (type === 'function_call_output') {
      if (!calls.has(item.call_id)) return refuse(`No tool call found for function call output with call_id ${item.call_id}.`);
      const outputProblem = openaiResponsesPartProblem(item, index);
      if (outputProblem) return refuse(outputProblem);
      answered.add(item.call_id);
    } else if (type === 'message') {
      if (!stored && item.id) return refuse(notPersisted(item.id), 404);
      const partProblem = openaiResponsesPartProblem(item, index);
      if (partProblem) return refuse(partProblem);
      if (!['user', 'assistant', 'system', 'developer'].includes(item.role)) {
        return refuse(
          `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        );
      }
    }
  }
  const unanswered = [...calls].find((id) => !answered.has(id));
  if (unanswered) return refuse(`No tool output found for function call ${unanswered}.`);
  return undefined;
}

// The API quotes an encrypted payload by its first and last four characters.
function abbreviated(payload: string): string {
  return payload.length > 12 ? `${payload.slice(0, 4)}...${payload.slice(-4)}` : payload;
}
