// Every relative link in README.md and docs/ leads somewhere: the file exists and, for a #fragment into
// a Markdown file, a heading of that file has that anchor (as GitHub spells it).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinksIn, documentationFiles, githubSlug } from './markdown-links';

const ROOT = path.resolve(__dirname, '..', '..');

describe('links in the documentation', () => {
  it('finds README.md and the docs pages', () => {
    const files = documentationFiles(ROOT).map((f) => path.relative(ROOT, f));
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/decisions/README.md']));
  });

  it('has no relative link to a missing file or heading', () => {
    const broken = documentationFiles(ROOT).flatMap((file) => brokenLinksIn(file, ROOT));
    expect(broken).toEqual([]);
  });
});

describe('the link checker', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'doc-links-'));
    mkdirSync(path.join(dir, 'docs'));
    writeFileSync(
      path.join(dir, 'docs', 'page.md'),
      '# A page\n\n## Set-up — `npm start` / later\n\n## Twice\n\n## Twice\n',
    );
    writeFileSync(
      path.join(dir, 'README.md'),
      [
        '# Read me',
        '[good](docs/page.md) [good anchor](docs/page.md#set-up--npm-start--later) [second](docs/page.md#twice-1)',
        '[own heading](#read-me) [web](https://example.com/nowhere) [folder](docs/)',
        '[missing file](docs/gone.md) [missing anchor](docs/page.md#nowhere) [bad own](#nope)',
        '`[in code](docs/gone-in-code.md)`',
        '```',
        '[in a fence](docs/gone-in-fence.md)',
        '```',
        '[ref]: docs/also-gone.md',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports exactly the broken links, outside code, with their line', () => {
    const broken = brokenLinksIn(path.join(dir, 'README.md'), dir);
    expect(broken.map((b) => [b.line, b.target])).toEqual([
      [4, 'docs/gone.md'],
      [4, 'docs/page.md#nowhere'],
      [4, '#nope'],
      [9, 'docs/also-gone.md'],
    ]);
  });

  it('spells anchors as GitHub does, numbering repeated headings', () => {
    expect(githubSlug('Payment instructions — `POST payment-instruction/create/`')).toBe(
      'payment-instructions--post-payment-instructioncreate',
    );
    expect(githubSlug('Health, metrics and logs')).toBe('health-metrics-and-logs');
    expect([...anchorsOf('# A\n## B\n## B\n```\n# not a heading\n```\n')]).toEqual(['a', 'b', 'b-1']);
  });
});
