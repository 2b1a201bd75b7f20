import { StorageDriverClaim } from '@temporalio/common';
import { ConfigurationError } from '../../core/errors';
import { agentStores } from '../../storage/stores';

// A process reads claims of the backend it is configured for; a claim of the other
// one reaches a stand-in driver of the same name, which says what to configure.

const s3Claim = new StorageDriverClaim({
  bucket: 'agent-payloads',
  key: 'v0/d/sha256/abc',
  hashAlgorithm: 'sha256',
  hashValue: 'abc',
});
const localClaim = new StorageDriverClaim({ key: 'f'.repeat(64) });

it('tells a process without a bucket where an S3 payload is and what to set', async () => {
  const { payloadDriver, otherPayloadDriver } = agentStores({ AGENT_PAYLOAD_DIR: '/tmp/unused' });
  expect([payloadDriver.name, otherPayloadDriver.name]).toEqual(['local-directory', 'aws.s3driver']);
  const reading = otherPayloadDriver.retrieve({}, [s3Claim]);
  await expect(reading).rejects.toBeInstanceOf(ConfigurationError);
  await expect(reading).rejects.toThrow(
    'this payload is stored in S3 (bucket agent-payloads, key v0/d/sha256/abc) and this process has no AGENT_S3_BUCKET',
  );
});

it('tells a process with a bucket that a payload was stored in a local directory elsewhere', async () => {
  const { payloadDriver, otherPayloadDriver } = agentStores({ AGENT_S3_BUCKET: 'agent-payloads', AWS_REGION: 'eu-west-1' });
  expect([payloadDriver.name, otherPayloadDriver.name]).toEqual(['aws.s3driver', 'local-directory']);
  await expect(otherPayloadDriver.retrieve({}, [localClaim])).rejects.toThrow(
    `this payload (${'f'.repeat(64)}) was stored in a local directory by a process without AGENT_S3_BUCKET: read it on that machine with its AGENT_PAYLOAD_DIR`,
  );
});
