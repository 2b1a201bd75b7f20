/** stdout carries only results (the answer, JSON); progress and errors go to stderr. */
export interface Output {
  result(line: string): void;
  /** Text as it streams in, no line end added (stdout); without it, streamed text is printed a line at a time. */
  write?(text: string): void;
  info(line: string): void;
  error(line: string): void;
}

export const consoleOutput: Output = {
  result: (line) => process.stdout.write(`${line}\n`),
  write: (text) => process.stdout.write(text),
  info: (line) => process.stderr.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
};

/** npm runs scripts from the package root; INIT_CWD is where the user typed the command. */
export function invocationDirectory(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/** Where streamed text goes: stdout as it comes, or (an Output without `write`) a line at a time. */
export function streamedText(output: Output): (text: string) => void {
  if (output.write) return output.write;
  let line = '';
  return (text) => {
    const lines = (line + text).split('\n');
    line = lines.pop() ?? '';
    for (const whole of lines) output.result(whole);
  };
}
