import { describeCall } from '../../core/approval-description';
import { streamToolInput } from '../../core/stream-tool-input';
import { cutInTheMiddle, shownPath, withPathsShown, workspaceRelativePath } from '../../core/workspace-path';
import { assessApprovals } from '../../activities/model/approval-check';
import { defineTool, toolJsonSchema, type Tool } from '../../tools/define-tool';
import { builtInTools } from '../../tools';
import { pathArgumentsOf, workspacePath } from '../../tools/path-argument';
import { z } from 'zod';

// What a person is shown of a path the model chose: the file the tool will open, never a cut that hides it.

describe('workspaceRelativePath', () => {
  it('applies `.` and `..` as the tools do, relative to the workspace', () => {
    expect(workspaceRelativePath(`docs/${'a'.repeat(255)}/../../.bashrc`)).toBe('.bashrc');
    expect(workspaceRelativePath('./src//x/./y/../z.ts')).toBe('src/x/z.ts');
    expect(workspaceRelativePath('a/..')).toBe('.');
    expect(workspaceRelativePath('/srv/ws/docs/../notes.md', '/srv/ws')).toBe('notes.md');
    expect(workspaceRelativePath('/srv/ws', '/srv/ws/')).toBe('.');
  });

  it('keeps what leaves the workspace visibly outside it: a leading `..`, an absolute path elsewhere', () => {
    expect(workspaceRelativePath('a/../../x')).toBe('../x');
    expect(workspaceRelativePath('/srv/ws/../../etc/passwd', '/srv/ws')).toBe('/etc/passwd');
    expect(workspaceRelativePath('/srv/wsx/a', '/srv/ws')).toBe('/srv/wsx/a');
    expect(workspaceRelativePath('/../../etc/shadow')).toBe('/etc/shadow');
  });
});

describe('cutInTheMiddle', () => {
  it('keeps both ends and says how much it took out', () => {
    const text = `${'d/'.repeat(200)}secret.txt`;
    const cut = cutInTheMiddle(text, 120);
    expect(cut.length).toBeLessThanOrEqual(120);
    expect(cut.startsWith('d/d/')).toBe(true);
    expect(cut.endsWith('/secret.txt')).toBe(true);
    const [head, count, tail] = cut.split(/…\[(\d+) characters not shown\]…/);
    expect(head.length + Number(count) + tail.length).toBe(text.length);
    expect(cutInTheMiddle('short', 120)).toBe('short');
  });

  it('never splits a surrogate pair', () => {
    const cut = cutInTheMiddle('😀'.repeat(200), 100);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('path arguments, as a class', () => {
  it('every built-in tool with a path argument declares it with workspacePath', () => {
    for (const tool of builtInTools) {
      const properties = (toolJsonSchema(tool).properties ?? {}) as Record<string, { description?: string }>;
      const pathLike = Object.keys(properties).filter((name) =>
        /relative to the workspace/.test(properties[name].description ?? ''),
      );
      expect({ tool: tool.name, paths: pathArgumentsOf(tool) }).toEqual({ tool: tool.name, paths: pathLike });
    }
    expect(Object.fromEntries(builtInTools.map((tool) => [tool.name, pathArgumentsOf(tool)]))).toEqual({
      read_file: ['path'],
      write_file: ['path'],
      list_directory: ['path'],
      search_files: ['path'],
    });
  });

  it("shows a tool's own path argument resolved in its approval, whatever it is named, and in the stream's input", () => {
    const edit: Tool = defineTool({
      name: 'edit',
      description: 'Edits a file.',
      input: z.object({ find: z.string(), file: workspacePath('The file, relative to the workspace') }),
      async handler() {
        return 'edited';
      },
    });
    const call = {
      id: 'e1',
      name: 'edit',
      arguments: JSON.stringify({ find: 'x'.repeat(3000), file: `a/${'b'.repeat(300)}/../../.ssh/config` }),
    };
    const { descriptions } = assessApprovals([call], new Map([['edit', edit]]), {
      approval: { tools: ['edit'], skip: false },
      run: 'r',
      workspace: '/srv/ws',
    });
    expect(descriptions.e1.description).toContain('"file":".ssh/config"');
    // The path is shown first, so that no bound on what is shown spends itself before it.
    const shown = streamToolInput(withPathsShown(JSON.parse(call.arguments), ['file'], '/srv/ws')) as Record<string, string>;
    expect(Object.keys(shown)[0]).toBe('file');
    expect(shown.file).toBe('.ssh/config');
  });

  it('shows a write of a long, real path with the file name whole, in a headline that is not cut at its end', () => {
    const longPath = `${'project/'.repeat(40)}notes.md`;
    const [write] = builtInTools.filter((tool) => tool.name === 'write_file');
    const call = { id: 'w', name: 'write_file', arguments: JSON.stringify({ path: longPath, content: 'hi\n' }) };
    const { descriptions } = assessApprovals([call], new Map([['write_file', write]]), {
      approval: { tools: ['write_file'], skip: false },
      run: 'r',
    });
    expect(descriptions.w.description).toMatch(
      /^write_file "project\/.*…\[\d+ characters not shown\]….*\/notes\.md" \(3 bytes, 1 line\)\n/,
    );
    expect(descriptions.w.summary.endsWith('(3 bytes, 1 line)')).toBe(true);
    expect(shownPath(longPath)).toBe(descriptions.w.description.split('"')[1]);
  });

  it('keeps hidden characters visible in a resolved path', () => {
    const described = describeCall(
      { id: 'r', name: 'read_file', arguments: '' },
      { headline: `read_file "${shownPath('x/../a\u202eb')}"` },
      'r',
    );
    expect(described.description).toBe('read_file "a\\u{202E}b"');
  });
});
