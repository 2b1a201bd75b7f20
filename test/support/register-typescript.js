// Teaches a test's child process (a spawned CLI, a worker) TypeScript: `node -r ./register-typescript.js file.ts`.
//
// The same transform jest uses for the test files themselves (@swc/jest, .swcrc): each .ts file is compiled to
// CommonJS as it is required, in the process's own thread. tsx, which `npm run agent` uses, costs these processes
// about twice the CPU to start (its hooks run in a thread of their own and see every module), and the suite starts a
// few hundred of them (docs/test-suite.md). Compiled files are cached on disk by content, so a second process
// compiles nothing.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// @swc/core unpacks its native addon into a cache, by default under ~/.cache: tests that check what a process writes
// to its home directory (test/e2e/production-walkthrough.test.ts) would see this loader's, not the program's.
if (!process.env.SWC_NATIVE_BINDING_CACHE) {
  process.env.SWC_NATIVE_BINDING_CACHE = path.join(os.tmpdir(), `durable-agent-swc-native-${process.getuid?.() ?? 0}`);
  fs.mkdirSync(process.env.SWC_NATIVE_BINDING_CACHE, { recursive: true, mode: 0o700 });
}
const swc = require('@swc/core');

const options = {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const cacheDirectory = path.join(os.tmpdir(), `durable-agent-swc-${swc.version}`);
fs.mkdirSync(cacheDirectory, { recursive: true });

function compiled(source, filename) {
  const key = crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDirectory, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    const { code } = swc.transformSync(source, { ...options, filename });
    // Written aside and renamed, so that a process reading it at the same moment never sees half a file.
    const partial = `${cached}.${process.pid}`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, cached);
    return code;
  }
}

for (const extension of ['.ts', '.cts']) {
  require.extensions[extension] = (module, filename) => {
    module._compile(compiled(fs.readFileSync(filename, 'utf8'), filename), filename);
  };
}
// Error stacks name the TypeScript lines, as under tsx.
process.setSourceMapsEnabled(true);
