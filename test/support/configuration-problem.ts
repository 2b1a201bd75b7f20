import { ConfigurationError } from '../../core/errors';

/** The message of the ConfigurationError `action` throws; a test fails when it throws anything else, or nothing. */
export function configurationProblem(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}
