// The console (`/` on the admin listener) in headless Chromium, against a real `wr serve`: an
// edit token's switches change what the edge does and what the API answers; a read token sees
// no switches and its forged PATCH is refused; previews on the same listener cannot read the
// admin origin's storage. A screenshot of the console is written for people to look at.
//   node console_test.mjs WR_BINARY SOURCE_DIR SCREENSHOT_DIR
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [wrBinary, sourceDir, screenshotDir] = process.argv.slice(2);
if (!wrBinary || !sourceDir || !screenshotDir) {
  console.error('usage: node console_test.mjs WR_BINARY SOURCE_DIR SCREENSHOT_DIR');
  process.exit(2);
}
mkdirSync(screenshotDir, { recursive: true });

const cleanups = [];
let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  if (browser) await browser.close();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// An origin that answers every request with a page naming itself.
function origin() {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end('<!doctype html><title>origin</title><p>the shop itself</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    cleanups.push(() => { server.close(); server.closeAllConnections(); });
    resolve(`http://127.0.0.1:${server.address().port}`);
  }));
}

// A webhook receiver that checks each delivery's signature with `secret`; `received` lists them.
function receiver(secret) {
  const received = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      const expected = 'v1=' + createHmac('sha256', secret).update(request.headers['wr-webhook-timestamp'] + '.' + body).digest('hex');
      received.push({ kind: request.headers['wr-webhook-kind'], signed: request.headers['wr-webhook-signature'] === expected });
      response.writeHead(204);
      response.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    cleanups.push(() => { server.close(); server.closeAllConnections(); });
    resolve({ url: `http://127.0.0.1:${server.address().port}/hook`, received });
  }));
}

// `wr serve` on free ports with a fresh data dir, a zone and a room "shop" on shop.example.com.
async function serveWithRoom(logLevel = 'info') {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wr-console-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const { admin, edge, log } = await new Promise((resolve, reject) => {
    const child = spawn(wrBinary, ['serve', '--data-dir', dataDir, '--admin-listen', '127.0.0.1:0', '--edge-listen', '127.0.0.1:0',
                                   '--edge-threads', '1', '--log-level', logLevel], { stdio: ['ignore', 'ignore', 'pipe'] });
    // Waits for the exit: the data directory is removed next, and a server still flushing into it
    // would make that fail (ENOTEMPTY).
    cleanups.push(() => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      return exited;
    });
    let log = '';
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const adminUrl = log.match(/API listening on (http:\/\/127\.0\.0\.1:\d+)\/client\/v4/);
      const edgeUrl = log.match(/edge: listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (adminUrl && edgeUrl) resolve({ admin: adminUrl[1], edge: edgeUrl[1], log: () => log });
    });
    child.on('exit', (code) => reject(new Error(`wr serve exited with ${code}: ${log}`)));
  });
  const token = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
  const call = async (method, route, body, as = token) => {
    const response = await fetch(admin + '/client/v4' + route, {
      method, headers: { Authorization: 'Bearer ' + as, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const zone = (await call('POST', '/zones', { name: 'example.com', origin: await origin() })).body.result;
  const room = (await call('POST', `/zones/${zone.id}/waiting_rooms`, {
    name: 'shop', host: 'shop.example.com', total_active_users: 200, new_users_per_minute: 200, json_response_enabled: true })).body.result;
  await call('POST', `/zones/${zone.id}/waiting_rooms/${room.id}/rules`,
             { expression: 'starts_with(http.request.uri.path, "/static/")', description: 'assets' });
  await call('POST', `/zones/${zone.id}/waiting_rooms/${room.id}/events`, {
    name: 'launch', event_start_time: new Date(Date.now() + 3600e3).toISOString(),
    event_end_time: new Date(Date.now() + 7200e3).toISOString() });
  return { admin, edge, log, token, call, zone, room, roomPath: `/zones/${zone.id}/waiting_rooms/${room.id}` };
}

// A cookie-less request to the room, as a new visitor's: 'queued' or 'origin'.
function newVisitor(edge) {
  return new Promise((resolve, reject) => {
    const url = new URL(edge);
    http.get({ host: url.hostname, port: url.port, path: '/', headers: { Host: 'shop.example.com', Accept: 'application/json' } }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => resolve(body.includes('"inWaitingRoom":true') ? 'queued' : body.includes('the shop itself') ? 'origin' : body));
    }).on('error', reject);
  });
}

async function until(check, what, timeout = 5000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for ' + what);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function openConsole(admin, token, viewport = { width: 1100, height: 900 }) {
  const tab = await browser.newPage({ viewport });
  const problems = [];
  tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const response = await tab.goto(`${admin}/#token=${token}`);
  await tab.waitForSelector('.room svg');
  return { tab, problems, response };
}

test('console with an edit token: "queue everyone" queues the next visitor, and a new limit reaches the API', async () => {
  const wr = await serveWithRoom();
  await until(async () => (await newVisitor(wr.edge)) === 'origin', 'the edge to route the room to the origin');
  const { tab, problems, response } = await openConsole(wr.admin, wr.token);

  // The page's policy: its own files only, no inline script or handlers, nothing from elsewhere.
  const policy = response.headers()['content-security-policy'];
  assert.match(policy, /script-src 'self'/);
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
  assert.ok(!tab.url().includes(wr.token), 'the token leaves the address bar');
  assert.deepEqual(await tab.evaluate(() => [document.cookie, sessionStorage.length, localStorage.length]), ['', 0, 0],
                   'the token is in no cookie and no storage');

  const text = await tab.innerText('main');
  assert.ok(text.includes('example.com / shop'), text);
  assert.ok(text.includes('launch') && text.includes('upcoming'), 'the upcoming event is listed:\n' + text);
  assert.ok(text.includes('/static/') && text.includes('enabled'), 'the bypass rule is listed:\n' + text);

  // "Queue everyone" asks first, saying what happens to those already in; Cancel changes nothing.
  await tab.click('button[data-action="queue-all"]');
  const ask = tab.locator('[data-role="confirm"]');
  await ask.waitFor({ state: 'visible' });
  const asked = await ask.innerText();
  assert.match(asked, /already admitted keep browsing until their sessions end \(5 min after their last request\)/, asked);
  await tab.click('[data-role="confirm"] button[data-action="cancel"]');
  await ask.waitFor({ state: 'hidden' });
  assert.equal((await wr.call('GET', wr.roomPath)).body.result.queue_all, false, 'nothing changes before the confirmation');
  await tab.click('button[data-action="queue-all"]');
  await tab.click('[data-role="confirm"] button[data-action="confirm"]');
  await tab.waitForSelector('.notice:has-text("Saved: queue everyone on")');
  assert.equal((await wr.call('GET', wr.roomPath)).body.result.queue_all, true);
  await until(async () => (await newVisitor(wr.edge)) === 'queued', 'the next new visitor to be queued');
  await tab.waitForSelector('button[data-action="queue-all"]:has-text("Stop queueing everyone")');
  // No wait estimate while everyone waits, and the console says why.
  await tab.waitForFunction(() => document.querySelector('.room .figures').innerText.includes('queueing everyone: no estimate'));
  // The limit inputs take what the API takes.
  const ranges = await tab.evaluate(() => [...document.querySelectorAll('form[data-role="limits"] input')]
    .map((input) => [input.name, input.min, input.max]));
  assert.deepEqual(ranges, [['total_active_users', '200', '2147483647'], ['new_users_per_minute', '200', '200'],
                            ['session_duration', '1', '30']]);

  await tab.fill('form[data-role="limits"] input[name="total_active_users"]', '500');
  await tab.selectOption('form[data-role="limits"] select[name="queueing_method"]', 'random');
  await tab.click('form[data-role="limits"] button[type="submit"]');
  await tab.waitForSelector('.notice:has-text("Saved: total_active_users 200 → 500, queueing_method fifo → random")');
  const room = (await wr.call('GET', wr.roomPath)).body.result;
  assert.equal(room.total_active_users, 500);
  assert.equal(room.queueing_method, 'random');
  // The next refresh shows the new values.
  await tab.waitForFunction(() => document.querySelector('.room .muted').textContent.includes('random · limits 500 active'));

  // A webhook being typed into the console survives the refresh that another change brings.
  const hook = await receiver('console-secret-0123456789');
  await tab.fill('form[data-role="add-destination"] input[name="name"]', 'ops');
  await tab.fill('form[data-role="add-destination"] input[name="url"]', hook.url);
  await tab.fill('form[data-role="add-destination"] input[name="secret"]', 'console-secret-0123456789');
  await tab.check('form[data-role="add-destination"] input[value="room.queueing_started"]');

  const before = await tab.evaluate(() => document.getElementById('updated').textContent);
  await tab.click('button[data-action="toggle-rule"]');
  await tab.waitForSelector('.notice:has-text("Saved: disabled rule")');
  assert.equal((await wr.call('GET', wr.roomPath + '/rules')).body.result[0].enabled, false);
  await tab.waitForFunction((text) => document.getElementById('updated').textContent !== text, before); // a refresh ran since
  assert.deepEqual(await tab.evaluate(() => {
    const form = document.querySelector('form[data-role="add-destination"]');
    return [form.elements.name.value, form.querySelector('input[value="room.queueing_started"]').checked];
  }), ['ops', true], 'what was typed is still there after the refresh');

  // The audit log panel shows the console's changes, field by field.
  await tab.waitForSelector('section[data-role="audit"] tr:has-text("queue_all: false → true")');
  const audit = await tab.innerText('section[data-role="audit"]');
  assert.ok(audit.includes('total_active_users: 200 → 500') && audit.includes('127.0.0.1 · console') && audit.includes('admin'), audit);

  // The webhook added in the console, and its test delivery, signed and logged.
  await tab.click('form[data-role="add-destination"] button[type="submit"]');
  await tab.waitForSelector('section[data-role="notifications"] .notice:has-text("Done: added ops")');
  const added = (await wr.call('GET', '/notifications/destinations')).body.result;
  assert.deepEqual([added[0].name, added[0].kinds], ['ops', ['room.queueing_started']]);
  assert.ok(!JSON.stringify(added).includes('console-secret'), 'the secret is never read back');
  await tab.click('div[data-destination="ops"] button[data-action="test"]');
  await until(() => hook.received.length === 1, 'the test delivery');
  assert.deepEqual(hook.received, [{ kind: 'test', signed: true }]);
  await tab.waitForSelector('div[data-destination="ops"] td.status:has-text("delivered")', { timeout: 15000 });

  // Changes are logged at info; the console's polling is not.
  assert.ok(wr.log().includes('PATCH /client/v4/zones/'), wr.log());
  assert.ok(!/ GET \/client\/v4\//.test(wr.log()), 'GET requests are logged at info:\n' + wr.log());

  await tab.screenshot({ path: path.join(screenshotDir, 'console.png'), fullPage: true });

  // A value below the API's minimum is refused by the form itself: nothing is sent.
  await tab.fill('form[data-role="limits"] input[name="total_active_users"]', '199');
  assert.equal(await tab.evaluate(() => document.querySelector('form[data-role="limits"]').checkValidity()), false);
  // A change the API refuses says why: the room was deleted meanwhile (in another tab, say).
  await tab.fill('form[data-role="limits"] input[name="total_active_users"]', '600');
  assert.equal((await wr.call('DELETE', wr.roomPath)).status, 200);
  await tab.click('form[data-role="limits"] button[type="submit"]');
  await tab.waitForSelector('.notice.error:has-text("Not saved")');

  assert.deepEqual(problems.filter((problem) => !problem.includes('404')), []); // the refused PATCH logs its 404
  await tab.close();
});

test('console: "Suspend" asks first and says what happens to admitted and waiting visitors; a suspended room says why it has no wait', async () => {
  const wr = await serveWithRoom();
  const { tab, problems } = await openConsole(wr.admin, wr.token);
  await tab.click('button[data-action="suspend"]');
  const asked = await tab.locator('[data-role="confirm"]').innerText();
  assert.match(asked, /already admitted keep browsing; those waiting are let in at their next refresh/, asked);
  assert.equal((await wr.call('GET', wr.roomPath)).body.result.suspended, false, 'nothing changes before the confirmation');
  await tab.click('[data-role="confirm"] button[data-action="confirm"]');
  await tab.waitForSelector('.notice:has-text("Saved: suspended")');
  assert.equal((await wr.call('GET', wr.roomPath)).body.result.suspended, true);
  await tab.waitForFunction(() => document.querySelector('.room .figures').innerText.includes('suspended: everyone goes straight to the site'));
  assert.match(await tab.locator('.room .figures').innerText(), /—/);
  // Resuming needs no confirmation.
  await tab.click('button[data-action="suspend"]:has-text("Resume")');
  await tab.waitForSelector('.notice:has-text("Saved: resumed")');
  assert.deepEqual(problems, []);
  await tab.close();
});

test('console: the "Saved" notice clears by itself', async () => {
  const wr = await serveWithRoom();
  const tab = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await tab.clock.install(); // timers run when the test says: no waiting out the notice's seconds
  await tab.goto(`${wr.admin}/#token=${wr.token}`);
  await tab.waitForSelector('.room svg');
  await tab.fill('form[data-role="limits"] input[name="session_duration"]', '7');
  await tab.click('form[data-role="limits"] button[type="submit"]');
  await tab.waitForSelector('.notice:has-text("Saved: session_duration 5 → 7")');
  await tab.clock.runFor(3000);
  assert.match(await tab.locator('.room .notice').innerText(), /Saved/, 'still there after 3 s');
  await tab.clock.runFor(10000);
  await tab.waitForFunction(() => document.querySelector('.room .notice').textContent === '');
  await tab.close();
});

test('console: pasting a new #token= link into the open console takes effect', async () => {
  const wr = await serveWithRoom();
  const viewer = (await wr.call('POST', '/tokens', { name: 'viewer', scope: 'read' })).body.result.token;
  // From the sign-in form: a link with a token opens the console without a reload.
  const tab = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await tab.goto(wr.admin + '/');
  await tab.waitForSelector('#token-form');
  await tab.goto(`${wr.admin}/#token=${viewer}`);
  await tab.waitForSelector('.room svg');
  assert.ok((await tab.innerText('header')).includes('read-only token'));
  assert.equal(await tab.locator('button[data-action]').count(), 0);
  // Another token pasted over the first: the console switches to it, and the address is clean again.
  await tab.goto(`${wr.admin}/#token=${wr.token}`);
  await tab.waitForFunction(() => document.getElementById('scope').textContent.startsWith('edit token'));
  await tab.waitForSelector('button[data-action="queue-all"]');
  assert.ok(!tab.url().includes('token'), tab.url());
  await tab.close();
});

test('console on a 390 px phone: the page does not scroll sideways and the chart fits its card', async () => {
  const wr = await serveWithRoom();
  const { tab, problems } = await openConsole(wr.admin, wr.token, { width: 390, height: 844 });
  const layout = await tab.evaluate(() => {
    const card = document.querySelector('.room').getBoundingClientRect();
    const chart = document.querySelector('.room svg').getBoundingClientRect();
    return { page: document.documentElement.scrollWidth, viewport: window.innerWidth, card: [card.left, card.right],
             chart: [chart.left, chart.right, chart.height] };
  });
  assert.ok(layout.page <= layout.viewport, `the page is ${layout.page} px wide on a ${layout.viewport} px screen`);
  assert.ok(layout.card[1] <= layout.viewport, `the card ends at ${layout.card[1]} px`);
  assert.ok(layout.chart[0] >= layout.card[0] && layout.chart[1] <= layout.card[1], `the chart (${layout.chart}) sticks out of its card (${layout.card})`);
  assert.ok(layout.chart[2] > 60 && layout.chart[2] < 200, `the chart keeps its proportions: ${layout.chart[2]} px high`);
  await tab.screenshot({ path: path.join(screenshotDir, 'console-phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await tab.close();
});

test('console with a read token: no switches, and a forged PATCH is refused', async () => {
  const wr = await serveWithRoom();
  const created = await wr.call('POST', '/tokens', { name: 'viewer', scope: 'read' });
  assert.equal(created.status, 200);
  const { tab, problems } = await openConsole(wr.admin, created.body.result.token);
  assert.ok((await tab.innerText('header')).includes('read-only token'));
  assert.equal(await tab.locator('button[data-action], form[data-role="limits"]').count(), 0, 'no controls for a read token');
  assert.ok((await tab.innerText('main')).includes('/static/'), 'the rules are still listed');

  // What a hand-made request with the page's token gets.
  const forged = await tab.evaluate(async ([route, token]) => {
    const response = await fetch('/client/v4' + route, {
      method: 'PATCH', headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' }, body: '{"queue_all":true}' });
    return response.status;
  }, [wr.roomPath, created.body.result.token]);
  assert.equal(forged, 403);
  assert.equal((await wr.call('GET', wr.roomPath)).body.result.queue_all, false);
  assert.deepEqual(problems.filter((problem) => !problem.includes('403')), []);
  await tab.close();
});

test('a preview\'s script cannot read the admin origin\'s storage, and its id stays out of the log', async () => {
  const wr = await serveWithRoom('debug'); // a preview's GET is logged at debug level
  const html = '<!doctype html><title>pending</title><p>{{waitTime}}</p><script>' +
               'try { document.title = "read:" + sessionStorage.getItem("operator-secret"); }' +
               ' catch (error) { document.title = "blocked:" + error.name; }</script>';
  const created = await wr.call('POST', `/zones/${wr.zone.id}/waiting_rooms/preview`, { custom_html: html });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const previewUrl = created.body.result.preview_url;

  // One tab: the admin origin keeps something in its storage, then the tab opens the preview.
  const tab = await browser.newPage();
  await tab.goto(wr.admin + '/healthz');
  await tab.evaluate(() => sessionStorage.setItem('operator-secret', 'wr_secret'));
  const response = await tab.goto(previewUrl + '?force_queue=true');
  await tab.waitForFunction(() => document.title !== 'pending');
  const title = await tab.title();
  assert.ok(title.startsWith('blocked:'), `the preview's script read the admin origin's storage: ${title}`);
  assert.match(response.headers()['content-security-policy'], /sandbox allow-scripts/);
  await tab.close();

  const id = previewUrl.split('/preview/')[1];
  assert.ok(!wr.log().includes(id), 'the preview id (a capability) is not logged');
  assert.ok(wr.log().includes('GET /preview/<redacted>'), 'the preview request is logged, redacted');
});

test('console: a refresh while the operator types leaves the field focused, and the next keys land in it', async () => {
  const wr = await serveWithRoom();
  const { tab, problems } = await openConsole(wr.admin, wr.token);
  const field = 'section.zone form[data-role="origin-connections"] input[name="max_origin_connections"]';
  await tab.waitForSelector(field);
  await tab.click(field);
  await tab.keyboard.press('Control+A');
  await tab.keyboard.type('12');
  // The console refreshes every 5 s, re-placing every card in the page.
  const stamp = await tab.innerText('#updated');
  await tab.waitForFunction((before) => document.getElementById('updated').textContent !== before, stamp, { timeout: 8000 });
  assert.equal(await tab.$eval(field, (input) => document.activeElement === input), true);
  await tab.keyboard.type('3');
  assert.equal(await tab.$eval(field, (input) => input.value), '123');
  assert.deepEqual(problems, []);
});

test('console: a zone\'s origin connection cap and a room\'s origin guard are edited within the API\'s ranges', async () => {
  const wr = await serveWithRoom();
  const zonePath = `/zones/${wr.zone.id}`;
  const { tab, problems } = await openConsole(wr.admin, wr.token);
  const patches = [];
  tab.on('request', (request) => { if (request.method() === 'PATCH') patches.push(JSON.parse(request.postData())); });

  // The zone: unlimited by default, its inputs bounded as the API bounds them.
  const zoneForm = 'section.zone form[data-role="origin-connections"]';
  await tab.waitForSelector(zoneForm);
  assert.ok((await tab.innerText('section.zone')).includes('origin connections unlimited'));
  assert.deepEqual(await tab.$$eval(`${zoneForm} input`, (inputs) => inputs.map((input) => [input.name, input.min, input.max, input.value])),
                   [['max_origin_connections', '0', '1000000', '0'], ['origin_queue_timeout_seconds', '1', '120', '10']]);
  await tab.fill(`${zoneForm} input[name="max_origin_connections"]`, '64');
  await tab.fill(`${zoneForm} input[name="origin_queue_timeout_seconds"]`, '15');
  await tab.click(`${zoneForm} button[type="submit"]`);
  await tab.waitForSelector('section.zone .notice:has-text("Saved: max_origin_connections unlimited → 64, origin_queue_timeout_seconds 10 → 15")');
  let zone = (await wr.call('GET', zonePath)).body.result;
  assert.equal(zone.max_origin_connections, 64);
  assert.equal(zone.origin_queue_timeout_seconds, 15);
  await tab.waitForFunction(() => document.querySelector('section.zone .muted').textContent
    .includes('at most 64 origin connections; a request waits up to 15 s for one'));

  // Out of range: the browser refuses it, and nothing is sent.
  const sent = patches.length;
  await tab.fill(`${zoneForm} input[name="origin_queue_timeout_seconds"]`, '121');
  assert.equal(await tab.$eval(`${zoneForm} input[name="origin_queue_timeout_seconds"]`, (input) => input.validity.rangeOverflow), true);
  await tab.click(`${zoneForm} button[type="submit"]`);
  await tab.fill(`${zoneForm} input[name="max_origin_connections"]`, '-1');
  assert.equal(await tab.$eval(`${zoneForm} input[name="max_origin_connections"]`, (input) => input.validity.rangeUnderflow), true);
  await tab.click(`${zoneForm} button[type="submit"]`);
  assert.equal(patches.length, sent);
  zone = (await wr.call('GET', zonePath)).body.result;
  assert.equal(zone.origin_queue_timeout_seconds, 15);

  // The room's guard: off with its defaults; the floor's maximum is the room's limit.
  const guardForm = '.room form[data-role="origin-guard"]';
  assert.deepEqual(await tab.$$eval(`${guardForm} input`, (inputs) => inputs.map((input) =>
    [input.name, input.type === 'checkbox' ? String(input.checked) : input.value, input.min, input.max])),
  [['enabled', 'false', '', ''], ['target_ttfb_ms', '500', '50', '60000'], ['max_error_rate', '0.05', '0', '1'],
   ['min_new_users_per_minute', '0', '0', '200']]);
  await tab.check(`${guardForm} input[name="enabled"]`);
  await tab.fill(`${guardForm} input[name="target_ttfb_ms"]`, '800');
  await tab.fill(`${guardForm} input[name="max_error_rate"]`, '0.1');
  await tab.click(`${guardForm} button[type="submit"]`);
  await tab.waitForSelector('.room .notice:has-text("Saved: enabled false → true, target_ttfb_ms 500 → 800, max_error_rate 0.05 → 0.1")');
  // Only what changed is sent; the API merges it into the stored guard.
  assert.deepEqual(patches.at(-1), { origin_guard: { enabled: true, target_ttfb_ms: 800, max_error_rate: 0.1 } });
  const room = (await wr.call('GET', wr.roomPath)).body.result;
  assert.deepEqual(room.origin_guard, { enabled: true, target_ttfb_ms: 800, max_error_rate: 0.1, min_new_users_per_minute: 0 });
  await tab.waitForFunction(() => document.querySelector('.room .muted').textContent
    .includes('origin guard on (p95 under 800 ms, errors under 10 %)'));

  // A floor above the room's limit is refused before it is sent; the target's range too.
  const before = patches.length;
  await tab.fill(`${guardForm} input[name="min_new_users_per_minute"]`, '201');
  await tab.click(`${guardForm} button[type="submit"]`);
  await tab.fill(`${guardForm} input[name="min_new_users_per_minute"]`, '0');
  await tab.fill(`${guardForm} input[name="target_ttfb_ms"]`, '49');
  await tab.click(`${guardForm} button[type="submit"]`);
  assert.equal(patches.length, before);
  await tab.screenshot({ path: path.join(screenshotDir, 'console-origin-protection.png'), fullPage: true });

  assert.deepEqual(problems, []);
  await tab.close();

  // A token bound to the zone may change the room's guard but not the zone.
  const bound = await wr.call('POST', '/tokens', { name: 'shop-team', scope: 'edit', zone_id: wr.zone.id });
  assert.equal(bound.status, 200);
  const zoneTab = await openConsole(wr.admin, bound.body.result.token);
  assert.equal(await zoneTab.tab.locator('form[data-role="origin-connections"]').count(), 0);
  assert.equal(await zoneTab.tab.locator(guardForm).count(), 1);
  assert.ok((await zoneTab.tab.innerText('section.zone')).includes('at most 64 origin connections'));
  await zoneTab.tab.close();
});

test('console: the limits in force and the origin guard\'s state, from a status that carries them', async () => {
  const wr = await serveWithRoom();
  const { tab, problems } = await openConsole(wr.admin, wr.token);

  // The words, from fixtures (the same function draws the card).
  const views = await tab.evaluate(() => {
    const room = { total_active_users: 1000, new_users_per_minute: 500,
                   origin_guard: { enabled: true, target_ttfb_ms: 500, max_error_rate: 0.05, min_new_users_per_minute: 0 } };
    const status = (state, p95, errorRate, perMinute, total, extra) => Object.assign({
      status: 'queueing', event_id: '', effective_new_users_per_minute: perMinute, effective_total_active_users: total,
      origin_guard: { state, p95_ttfb_ms: p95, error_rate: errorRate, reason: 'p95 over target' } }, extra);
    const event = { id: 'e1', total_active_users: 2000, new_users_per_minute: 800 };
    return {
      slow: originGuardView(status('throttling', 912.4, 0.004, 120, 1000), room, []),
      failing: originGuardView(status('throttling', 200, 0.2, 120, 800), room, []),
      recovering: originGuardView(status('recovering', 300, 0, 300, 1000), room, []),
      content: originGuardView(status('content', 120, 0, 500, 1000), room, []),
      event: originGuardView(status('throttling', 900, 0, 120, 2000, { event_id: 'e1' }), room, [event]),
      off: originGuardView(status('off', 80, 0, 500, 1000), { ...room, origin_guard: { ...room.origin_guard, enabled: false } }, []),
      older: originGuardView({ status: 'queueing', event_id: '' }, room, []),
      percents: [0, 0.05, 0.004, 0.125, 0.0004, 1].map(percentText),
    };
  });
  assert.deepEqual(views.slow, {
    state: 'throttling', newInForce: '120 of 500', newLowered: true, activeInForce: '1000 of 1000', activeLowered: false,
    headline: 'origin slow: admitting 120 a minute of 500',
    origin: 'origin p95 time to first byte 912 ms (target 500 ms), errors 0.4 % (at most 5 %)', reason: 'p95 over target' });
  assert.equal(views.failing.headline, 'origin failing: admitting 120 a minute of 500, 800 active of 1000');
  assert.equal(views.recovering.headline, 'origin recovering: admitting 300 a minute of 500');
  assert.equal(views.content.headline, null);
  assert.equal(views.content.newLowered, false);
  assert.equal(views.failing.activeLowered, true);
  assert.equal(views.content.newInForce, '500 of 500');
  assert.equal(views.event.headline, 'origin slow: admitting 120 a minute of 800');
  assert.equal(views.event.activeInForce, '2000 of 2000');
  assert.equal(views.off.headline, null);
  assert.equal(views.off.origin, 'origin p95 time to first byte 80 ms, errors 0 %');
  assert.deepEqual(views.older, { state: null, newInForce: null, newLowered: false, activeInForce: null, activeLowered: false,
                                  headline: null, origin: null, reason: null });
  assert.deepEqual(views.percents, ['0 %', '5 %', '0.4 %', '12.5 %', '< 0.1 %', '100 %']);

  // Before the status says anything, the card shows nothing of it.
  assert.equal(await tab.locator('.room [data-role="origin-guard-state"]').isHidden(), true);

  // The card, drawn from a status with the fields (the status answers are given them here, so
  // this holds whatever the server's status carries).
  await wr.call('PATCH', wr.roomPath, { origin_guard: { enabled: true } });
  await tab.route('**/waiting_rooms/*/status', async (route) => {
    const response = await route.fetch();
    const envelope = await response.json();
    Object.assign(envelope.result, { effective_new_users_per_minute: 40, effective_total_active_users: 200,
                                     origin_guard: { state: 'throttling', p95_ttfb_ms: 1830, error_rate: 0.02,
                                                     reason: 'the origin\'s p95 is 1830 ms, over the 500 ms target' } });
    await route.fulfill({ response, json: envelope });
  });
  await tab.waitForSelector('.room [data-role="origin-guard-state"]:has-text("origin slow: admitting 40 a minute of 200")');
  const card = await tab.innerText('.room');
  assert.ok(card.includes('the origin\'s p95 is 1830 ms, over the 500 ms target'), card);
  assert.ok(card.includes('origin p95 time to first byte 1830 ms (target 500 ms), errors 2 % (at most 5 %)'), card);
  assert.ok(card.includes('40 of 200') && card.includes('new per minute in force'), card);
  assert.ok(card.includes('200 of 200') && card.includes('active limit in force'), card);
  assert.deepEqual(await tab.$$eval('.room .figures > div', (cells) => cells.slice(3).map((cell) => cell.className)), ['lowered', '']);
  await tab.screenshot({ path: path.join(screenshotDir, 'console-origin-guard.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await tab.close();
});
