// Imported first by durable-agent/testing, whose saveHistory and replays read and write history files: fails with
// the fix when @temporalio/common and @temporalio/proto would convert them with two copies of protobufjs.
import { packageRoot } from './package-root';
import { checkOneProtobufjs } from './temporal-copies';

checkOneProtobufjs(packageRoot);
