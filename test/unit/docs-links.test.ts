/**
 * The links between the project's pages: every relative link of README.md, BENCHMARKS.md and docs/*.md names a
 * file that exists, and every `#fragment` a heading of the page it points to, by the anchors GitHub gives
 * headings (lower case; every character but letters, digits, spaces, `-` and `_` dropped; spaces made `-`; a
 * repeated heading numbered `-1`, `-2`, …). A renamed heading otherwise leaves its links pointing nowhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter(
  (page) => page.endsWith('.md'),
);

/** A page's text without its fenced code blocks, where a `[x](y)` is code, not a link. */
const prose = (page: string): string =>
  readFileSync(join(ROOT, page), 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** The anchors of a page's headings, as GitHub makes them. */
const anchorsOf = (markdown: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
};

const links = PAGES.flatMap((page) =>
  [...prose(page).matchAll(/\]\(([^)\s]*)\)/g)]
    .map(([, target = '']) => target)
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [path = '', fragment] = target.split('#');
      return { page, target, file: path === '' ? page : normalize(join(dirname(page), path)), fragment };
    }),
);

describe('links between the pages', () => {
  it('makes anchors as GitHub does', () => {
    expect([...anchorsOf('## Accepting files: `POST /accept`\n### `http/rest`\n## Limits\n## Limits\n')]).toEqual([
      'accepting-files-post-accept',
      'httprest',
      'limits',
      'limits-1',
    ]);
  });

  it('finds links on the pages', () => {
    expect(links.filter((link) => link.fragment !== undefined).length).toBeGreaterThan(10);
  });

  it('points every relative link at a file that exists', () => {
    const missing = links.filter((link) => !existsSync(join(ROOT, link.file)));
    expect(missing.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });

  it('points every fragment at a heading of its page', () => {
    const unknown = links.filter(
      (link) =>
        link.fragment !== undefined &&
        link.file.endsWith('.md') &&
        existsSync(join(ROOT, link.file)) &&
        !anchorsOf(prose(link.file)).has(link.fragment),
    );
    expect(unknown.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });
});
