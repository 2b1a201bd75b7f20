import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { transpileModule, ModuleKind } from 'typescript';
import { sharedWorkflowModules } from '../../worker/shared-workflow-modules';

// The sandbox's stack depth (core/workflow-stack-depth.ts) is set by the module's evaluation in the context that runs
// the workflows, before the SDK freezes that context's built-ins: preloaded with the shared modules, and imported
// first by the bundle's entry point for a context of its own.
const file = path.join(__dirname, '..', '..', 'core', 'workflow-stack-depth.ts');

it('sets Error.stackTraceLimit in the context that evaluates it, and leaves this one alone', () => {
  const before = Error.stackTraceLimit;
  const { outputText } = transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ModuleKind.CommonJS } });
  const context = vm.createContext({ exports: {} });
  vm.runInContext(outputText, context);
  expect(vm.runInContext('Error.stackTraceLimit', context)).toBe(6);
  expect(vm.runInContext('new Error().stack', context)).toBeDefined();
  expect(Error.stackTraceLimit).toBe(before);
});

it('leaves a frozen Error as it is, without throwing: a bundle evaluated after the SDK froze the built-ins', () => {
  const { outputText } = transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ModuleKind.CommonJS } });
  const context = vm.createContext({ exports: {} });
  vm.runInContext('Object.freeze(Error)', context);
  expect(() => vm.runInContext(`"use strict";${outputText}`, context)).not.toThrow();
  expect(vm.runInContext('Error.stackTraceLimit', context)).toBe(10);
});

it('is preloaded with the shared modules and imported first by the bundle entry point', () => {
  expect(sharedWorkflowModules).toContain(require.resolve('../../core/workflow-stack-depth'));
  const entry = readFileSync(path.join(__dirname, '..', '..', 'worker', 'workflows.ts'), 'utf8');
  expect(entry.match(/^import .*$/m)?.[0]).toBe("import '../core/workflow-stack-depth';");
});
