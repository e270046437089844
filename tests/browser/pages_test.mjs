// The default queue page and the example custom page in headless Chromium (Debian's chromium,
// driven by playwright-core): each state renders with no console errors and shows the wait,
// and a screenshot of each is written for people to look at. Also the dashboard, the Turnstile
// round trip against a local stand-in for Cloudflare, and a visit over TLS that is HTTP/2.
//   node pages_test.mjs WR_BINARY SOURCE_DIR SCREENSHOT_DIR
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
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
      const edge = log.match(/edge: listening on (https?:\/\/127\.0\.0\.1:\d+)/);
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
    // The request id the edge gave the request, so a test can find its line in the access log.
    response.writeHead(200, { 'Content-Type': 'text/html', 'X-Origin-Saw-Request-Id': request.headers['x-request-id'] || '' });
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

// A self-signed certificate for shop.example.com (openssl, as scripts/install-deps.sh test
// installs it) and the base64 SHA-256 of its SubjectPublicKeyInfo, the form Chromium's
// --ignore-certificate-errors-spki-list takes: the browser trusts this one key, nothing else.
function selfSignedCertificate(directory) {
  const certificate = path.join(directory, 'cert.pem');
  const key = path.join(directory, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
                           '-subj', '/CN=shop.example.com', '-addext', 'subjectAltName=DNS:shop.example.com',
                           '-keyout', key, '-out', certificate], { stdio: 'ignore' });
  const spki = new X509Certificate(readFileSync(certificate)).publicKey.export({ type: 'spki', format: 'der' });
  return { certificate, key, spki: createHash('sha256').update(spki).digest('base64') };
}

// GET / on the TLS edge for `host`: its status and headers (the edge's certificate is the test's own).
function edgeGetTls(edge, host) {
  return new Promise((resolve, reject) => {
    const url = new URL(edge);
    https.get({ host: url.hostname, port: url.port, path: '/', headers: { Host: host }, servername: host, rejectUnauthorized: false },
              (response) => {
                response.resume();
                response.on('end', () => resolve({ status: response.statusCode, headers: response.headers }));
              }).on('error', reject);
  });
}

test('over TLS the browser gets the queue page and then the shop over HTTP/2, as the access log says too', async () => {
  const origin = await fakeCloudflare();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wr-h2-'));
  try {
    const tls = selfSignedCertificate(dataDir);
    const accessLog = path.join(dataDir, 'access.log');
    const { admin, edge } = await serve(dataDir, ['--tls-cert', tls.certificate, '--tls-key', tls.key, '--access-log', accessLog,
                                                  '--access-log-format', 'json']);
    const { call } = adminClient(admin, dataDir);
    const zone = await call('POST', '/zones', { name: 'example.com', origin: origin.url });
    const room = await call('POST', `/zones/${zone.id}/waiting_rooms`, { name: 'shop', host: 'shop.example.com', total_active_users: 200,
                                                                         new_users_per_minute: 200, queue_all: true });
    // The edge has the room once it queues.
    for (let i = 0; i < 100 && !(await edgeGetTls(edge, 'shop.example.com')).headers.refresh; ++i)
      await new Promise((resolve) => setTimeout(resolve, 50));

    const edgePort = new URL(edge).port;
    const trusting = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: [...browserArgs, '--host-resolver-rules=MAP shop.example.com 127.0.0.1', `--ignore-certificate-errors-spki-list=${tls.spki}`],
    });
    servers.push({ kill: () => trusting.close() });
    const tab = await trusting.newPage({ viewport: { width: 900, height: 700 } });
    const problems = [];
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const protocol = () => tab.evaluate(() => performance.getEntriesByType('navigation')[0].nextHopProtocol);
    const shop = `https://shop.example.com:${edgePort}/tickets?day=2`;

    const queued = await tab.goto(shop);
    assert.equal(queued.status(), 200);
    assert.ok(queued.headers().refresh, 'the queue page');
    assert.ok((await tab.innerText('body')).includes('You are in line'));
    assert.equal(await protocol(), 'h2');
    const queuedId = queued.headers()['x-request-id'];

    // Let everyone in. A queued visitor is let in at its next on-time check-in, 20 seconds on (the
    // page's own refresh); not to wait that long the browser forgets its cookie, and comes back as
    // a new visitor, let in at once once the edge has the change.
    const browsing = tab.context();
    await call('PATCH', `/zones/${zone.id}/waiting_rooms/${room.id}`, { queue_all: false });
    let admitted = null;
    for (let i = 0; i < 100 && !admitted; ++i) {
      await browsing.clearCookies();
      const response = await tab.reload();
      if (response.headers()['x-origin-saw-request-id']) admitted = response;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(admitted, 'the shop, once let in');
    assert.equal(admitted.status(), 200);
    assert.ok((await tab.innerText('body')).includes('the shop itself'));
    assert.equal(await protocol(), 'h2');
    const admittedId = admitted.headers()['x-origin-saw-request-id'];
    assert.deepEqual(problems, []);
    await trusting.close();

    // The access log, an oracle of its own: the lines of both documents say HTTP/2.0.
    const lineOf = (id) => readFileSync(accessLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
      .find((line) => line.request_id === id);
    for (let i = 0; i < 100 && !(lineOf(queuedId) && lineOf(admittedId)); ++i) await new Promise((resolve) => setTimeout(resolve, 50));
    const expected = { target: '/tickets?day=2', host: `shop.example.com:${edgePort}`, status: 200, protocol: 'HTTP/2.0' };
    assert.deepEqual(pick(lineOf(queuedId), expected), { ...expected, decision: 'queued' });
    assert.deepEqual(pick(lineOf(admittedId), expected), { ...expected, decision: 'admitted' });
  } finally {
    await removeDataDir(dataDir);
  }
});

// The fields of `line` that `expected` names, and its decision.
function pick(line, expected) {
  assert.ok(line, 'a line for the request');
  return Object.fromEntries([...Object.keys(expected), 'decision'].map((key) => [key, line[key]]));
}
