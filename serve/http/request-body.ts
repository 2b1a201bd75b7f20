import { ChatRequestError } from './request-error';

/** A request body's largest size by default: far above any message a person types, far below what hurts a server. */
export const defaultMaxBodyBytes = 1024 * 1024;

/**
 * The body as JSON, read at most `maxBytes` of it: counted as it streams in, since Content-Length may be absent
 * (chunked) or lie. Over the limit: 413, and the rest is not read. Not JSON: 400.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const tooLarge = () => new ChatRequestError(413, `the body is over ${maxBytes} bytes`);
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw tooLarge();
  const reader = request.body?.getReader();
  if (!reader) throw new ChatRequestError(400, 'the body is empty: POST a JSON object');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ChatRequestError(400, `the body is not JSON: ${(error as Error).message}`);
  }
}
