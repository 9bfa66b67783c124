/**
 * The guides are checked, not hoped: every link of README.md and docs/*.md reaches a file
 * and heading that exist; every `npm run …` in them names a script of package.json, and every admin
 * command one the CLI has; every alarm of the synthesized stacks has a runbook entry in
 * docs/operations.md, and every entry an alarm. Each check is a function of the pages' text, run
 * once on a planted fault to show it can fail, then on the real pages.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../scripts/admin/commands.ts';
import { GUIDES_PATH, localPages } from '../../scripts/local/pages.ts';
import { GUIDES, referencePageHtml } from '../../scripts/reference-page.ts';
import { buildTestApp } from '../infra/deploy-context.ts';

interface Page {
  /** Relative to the repository root, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

const RUNBOOK = 'docs/operations.md';

function readPages(): Page[] {
  const docs = readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'SECURITY.md', ...docs].map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/**
 * The page's lines outside fenced code blocks, the fenced blocks with their language, and whether a
 * fence is left open (which would turn the rest of the page into code, hiding it from the checks).
 */
function split(text: string): {
  prose: string[];
  blocks: { lang: string; lines: string[] }[];
  unclosed: boolean;
} {
  const prose: string[] = [];
  const blocks: { lang: string; lines: string[] }[] = [];
  let block: { lang: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) {
      if (block) {
        blocks.push(block);
        block = undefined;
      } else {
        block = { lang: fence[1] ?? '', lines: [] };
      }
    } else if (block) {
      block.lines.push(line);
    } else {
      prose.push(line);
    }
  }
  return { prose, blocks, unclosed: block !== undefined };
}

/** GitHub's anchor of a heading: lowercased, punctuation but `-` and `_` dropped, spaces as `-`. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, a repeated heading numbered as GitHub does (`-1`, `-2`). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of split(text).prose) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Inline code spans of prose lines (where a link is not a link either). */
const CODE_SPAN = /`[^`]*`/g;

/** Each link that does not reach an existing file, or a heading of it: `page: target (why)`. */
function brokenLinks(pages: readonly Page[], fileExists: (path: string) => boolean): string[] {
  const byPath = new Map(pages.map((p) => [p.path, p]));
  const problems: string[] = [];
  for (const page of pages) {
    for (const line of split(page.text).prose) {
      for (const [, target] of line.replace(CODE_SPAN, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/i.test(target)) continue; // https:, mailto:: not ours to check
        const [file = '', anchor] = target.split('#');
        const path = file ? normalize(join(dirname(page.path), file)).replaceAll('\\', '/') : page.path;
        if (!byPath.has(path) && !fileExists(path)) {
          problems.push(`${page.path}: ${target} (no file ${path})`);
          continue;
        }
        if (anchor === undefined) continue;
        const linked = byPath.get(path);
        if (!linked) {
          problems.push(`${page.path}: ${target} (an anchor into ${path}, which is not a checked page)`);
        } else if (!anchorsOf(linked.text).has(anchor)) {
          problems.push(`${page.path}: ${target} (no heading #${anchor} in ${path})`);
        }
      }
    }
  }
  return problems;
}

/** The command lines of a page: lines of shell blocks, and inline code spans of prose. */
function commandLinesOf(text: string): string[] {
  const { prose, blocks } = split(text);
  const shell = blocks.filter((b) => ['', 'bash', 'sh', 'shell', 'console'].includes(b.lang));
  return [
    ...shell.flatMap((b) => b.lines),
    ...prose.flatMap((line) => [...line.matchAll(CODE_SPAN)].map((m) => m[0].slice(1, -1))),
  ];
}

/**
 * Each `npm run <script>` naming a script package.json lacks, and each admin command
 * (`npm run -s admin -- <noun> <verb>`) the CLI lacks: `page: command (why)`. A placeholder such as
 * `<command>` is no command.
 */
function unknownCommands(
  pages: readonly Page[],
  scripts: ReadonlySet<string>,
  adminCommands: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const line of commandLinesOf(page.text)) {
      for (const [, script] of line.matchAll(/\bnpm run(?:\s+(?:-s|--silent))?\s+([\w:.-]+)/g)) {
        if (script && !scripts.has(script)) problems.push(`${page.path}: npm run ${script} (no such script)`);
      }
      const admin =
        /(?:\bnpm run(?:\s+(?:-s|--silent))?\s+admin\s+--|scripts\/admin\/main\.ts)\s+(\S+)\s+(\S+)/;
      const [, noun, verb] = admin.exec(line) ?? [];
      if (noun && verb && /^[a-z][a-z-]*$/.test(noun) && !adminCommands.has(`${noun} ${verb}`)) {
        problems.push(`${page.path}: admin ${noun} ${verb} (no such admin command)`);
      }
    }
  }
  return problems;
}

/** The alarm names the runbook has entries for: the backticked names of its `**Alarms**:` lines. */
function runbookAlarms(runbook: string): string[] {
  return split(runbook)
    .prose.filter((line) => line.startsWith('**Alarms**:'))
    .flatMap((line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string));
}

/** Alarms without a runbook entry, and entries without an alarm. */
function alarmCoverage(alarms: readonly string[], runbook: string) {
  const listed = new Set(runbookAlarms(runbook));
  const existing = new Set(alarms);
  return {
    unlisted: [...existing].filter((name) => !listed.has(name)).sort(),
    stale: [...listed].filter((name) => !existing.has(name)).sort(),
  };
}

/**
 * The alarms of the synthesized stacks (nested ones included), each by its construct id as
 * lib/constructs/alarms.ts names it, the slice number of a large function group dropped
 * (`LeadsErrors1` and `LeadsErrors2` are `LeadsErrors`).
 */
function synthesizedAlarms(): string[] {
  const service = buildTestApp();
  const stacks = service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
  const names = stacks.flatMap((stack) => {
    const byLogicalId = new Map(
      stack.node
        .findAll()
        .filter((c): c is CfnAlarm => c instanceof CfnAlarm && Stack.of(c) === stack)
        .map((alarm) => [stack.getLogicalId(alarm), alarm]),
    );
    return Object.keys(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')).map((logicalId) => {
      const alarm = byLogicalId.get(logicalId);
      if (!alarm?.node.scope) throw new Error(`Alarm ${logicalId} of ${stack.stackName} has no construct`);
      return alarm.node.scope.node.id.replace(/\d+$/, '');
    });
  });
  return [...new Set(names)];
}

const pages = readPages();
const fileExists = (path: string) => {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
};

describe('links of README.md and docs/*.md', () => {
  it('a link to a missing file, or to a heading a page does not have, is reported', () => {
    // Prepare: two pages, one linking a file that is not there and a heading the other lacks
    const planted: Page[] = [
      {
        path: 'docs/a.md',
        text: '# A\n\nSee [b](b.md#setup), [gone](gone.md), [here](#a) and [web](https://x.example).\n',
      },
      { path: 'docs/b.md', text: '# B\n\n## Install\n\n```bash\n# [not a link](nowhere.md)\n```\n' },
    ];

    // Act
    const problems = brokenLinks(planted, () => false);

    // Assess
    expect(problems).toEqual([
      'docs/a.md: b.md#setup (no heading #setup in docs/b.md)',
      'docs/a.md: gone.md (no file docs/gone.md)',
    ]);
  });

  it('every link reaches an existing file and heading', () => {
    expect(brokenLinks(pages, fileExists)).toEqual([]);
  });

  it('anchors are GitHub’s: punctuation dropped, spaces as hyphens, repeats numbered', () => {
    expect([
      ...anchorsOf('# What `cdk deploy --all` creates\n## Try it: the receiver\n## Notes\n## Notes\n'),
    ]).toEqual(['what-cdk-deploy---all-creates', 'try-it-the-receiver', 'notes', 'notes-1']);
  });
});

describe('code fences of README.md and docs/*.md', () => {
  it('a fence left open is seen', () => {
    expect(split('# A\n```bash\nnpm start\n```\n').unclosed).toBe(false);
    expect(split('# A\n```bash\nnpm start\n\n## B\n').unclosed).toBe(true);
  });

  it('every fenced block is closed', () => {
    expect(pages.filter((p) => split(p.text).unclosed).map((p) => p.path)).toEqual([]);
  });
});

describe('commands in README.md and docs/*.md', () => {
  const scripts = new Set(
    Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: object }).scripts),
  );
  const adminCommands = new Set(Object.keys(commands));

  it('an unknown npm script or admin command is reported, in a shell block or inline code', () => {
    // Prepare
    const planted: Page[] = [
      {
        path: 'docs/x.md',
        text: [
          '# X',
          'Run `npm run deploy-everything` or `npm run -s admin -- <command> [--flag value]`.',
          '```bash',
          'npm run -s admin -- tenant create --slug a --name A',
          'npm run -s admin -- tenant destroy --tenant a',
          'npm start',
          '```',
          '```ts',
          "run('npm run not-a-shell-line');",
          '```',
        ].join('\n'),
      },
    ];

    // Act
    const problems = unknownCommands(planted, scripts, adminCommands);

    // Assess
    expect(problems).toEqual([
      'docs/x.md: admin tenant destroy (no such admin command)',
      'docs/x.md: npm run deploy-everything (no such script)',
    ]);
  });

  it('every npm script and admin command named exists', () => {
    expect(unknownCommands(pages, scripts, adminCommands)).toEqual([]);
  });
});

describe('the alarm runbook (docs/operations.md)', () => {
  let alarms: string[] = [];

  beforeAll(() => {
    // Prepare: the stacks as `cdk synth` builds them, templates only
    alarms = synthesizedAlarms();
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it('an alarm without an entry, and an entry without an alarm, are reported', () => {
    // Prepare
    const runbook =
      '## Runbook\n\n### Queues\n\n**Alarms**: `DeadLettersAiDeadLetterQueue`, `RetiredAlarm`\n';

    // Act
    const coverage = alarmCoverage(['DeadLettersAiDeadLetterQueue', 'Api5xxRate'], runbook);

    // Assess
    expect(coverage).toEqual({ unlisted: ['Api5xxRate'], stale: ['RetiredAlarm'] });
  });

  it('the synthesized stacks have alarms to cover (the check is not vacuous)', () => {
    expect(alarms).toEqual(
      expect.arrayContaining(['Api5xxRate', 'IteratorAgeStreamConsumer', 'LeadsErrors']),
    );
  });

  it('every alarm of the stacks has a runbook entry, and every entry an alarm', () => {
    // Act
    const coverage = alarmCoverage(alarms, readFileSync(RUNBOOK, 'utf8'));

    // Assess
    expect(coverage).toEqual({ unlisted: [], stale: [] });
  });
});

describe('the guides', () => {
  const guides = pages.filter((p) => GUIDES.some((g) => `docs/${g.file}` === p.path));

  it('each guide starts by saying whom it is for and what it answers', () => {
    expect(guides).toHaveLength(GUIDES.length);
    for (const guide of guides) {
      const [title, blank, audience] = guide.text.split('\n');
      expect({ page: guide.path, title, blank, audience }).toEqual({
        page: guide.path,
        title: expect.stringMatching(/^# \S/),
        blank: '',
        audience: expect.stringMatching(/^\*\*For\*\* .*\*\*Answers\*\*: /),
      });
    }
  });

  it('the README links every guide and stays short (at most 250 lines)', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const guide of GUIDES) expect(readme).toContain(`](docs/${guide.file})`);
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('the reference page links every guide', () => {
    // Act
    const html = referencePageHtml({ openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} });

    // Assess
    for (const guide of GUIDES) expect(html).toContain(`<a href="${guide.file}">${guide.title}</a>`);
  });
});

describe('npm start serves the guides the reference page links', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // Prepare: the pages handler of `npm start` on a real HTTP server
    const pagesHandler = localPages({
      site: () => ({ apiBase: 'http://127.0.0.1:1', publishableKey: 'svc_pk_x', turnstileSiteKey: null }),
    });
    server = createServer((req, res) => {
      if (!pagesHandler(req, res, new URL(req.url ?? '/', 'http://localhost'))) res.writeHead(418).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('the reference page at /docs links each guide under /docs/guides/, which serves its text', async () => {
    // Act
    const reference = await (await fetch(`${base}/docs`)).text();
    const served = await Promise.all(
      GUIDES.map(async (g) => {
        const answer = await fetch(`${base}${GUIDES_PATH}${g.file}`);
        return { file: g.file, status: answer.status, text: await answer.text() };
      }),
    );

    // Assess
    for (const guide of GUIDES) expect(reference).toContain(`href="${GUIDES_PATH}${guide.file}"`);
    for (const page of served) {
      expect(page).toEqual({ file: page.file, status: 200, text: readFileSync(`docs/${page.file}`, 'utf8') });
    }
  });

  it('answers 404 for a name outside docs/*.md', async () => {
    // Act
    const statuses = await Promise.all(
      [`${GUIDES_PATH}missing.md`, `${GUIDES_PATH}..%2FREADME.md`, `${GUIDES_PATH}openapi.json`].map(
        async (path) => (await fetch(`${base}${path}`)).status,
      ),
    );

    // Assess
    expect(statuses).toEqual([404, 404, 404]);
  });
});
