// The order jest runs test files in: the slowest first, by the seconds each took in a green `.ci/run`
// (file-seconds.json), so that no long file starts last and runs on alone while the other workers idle. Jest's own
// order needs its timing cache, which a clean clone on a fresh machine does not have (it then goes by file size).
// A file not in the list counts as a middling one. Refresh the list from a run's "slowest files" when it drifts.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./file-seconds.json');

const unrecordedSeconds = 30;

class SlowestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => recorded[path.relative(test.context.config.rootDir, test.path)] ?? unrecordedSeconds;
    return [...tests].sort((a, b) => seconds(b) - seconds(a));
  }
}
module.exports = SlowestFirst;
