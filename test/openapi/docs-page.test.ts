// GET /v1/data-import/openapi.json and GET /docs as a client and a browser see them, on the real app.
import { chromium, type Browser } from 'playwright-core';
import { buildOpenApiDocument } from '../../shared/catalog/openapi-document';
import { request, startTestApp, type TestApp } from '../helpers/app';
import { operationsOf } from './openapi.helpers';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

describe('the documentation endpoints', () => {
  let app: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    app = await startTestApp();
    baseUrl = app.baseUrl;
  });
  afterAll(() => app.close());

  it('serves the OpenAPI document as JSON without authentication', async () => {
    const res = await request(baseUrl, 'GET', '/v1/data-import/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(app.config))));
  });

  it('serves a page that references only its own assets, each of which loads', async () => {
    const res = await fetch(`${baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui.css',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/init.js',
        '/v1/data-import/openapi.json',
      ]),
    );
    expect(refs.filter((ref) => !ref.startsWith('/') || ref.startsWith('//'))).toEqual([]);
    expect(html).not.toMatch(/<script>(?!<\/script>)|<style|\son[a-z]+=/i);

    const types: Record<string, RegExp> = {
      css: /^text\/css/,
      js: /^(text|application)\/javascript/,
      png: /^image\/png/,
      json: /^application\/json/,
    };
    for (const ref of refs) {
      const asset = await fetch(baseUrl + ref);
      expect([ref, asset.status]).toEqual([ref, 200]);
      expect(asset.headers.get('content-type')).toMatch(types[ref.split('.').pop()!]!);
      await asset.arrayBuffer();
    }
  });

  it("gives the page a policy that allows only this origin's scripts, styles and fetches", async () => {
    const csp = (await fetch(`${baseUrl}/docs`)).headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives).toMatchObject({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
    });
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https:|\*/);
  });

  it("does not serve the package's demo page or its petstore initializer", async () => {
    for (const file of ['index.html', 'swagger-initializer.js', 'swagger-ui.js', 'oauth2-redirect.html']) {
      const res = await request(baseUrl, 'GET', `/docs/assets/${file}`);
      expect([file, res.status, res.body?.code]).toEqual([file, 404, 'route_not_found']);
    }
  });

  describe('in a browser', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    });
    afterAll(() => browser?.close());

    it('renders every operation under its policy, loads nothing from elsewhere and can call the API', async () => {
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      page.on('requestfailed', (r) => problems.push(`failed ${r.url()}: ${r.failure()?.errorText ?? ''}`));
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
      });
      // Injected by the browser itself, so the page's policy does not stop it from listening.
      await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
        (window.__violations = window.__violations || []).push(e.violatedDirective + ' ' + e.blockedURI);
      });`);

      await page.goto(`${baseUrl}/docs`);
      const documented = operationsOf(buildOpenApiDocument(app.config));
      await page
        .locator('.opblock')
        .nth(documented.length - 1)
        .waitFor();
      expect(await page.locator('.opblock').count()).toBe(documented.length);
      await expect(page.locator('.information-container .title').first().textContent()).resolves.toContain(
        'Customer-migration data-import API',
      );
      const violations = () => page.evaluate('window.__violations || []');
      expect(await violations()).toEqual([]);

      const op = page.locator('#operations-Documentation-getOpenApiDocument');
      await op.locator('.opblock-summary').click();
      await op.getByRole('button', { name: 'Try it out' }).click();
      await op.getByRole('button', { name: 'Execute' }).click();
      await expect(
        op.locator('.live-responses-table .response .response-col_status').first().textContent(),
      ).resolves.toContain('200');

      expect(await violations()).toEqual([]);
      expect(problems).toEqual([]);
      expect(requested.filter((url) => !url.startsWith(`${baseUrl}/`))).toEqual([]);
      await page.close();
    });
  });
});
