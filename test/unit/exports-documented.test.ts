import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import * as library from '../../index';
import * as workflowLibrary from '../../workflow';

// The exports are what a user needs, each documented (issue 20): docs/agents.md's reference lists every export of
// `durable-agent` (index.ts) and `durable-agent/workflow` (workflow.ts), one table row each, and nothing else.

const root = path.join(__dirname, '..', '..');

/** Every name an entry point exports, types included, read from its export declarations. */
async function exportedNames(file: string): Promise<string[]> {
  const source = ts.createSourceFile(file, await readFile(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    // An entry point names what it exports: `export *` would export whatever its module gains, undocumented.
    if (ts.isExportDeclaration(statement) && !statement.exportClause)
      throw new Error(`${file}: export * is not allowed in an entry point`);
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    )
      throw new Error(`${file}: declares an export of its own`);
  }
  return names.sort();
}

/** The names in the first column of the reference's table under `### \`<entry>\``, as written (`name(args)` → name). */
async function documentedNames(entry: string): Promise<string[]> {
  const docs = await readFile(path.join(root, 'docs', 'agents.md'), 'utf8');
  const reference = docs.slice(docs.indexOf('\n## Reference: every export'));
  const start = reference.indexOf(`\n### \`${entry}\`\n`);
  if (start < 0) throw new Error(`docs/agents.md has no reference section for ${entry}`);
  const section = reference.slice(start + 1).split(/\n### /)[0];
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => /^\| `([A-Za-z_$][\w$]*)/.exec(line)![1])
    .sort();
}

describe.each([
  ['durable-agent', 'index.ts', library],
  ['durable-agent/workflow', 'workflow.ts', workflowLibrary],
])('%s', (entry, file, runtime) => {
  it('documents every export in docs/agents.md, and documents no name it does not export', async () => {
    const exported = await exportedNames(file);
    const documented = await documentedNames(entry);
    expect(documented).toEqual([...new Set(documented)]);
    expect({
      undocumented: exported.filter((name) => !documented.includes(name)),
      notExported: documented.filter((name) => !exported.includes(name)),
    }).toEqual({
      undocumented: [],
      notExported: [],
    });
  });

  it('exports at run time every value it declares (the rest are types)', async () => {
    const exported = await exportedNames(file);
    const values = Object.keys(runtime).filter((name) => name !== '__esModule');
    expect(values.every((name) => exported.includes(name))).toBe(true);
    // A type's row says so; a value's row does not.
    const docs = await readFile(path.join(root, 'docs', 'agents.md'), 'utf8');
    for (const name of exported) {
      const row = docs
        .slice(docs.indexOf('\n## Reference: every export'))
        .split('\n')
        .find((line) => new RegExp(`^\\| \`${name}[\`(]`).test(line))!;
      expect({ name, type: row.includes('| *type*') }).toEqual({ name, type: !values.includes(name) });
    }
  });
});

it('keeps internals out of the entry points', async () => {
  const exported = await exportedNames('index.ts');
  // Ids are startAgent's business; the progress query gave way to the run's stream (StreamEvent).
  for (const internal of ['newWorkflowId', 'progressQuery', 'ProgressEvent']) expect(exported).not.toContain(internal);
});
