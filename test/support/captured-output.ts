import type { Output } from '../../cli/output';

/** The CLI's output for a command run in the test's process: answers and written text on stdout, the rest on stderr. */
export function capturedOutput(): Output & { stdout: string; stderr: string } {
  const output = {
    stdout: '',
    stderr: '',
    result: (line: string) => void (output.stdout += `${line}\n`),
    write: (text: string) => void (output.stdout += text),
    info: (line: string) => void (output.stderr += `${line}\n`),
    error: (line: string) => void (output.stderr += `${line}\n`),
  };
  return output;
}
