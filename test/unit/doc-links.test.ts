import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The README is a front door to docs/, and docs/ ships in the package: a link that names a moved page or a renamed
// heading sends a reader nowhere. Every relative link of the top-level pages and of docs/ must name a file that
// exists and, with a #fragment, a heading of that file (GitHub's anchors). The code's own pointers into docs/ (errors,
// help, the init project's README) must name a page the installed package holds.

const root = path.join(__dirname, '..', '..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const pages = tracked.filter((file) => /^(README|BENCHMARKS|RELIABILITY)\.md$|^docs\/[^/]+\.md$|^bench\/NOTES\.md$/.test(file));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** The targets of the Markdown links of `markdown`, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

it('finds the pages it checks', () => {
  expect(pages).toEqual(expect.arrayContaining(['README.md', 'BENCHMARKS.md', 'docs/agents.md']));
});

describe.each(pages.map((page) => [page]))('%s', (page) => {
  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const target of linkTargets(readFileSync(path.join(root, page), 'utf8'))) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [file, fragment] = target.split('#');
      const resolved = file ? path.join(path.dirname(path.join(root, page)), decodeURI(file)) : path.join(root, page);
      if (!existsSync(resolved)) broken.push(`${target}: no such file`);
      else if (fragment && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(fragment))
        broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});

it('ships docs/ in the package, so that what points into it is there once installed', () => {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { files: string[] };
  expect(manifest.files).toContain('docs');
});

it('points the code and the init project only at docs pages that exist', () => {
  const sources = tracked.filter((file) => /\.(ts|md)$/.test(file) && /^(?!test\/|bench\/|examples\/|docs\/)[^/]+\//.test(file));
  const missing: string[] = [];
  for (const file of sources)
    for (const [, page] of readFileSync(path.join(root, file), 'utf8').matchAll(/\bdocs\/([\w-]+\.md)/g))
      if (!existsSync(path.join(root, 'docs', page))) missing.push(`${file}: docs/${page}`);
  expect(missing).toEqual([]);
});
