/* global afterAll, expect */
// TEST_CPU_CENSUS=FILE (jest.config.js adds this file then): one JSON line per test file with the CPU seconds of the
// jest worker (`self`) and of the processes it spawned and reaped (`children`: CLIs, workers, npm, Chromium; not those
// a tmux server started), and its wall seconds. A file's wall time under load says little; its CPU is what the suite
// pays for it (docs/test-suite.md, "Where the time goes").
const fs = require('node:fs');

/** utime, stime, cutime and cstime of this process (fields 14-17 of /proc/self/stat), in clock ticks. */
function ticks() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return { self: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
}

const start = ticks();
const startedAt = Date.now();
afterAll(() => {
  const end = ticks();
  const line = {
    file: expect.getState().testPath,
    self: (end.self - start.self) / 100,
    children: (end.children - start.children) / 100,
    wall: (Date.now() - startedAt) / 1000,
  };
  fs.appendFileSync(process.env.TEST_CPU_CENSUS, `${JSON.stringify(line)}\n`);
});
