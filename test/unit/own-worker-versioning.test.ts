import { ownWorkerVersioning } from '../../cli/own-worker-versioning';

// The CLI's own worker and Worker Versioning (docs/upgrades.md, "The CLI's own worker"): a shell's deployment variables
// alone never make it a version of the deployment.
const shell = { AGENT_DEPLOYMENT_NAME: 'agents', AGENT_BUILD_ID: 'v2' };

it('polls unversioned when the shell names a deployment and a build, and says why', () => {
  for (const setting of [undefined, '', '0', 'false']) {
    const { versioning, note } = ownWorkerVersioning({ ...shell, AGENT_CLI_WORKER_VERSIONING: setting });
    expect(versioning).toBe(false);
    expect(note).toContain('does not join worker deployment "agents"');
  }
});

it('says nothing when the shell names no deployment', () => {
  expect(ownWorkerVersioning({})).toEqual({ versioning: false });
});

it('joins the deployment the shell names when AGENT_CLI_WORKER_VERSIONING=1', () => {
  expect(ownWorkerVersioning({ ...shell, AGENT_CLI_WORKER_VERSIONING: '1' })).toEqual({
    versioning: { deploymentName: 'agents', buildId: 'v2' },
  });
});

it('refuses an unknown setting, and an opt-in without a deployment to join', () => {
  expect(() => ownWorkerVersioning({ ...shell, AGENT_CLI_WORKER_VERSIONING: 'yes' })).toThrow(
    'AGENT_CLI_WORKER_VERSIONING is "yes": use 1 (join the deployment) or 0',
  );
  expect(() => ownWorkerVersioning({ AGENT_CLI_WORKER_VERSIONING: '1' })).toThrow('needs AGENT_DEPLOYMENT_NAME');
});
