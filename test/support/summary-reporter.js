// Prints the slowest test files of the run (jest's own start and end of each file), then one plain closing line,
// "N passed, N failed, N skipped", that CI systems read as the run's last line without knowing jest's own format.
// docs/test-suite.md keeps the list of a real run, so that the suite's budget (CI under 1,500 s) has a known shape.
const path = require('node:path');

const slowestShown = 20;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((file) => file.perfStats && file.perfStats.end > file.perfStats.start)
      .map((file) => ({
        file: path.relative(this.rootDir, file.testFilePath),
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, slowestShown);
    if (files.length > 1) {
      const lines = files.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
      process.stdout.write(`\nThe ${files.length} slowest test files:\n${lines.join('\n')}\n`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\n${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
