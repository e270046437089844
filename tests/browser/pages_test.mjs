// The default queue page and the example custom page in headless Chromium (Debian's chromium,
// driven by playwright-core): each state renders with no console errors and shows the wait,
// and a screenshot of each is written for people to look at. Also the dashboard, and the
// Turnstile round trip against a local stand-in for Cloudflare.
//   node pages_test.mjs WR_BINARY SOURCE_DIR SCREENSHOT_DIR
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [wrBinary, sourceDir, screenshotDir] = process.argv.slice(2);
if (!wrBinary || !sourceDir || !screenshotDir) {
  console.error('usage: node pages_test.mjs WR_BINARY SOURCE_DIR SCREENSHOT_DIR');
  process.exit(2);
}
mkdirSync(screenshotDir, { recursive: true });

const servers = [];
let browser;
const browserArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                     '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// `wr templates preview --serve` on a free port; resolves to its base URL.
function preview(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(wrBinary, ['templates', 'preview', ...args, '--serve', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    servers.push(child);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/previewing on (http:\/\/127\.0\.0\.1:\d+)\//);
      if (match) resolve(match[1]);
    });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.on('exit', (code) => reject(new Error(`wr templates preview exited with ${code}: ${output}`)));
  });
}

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: browserArgs });
});

after(async () => {
  if (browser) await browser.close();
  for (const child of servers) child.kill('SIGTERM');
});

const pages = [
  { name: 'default', args: [] },
  { name: 'custom', args: ['--file', path.join(sourceDir, 'templates/examples/custom.html')] },
];
const states = [
  { state: 'fifo', text: '10 minutes' },
  { state: 'random', text: '5 minutes to 15 minutes' },
  { state: 'prequeue', text: '15 minutes' },
];

for (const page of pages) {
  for (const { state, text } of states) {
    test(`${page.name} page, ${state}: renders without console errors and shows the wait`, async () => {
      const base = await preview(page.args);
      const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
      const tab = await context.newPage();
      const problems = [];
      tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
      tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      const response = await tab.goto(`${base}/?state=${state}`, { waitUntil: 'load' });
      assert.equal(response.status(), 200);
      const visible = await tab.innerText('body');
      assert.ok(visible.includes(text), `the page shows "${text}":\n${visible}`);
      await tab.screenshot({ path: path.join(screenshotDir, `${page.name}-${state}.png`), fullPage: true });
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
}

test('default page while everyone is queued says entry is paused, and a first estimate says so', async () => {
  const paused = await preview([]);
  const tab = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await tab.goto(`${paused}/?state=queue-all`);
  const text = await tab.innerText('body');
  assert.ok(text.includes('Entry to the site is paused for now') && text.includes('No estimate while entry is paused'), text);
  assert.ok(!text.includes('This site is busy') && !text.includes('will appear shortly'), text);
  await tab.screenshot({ path: path.join(screenshotDir, 'default-queue-all.png'), fullPage: true });
  const first = await preview(['--var', 'waitTimeFromLimits=true']);
  await tab.goto(`${first}/?state=fifo`);
  const estimate = await tab.innerText('.wait');
  assert.ok(estimate.includes('10 minutes') && estimate.includes('A first estimate, from the site\'s capacity.'), estimate);
  await tab.screenshot({ path: path.join(screenshotDir, 'default-first-estimate.png'), fullPage: true });
  await tab.close();
});

test('default page in Arabic reads right to left', async () => {
  const base = await preview(['--language', 'ar-EG']);
  const tab = await browser.newPage();
  await tab.goto(`${base}/?state=fifo`);
  assert.equal(await tab.evaluate(() => getComputedStyle(document.body).direction), 'rtl');
  assert.ok((await tab.innerText('body')).includes('10 دقائق'));
  await tab.screenshot({ path: path.join(screenshotDir, 'default-ar-EG.png'), fullPage: true });
  await tab.close();
});

// `wr serve` on free ports with a fresh data dir; resolves to its admin and edge URLs.
function serve(dataDir, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(wrBinary, ['serve', '--data-dir', dataDir, '--admin-listen', '127.0.0.1:0', '--edge-listen', '127.0.0.1:0',
                                   '--edge-threads', '1', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
    servers.push(child);
    serveByDataDir.set(dataDir, child);
    let log = '';
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const admin = log.match(/API listening on (http:\/\/127\.0\.0\.1:\d+)\/client\/v4/);
      const edge = log.match(/edge: listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (admin && edge) resolve({ admin: admin[1], edge: edge[1] });
    });
    child.on('exit', (code) => reject(new Error(`wr serve exited with ${code}: ${log}`)));
  });
}

// `wr serve` processes by data directory, so a test can stop its server before removing the
// directory (a running server still writes there — its database, the analytics it flushes on
// SIGTERM — and removing the directory under it can fail with ENOTEMPTY).
const serveByDataDir = new Map();
async function removeDataDir(dataDir) {
  const child = serveByDataDir.get(dataDir);
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  serveByDataDir.delete(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
}

// The admin API with the token `wr serve` wrote: call(method, route, body) → the v4 result.
function adminClient(admin, dataDir) {
  const token = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
  const call = async (method, route, body) => {
    const response = await fetch(admin + '/client/v4' + route, {
      method, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text).result;
  };
  return { token, call };
}

function edgeGet(edge, host) {
  return new Promise((resolve, reject) => {
    const url = new URL(edge);
    http.get({ host: url.hostname, port: url.port, path: '/', headers: { Host: host } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    }).on('error', reject);
  });
}

test('the dashboard lists rooms with their status and chart, with no console errors', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wr-dashboard-'));
  try {
    const { admin, edge } = await serve(dataDir);
    const { token, call } = adminClient(admin, dataDir);
    const zone = await call('POST', '/zones', { name: 'example.com', origin: 'http://127.0.0.1:9' });
    await call('POST', `/zones/${zone.id}/waiting_rooms`, { name: 'shop', host: 'shop.example.com', total_active_users: 200,
                                                            new_users_per_minute: 200, queue_all: true });
    await new Promise((resolve) => setTimeout(resolve, 400)); // the edge picks the room up
    for (let i = 0; i < 20; ++i) assert.equal(await edgeGet(edge, 'shop.example.com'), 200);
    await new Promise((resolve) => setTimeout(resolve, 2500)); // the analytics reach the store

    const tab = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const problems = [];
    tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await tab.goto(`${admin}/#token=${token}`);
    await tab.waitForSelector('.room svg');
    const text = await tab.innerText('main');
    assert.ok(text.includes('example.com / shop'), text);
    assert.ok(text.includes('queueing'), text);
    assert.ok(text.includes('queued users'), text);
    assert.ok(!tab.url().includes(token), 'the token leaves the address bar');
    await tab.screenshot({ path: path.join(screenshotDir, 'dashboard.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await tab.close();
  } finally {
    await removeDataDir(dataDir);
  }
});

// A local stand-in for Cloudflare: /turnstile.js renders a fake widget that answers like the real
// one (calls the data-callback with a token) when the test says so (window.answerTurnstile(), so
// the first page is read before it reloads), /siteverify passes that token; anything else is the
// origin.
function fakeCloudflare() {
  const verified = [];
  const server = http.createServer((request, response) => {
    if (request.url === '/turnstile.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' });
      response.end(`for (const widget of document.querySelectorAll('.cf-turnstile')) {
        widget.textContent = 'fake turnstile (' + widget.dataset.sitekey + ')';
        window.answerTurnstile = () => window[widget.dataset.callback]('browser-good-token');
      }`);
      return;
    }
    if (request.url === '/siteverify') {
      let body = '';
      request.on('data', (chunk) => { body += chunk; });
      request.on('end', () => {
        const form = new URLSearchParams(body);
        verified.push({ secret: form.get('secret'), response: form.get('response') });
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ success: form.get('response') === 'browser-good-token' }));
      });
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end('<!doctype html><title>origin</title><p>the shop itself</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    servers.push({ kill: () => server.close() });
    resolve({ url: `http://127.0.0.1:${server.address().port}`, verified });
  }));
}

test('Turnstile in a real browser: the widget answers, the token is verified, and the visitor waits in the real queue', async () => {
  const cloudflare = await fakeCloudflare();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wr-turnstile-'));
  try {
    const { admin, edge } = await serve(dataDir, [
      '--turnstile-site-key', '1x00000000000000000000AA', '--turnstile-secret', 'browser-secret',
      '--turnstile-verify-url', `${cloudflare.url}/siteverify`, '--turnstile-script-url', `${cloudflare.url}/turnstile.js`]);
    const { call } = adminClient(admin, dataDir);
    const zone = await call('POST', '/zones', { name: 'example.com', origin: cloudflare.url });
    await call('POST', `/zones/${zone.id}/waiting_rooms`, {
      name: 'shop', host: 'shop.example.com', total_active_users: 200, new_users_per_minute: 200, queue_all: true,
      turnstile_mode: 'visible_managed', turnstile_action: 'infinite_queue' });
    await new Promise((resolve) => setTimeout(resolve, 400)); // the edge picks the room up

    // A browser of its own that resolves shop.example.com to the edge on 127.0.0.1.
    const edgePort = new URL(edge).port;
    const mapped = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: [...browserArgs, '--host-resolver-rules=MAP shop.example.com 127.0.0.1'],
    });
    servers.push({ kill: () => mapped.close() });
    const context = await mapped.newContext({ viewport: { width: 900, height: 700 } });
    const tab = await context.newPage();
    const problems = [];
    tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const shop = `http://shop.example.com:${edgePort}`;
    const first = await tab.goto(`${shop}/tickets?day=2`);
    assert.ok((await first.text()).includes('class="cf-turnstile"'), 'the first page carries the widget');
    await tab.waitForFunction(() => typeof window.answerTurnstile === 'function', null, { timeout: 10000 });
    await tab.evaluate(() => window.answerTurnstile());
    // The fake widget answers; the page reloads with the token, the edge verifies it and sends
    // the browser back to the address without it, now in the real queue.
    await tab.waitForURL(`${shop}/tickets?day=2`, { timeout: 10000 });
    await tab.waitForFunction(() => !document.querySelector('.cf-turnstile') && document.body.innerText.length > 0,
                              null, { timeout: 10000 });
    const text = await tab.innerText('body');
    assert.ok(text.includes('You are in line'), text);
    assert.deepEqual(cloudflare.verified, [{ secret: 'browser-secret', response: 'browser-good-token' }]);
    const cookies = await context.cookies(shop);
    assert.ok(cookies.some((cookie) => cookie.name === '__cfwaitingroom'), JSON.stringify(cookies));
    await tab.screenshot({ path: path.join(screenshotDir, 'turnstile-passed.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await mapped.close();
  } finally {
    await removeDataDir(dataDir);
  }
});
