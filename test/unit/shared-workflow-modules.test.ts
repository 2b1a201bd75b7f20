import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AgentPlugin, workflowsPath } from '../../worker/agent-plugin';
import { sharedWorkflowModules } from '../../worker/shared-workflow-modules';

// Every workflow on a worker shares these modules' one evaluation (worker/shared-workflow-modules.ts). A shared module
// that kept state, or reached for the running workflow, would carry one workflow's state into another's: replays
// could then diverge. These tests keep the list to modules that cannot.

const root = path.join(__dirname, '..', '..');
const code = sharedWorkflowModules.filter((module) => !module.endsWith('.json'));

/** The modules a file imports at run time (type-only imports vanish from the bundle). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const statements =
    source.match(/^(?:import|export)\s(?!type\s)[^;]*?\sfrom\s+'[^']+'|^import\s+'[^']+'|require\('[^']+'\)/gm) ?? [];
  return statements.map((statement) => /'([^']+)'/.exec(statement)![1]);
}

describe('the workflow modules every workflow shares', () => {
  it('import nothing but each other: no @temporalio package, no workflow file, no other package', () => {
    const shared = new Set(sharedWorkflowModules);
    const strays = code.flatMap((file) =>
      runtimeImports(file)
        .filter(
          (specifier) => !specifier.startsWith('.') || !shared.has(require.resolve(path.resolve(path.dirname(file), specifier))),
        )
        .map((specifier) => `${path.relative(root, file)} imports ${specifier}`),
    );
    expect(strays).toEqual([]);
  });

  it('declare no module-level variables, which would be one value for every workflow', () => {
    const variables = code.flatMap((file) =>
      (readFileSync(file, 'utf8').match(/^(?:export\s+)?(?:let|var)\s+\w+/gm) ?? []).map(
        (declaration) => `${path.relative(root, file)}: ${declaration}`,
      ),
    );
    expect(variables).toEqual([]);
  });

  it('are preloaded in every bundle the AgentPlugin configures', () => {
    const configured = new AgentPlugin({ env: {} }).configureBundler({ workflowsPath, preloadModules: ['./elsewhere'] });
    expect(configured.preloadModules).toEqual(['./elsewhere', ...sharedWorkflowModules]);
  });

  // The tests' bundle is built by the full run's global setup (`npm test`); `npm run test:unit` builds none.
  (process.env.TEST_WORKFLOW_BUNDLE ? it : it.skip)('are preloaded in the bundle the tests run on', () => {
    // The generated entry point requires each one in its preloadModules(), which the SDK runs once per worker thread.
    const bundle = readFileSync(process.env.TEST_WORKFLOW_BUNDLE!, 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(bundle)?.[1] ?? '';
    for (const module of sharedWorkflowModules) expect(preload).toContain(`"./${path.relative(root, module)}"`);
  });
});
