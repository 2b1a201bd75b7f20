import type { Locator, Page } from 'playwright-core';
import type { Browser } from './browser';
import { waitFor } from './wait-for';

/** When a reading of the page is complete enough to assert on. */
export type Until = (text: string) => boolean;

export type RunTab = 'history' | 'relationships' | 'pending-activities' | 'user-metadata' | 'query';

export interface RunRef {
  workflowId: string;
  runId: string;
}

/**
 * The Temporal Web UI's run page as a person reads it: headings and the text
 * under them. The UI renders summaries and details (markdown) in iframes and
 * payloads in code editors; these helpers read what is on screen, waiting for
 * the UI's requests (to the server, to the codec server) to fill it in.
 */
export class WebUi {
  /** Every request the page sent to the codec server, by path. */
  readonly codecRequests: string[] = [];

  constructor(
    readonly browser: Browser,
    readonly base: string,
    codecUrl: string,
  ) {
    browser.page.on('request', (request) => {
      if (request.url().startsWith(codecUrl) && request.method() === 'POST')
        this.codecRequests.push(new URL(request.url()).pathname);
    });
  }

  get page(): Page {
    return this.browser.page;
  }

  async open(run: RunRef, tab: RunTab): Promise<void> {
    await this.page.goto(`${this.base}/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/${run.runId}/${tab}`);
  }

  /** The status badge next to the workflow id: Running, Completed, Failed… */
  status(until?: Until): Promise<string> {
    return this.settle(() => this.page.locator('main div.text-lg > span').first().innerText({ timeout: 2_000 }), until);
  }

  /** The rendered markdown under an h3 on the User Metadata tab: Summary, Details, Current Details. */
  markdownUnder(heading: 'Summary' | 'Details' | 'Current Details', until?: Until): Promise<string> {
    const frame = this.innermostSection('h3', heading, 'iframe[title="output"]')
      .locator('iframe[title="output"]')
      .first()
      .contentFrame();
    return this.settle(() => frame.locator('body').innerText({ timeout: 2_000 }), until);
  }

  /** Rows of "Events with Metadata" on the User Metadata tab, each as "Activity <summary> <state>". */
  async eventsWithMetadata(until?: (rows: string[]) => boolean): Promise<string[]> {
    const section = this.innermostSection('h3', 'Events with Metadata', 'div.justify-between');
    const read = async () => {
      const rows = await section.locator('div.justify-between').all();
      return Promise.all(rows.map(async (row) => (await row.innerText({ timeout: 2_000 })).replace(/\s+/g, ' ').trim()));
    };
    let rows: string[] = [];
    await this.settle(async () => JSON.stringify((rows = await read())), until && ((text) => until(JSON.parse(text))));
    return rows;
  }

  /** The JSON shown under the Input or Result heading of the History tab. */
  payloadUnder(heading: 'Input' | 'Result', until?: Until): Promise<string> {
    const editor = this.innermostSection('h2', heading, '.cm-content').locator('.cm-content').first();
    return this.settle(() => editor.innerText({ timeout: 2_000 }), until);
  }

  /** The visible text of the page's main content. */
  mainText(until?: Until): Promise<string> {
    return this.settle(() => this.page.locator('main').innerText({ timeout: 2_000 }), until);
  }

  /**
   * The UI fills a page in steps (the server's answer, then the codec server's
   * decoding), so a reading is retried until `until` holds (or, without one, until
   * it is not empty), for up to 20 s; then the last reading is returned for the
   * test's assertion to report.
   */
  private async settle(read: () => Promise<string>, until: Until = (text) => text.trim().length > 0): Promise<string> {
    let last = '';
    await waitFor(
      'the Web UI to show it',
      async () => {
        last = (await read()).trim();
        return until(last);
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    ).catch(() => undefined);
    return last;
  }

  /** The deepest element that holds both the heading and its content (matched by `content`). */
  private innermostSection(level: 'h2' | 'h3', heading: string, content: string): Locator {
    const title = this.page.locator(level, { hasText: new RegExp(`^\\s*${heading}\\s*$`) });
    return this.page
      .locator('div', { has: title })
      .filter({ has: this.page.locator(content) })
      .last();
  }
}
