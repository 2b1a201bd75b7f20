import { ToolInputError } from '../../core/errors';

/** The message of the ToolInputError `promise` rejects with (what the model is told); anything else fails the test. */
export async function toolInputRefusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ToolInputError)) throw new Error(`expected a ToolInputError, got ${String(error)}`);
  return error.message;
}
