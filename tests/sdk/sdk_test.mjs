// Integration test: Cloudflare's official TypeScript SDK (npm `cloudflare`, pinned in
// package.json) drives wr's admin API unchanged. The SDK is pointed at
// http://127.0.0.1:PORT/client/v4 with the admin token; nothing in it is patched or wrapped
// except `fetch`, which is observed (never altered) so the test can count the requests the SDK
// sends, see their query strings, and prove that it never had to retry.
//
//   node sdk_test.mjs /path/to/wr        (run.sh does this)
//
// The wr binary comes from argv[2] (or $WR_BIN). A fresh data dir is made for every run and the
// server is killed at the end, also when a test fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';

const WR_BIN = process.argv[2] ?? process.env.WR_BIN;

const HEX_ID = /^[0-9a-f]{32}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const RETRYABLE = (status) => status === 408 || status === 409 || status === 429 || status >= 500;

let server; // ChildProcess
let serverLog = '';
let dataDir;
let base; // http://127.0.0.1:PORT
let baseURL; // http://127.0.0.1:PORT/client/v4
let token;
let client; // the SDK
let zoneId; // zone example.com
const requests = []; // every request the SDK sent: {method, url, status}

// ---------------------------------------------------------------------------------------------
// Server lifecycle

function killServer() {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
}
process.on('exit', killServer);

function startServer() {
    return new Promise((resolve, reject) => {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wr-sdk-'));
        server = spawn(
            WR_BIN,
            ['serve', '--data-dir', dataDir, '--admin-listen', '127.0.0.1:0',
             // the edge is not under test; an ephemeral port keeps parallel runs from clashing
             '--edge-listen', '127.0.0.1:0', '--edge-threads', '1'],
            { stdio: ['ignore', 'ignore', 'pipe'] },
        );
        const timer = setTimeout(() => reject(new Error(`wr did not report its admin port within 20 s; stderr:\n${serverLog}`)), 20000);
        server.stderr.setEncoding('utf8');
        server.stderr.on('data', (chunk) => {
            serverLog += chunk;
            const match = /API listening on (http:\/\/127\.0\.0\.1:(\d+))\/client\/v4/.exec(serverLog);
            if (match) {
                clearTimeout(timer);
                resolve(match[1]);
            }
        });
        server.on('error', (error) => { clearTimeout(timer); reject(error); });
        server.on('exit', (code, signal) => {
            clearTimeout(timer);
            reject(new Error(`wr exited early (code ${code}, signal ${signal}); stderr:\n${serverLog}`));
        });
    });
}

// Plain fetch with the admin token, for what the SDK has no call for (wr's zones).
async function adminFetch(method, urlPath, body) {
    const response = await fetch(baseURL + urlPath, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json();
    return { status: response.status, json };
}

async function createZone(name) {
    const { status, json } = await adminFetch('POST', '/zones', { name, origin: 'http://127.0.0.1:3000' });
    assert.equal(status, 200, `POST /zones ${name}: ${JSON.stringify(json)}`);
    assert.equal(json.success, true);
    assert.match(json.result.id, HEX_ID);
    assert.equal(json.result.name, name);
    return json.result.id;
}

function makeClient(apiToken) {
    return new Cloudflare({
        apiToken,
        // Ignore any CLOUDFLARE_* credentials in the environment: only the bearer token is sent.
        apiKey: null,
        apiEmail: null,
        userServiceKey: null,
        baseURL,
        // Observe every request (and every retry) the SDK makes; the request is not changed.
        fetch: async (url, init) => {
            const entry = { method: init?.method ?? 'GET', url: String(url), status: null };
            requests.push(entry);
            const response = await fetch(url, init);
            entry.status = response.status;
            return response;
        },
    });
}

before(async () => {
    assert.ok(WR_BIN, 'usage: node sdk_test.mjs /path/to/wr');
    assert.ok(fs.existsSync(WR_BIN), `no wr binary at ${WR_BIN}`);
    base = await startServer();
    baseURL = `${base}/client/v4`;
    token = fs.readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    assert.ok(token.length >= 16, 'admin.token holds a token');
    client = makeClient(token);
    zoneId = await createZone('example.com');
});

after(() => {
    killServer();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Helpers

// Minutes from now, on a whole minute, as ISO 8601 with milliseconds (what wr stores and echoes).
function minutesFromNow(minutes) {
    const whole = Math.ceil(Date.now() / 60000) * 60000;
    return new Date(whole + minutes * 60000).toISOString();
}

async function collect(iterable) {
    const items = [];
    for await (const item of iterable) items.push(item);
    return items;
}

// Runs fn, returning the error it rejects with and how many requests the SDK sent meanwhile.
async function rejection(fn) {
    const count = requests.length;
    try {
        await fn();
    } catch (error) {
        return { error, sent: requests.length - count };
    }
    assert.fail('expected the call to reject');
}

async function createRoom(zone, fields) {
    return client.waitingRooms.create({ zone_id: zone, new_users_per_minute: 200, total_active_users: 200, ...fields });
}

const ROOM_DEFAULTS = {
    description: '',
    path: '/',
    additional_routes: [],
    session_duration: 5,
    disable_session_renewal: false,
    queue_all: false,
    queueing_method: 'fifo',
    queueing_status_code: 200,
    suspended: false,
    json_response_enabled: false,
    cookie_suffix: '',
    cookie_attributes: { samesite: 'auto', secure: 'auto' },
    custom_page_html: '',
    default_template_language: 'en-US',
    enabled_origin_commands: [],
    turnstile_mode: 'invisible',
    turnstile_action: 'log',
    join_limit_per_ip_per_minute: 0, // wr's own field: the SDK passes it through untouched
    origin_guard: { enabled: false, target_ttfb_ms: 500, max_error_rate: 0.05, min_new_users_per_minute: 0 }, // wr's own too
    next_event_prequeue_start_time: null,
    next_event_start_time: null,
};

// ---------------------------------------------------------------------------------------------
// Waiting rooms

test('waiting rooms: create, get, update (PUT), edit (PATCH), delete', async () => {
    const optional = {
        description: 'The shop during the sale',
        path: '/shop',
        additional_routes: [{ host: 'shop.example.com', path: '/checkout' }],
        session_duration: 10,
        queueing_method: 'random',
        queueing_status_code: 202,
        json_response_enabled: true,
        cookie_suffix: 'shop',
        cookie_attributes: { samesite: 'lax', secure: 'always' },
        custom_page_html: '<p>Wait {{waitTime}} minutes</p>',
        default_template_language: 'de-DE',
        enabled_origin_commands: ['revoke'],
        turnstile_mode: 'off',
        turnstile_action: 'log',
    };
    const created = await client.waitingRooms.create({
        zone_id: zoneId,
        host: 'shop.example.com',
        name: 'shop_room',
        new_users_per_minute: 200,
        total_active_users: 200,
        ...optional,
    });
    assert.ok(created, 'create returns the room');
    assert.match(created.id, HEX_ID);
    assert.match(created.created_on, ISO_MS);
    assert.match(created.modified_on, ISO_MS);
    assert.deepEqual(
        { ...created, id: undefined, created_on: undefined, modified_on: undefined },
        {
            ...ROOM_DEFAULTS,
            ...optional,
            id: undefined,
            created_on: undefined,
            modified_on: undefined,
            host: 'shop.example.com',
            name: 'shop_room',
            new_users_per_minute: 200,
            total_active_users: 200,
        },
        'create echoes every field sent and the defaults of the rest',
    );

    const fetched = await client.waitingRooms.get(created.id, { zone_id: zoneId });
    assert.deepEqual(fetched, created, 'get returns what create returned');

    // PUT replaces: the omitted optional fields go back to their defaults.
    const updated = await client.waitingRooms.update(created.id, {
        zone_id: zoneId,
        host: 'shop.example.com',
        name: 'shop_room_renamed',
        new_users_per_minute: 300,
        total_active_users: 1000,
        queue_all: true,
    });
    assert.equal(updated.id, created.id);
    assert.equal(updated.created_on, created.created_on);
    assert.match(updated.modified_on, ISO_MS);
    assert.deepEqual(
        { ...updated, modified_on: undefined },
        {
            ...ROOM_DEFAULTS,
            id: created.id,
            created_on: created.created_on,
            modified_on: undefined,
            host: 'shop.example.com',
            name: 'shop_room_renamed',
            new_users_per_minute: 300,
            total_active_users: 1000,
            queue_all: true,
        },
        'PUT replaces the room: omitted optional fields return to defaults',
    );

    // PATCH changes only what is sent.
    const edited = await client.waitingRooms.edit(created.id, {
        zone_id: zoneId,
        description: 'patched',
        session_duration: 15,
        cookie_attributes: { samesite: 'strict', secure: 'always' },
        origin_guard: { enabled: true }, // wr's own field: the SDK sends it as given, and wr merges it
    });
    assert.deepEqual(
        { ...edited, modified_on: undefined },
        { ...updated, modified_on: undefined, description: 'patched', session_duration: 15, cookie_attributes: { samesite: 'strict', secure: 'always' },
          origin_guard: { ...ROOM_DEFAULTS.origin_guard, enabled: true } },
        'PATCH changes only the fields sent',
    );
    assert.deepEqual(await client.waitingRooms.get(created.id, { zone_id: zoneId }), edited, 'get sees the PATCH');

    const deleted = await client.waitingRooms.delete(created.id, { zone_id: zoneId });
    assert.deepEqual(deleted, { id: created.id });
    const { error, sent } = await rejection(() => client.waitingRooms.get(created.id, { zone_id: zoneId }));
    assert.ok(error instanceof Cloudflare.NotFoundError, `a deleted room is a 404, got ${error}`);
    assert.equal(error.status, 404);
    assert.equal(sent, 1, 'a 404 is not retried');
});

test('waiting rooms: list auto-paginates 7 rooms at per_page 5 and stops', async () => {
    const listZone = await createZone('list.example.com');
    const ids = [];
    for (let i = 1; i <= 7; i++) {
        const room = await createRoom(listZone, { host: 'list.example.com', path: `/r${i}`, name: `room_${i}` });
        ids.push(room.id);
    }

    const firstPage = await client.waitingRooms.list({ zone_id: listZone, per_page: 5 });
    assert.equal(firstPage.result.length, 5);
    assert.deepEqual(firstPage.result_info, { page: 1, per_page: 5, count: 5, total_count: 7, total_pages: 2 });

    const start = requests.length;
    const rooms = await collect(client.waitingRooms.list({ zone_id: listZone, per_page: 5 }));
    const listRequests = requests.slice(start);
    assert.equal(rooms.length, 7, 'iteration yields all 7 rooms');
    assert.deepEqual(new Set(rooms.map((room) => room.id)), new Set(ids), 'each room exactly once');
    assert.deepEqual(rooms.map((room) => room.name).sort(), ids.map((_, i) => `room_${i + 1}`));
    for (const room of rooms) assert.equal(room.host, 'list.example.com');
    // page 1 (5 rooms), page 2 (2 rooms), page 3 (empty: the SDK stops there)
    assert.deepEqual(
        listRequests.map((r) => [r.method, new URL(r.url).searchParams.get('page'), new URL(r.url).searchParams.get('per_page'), r.status]),
        [['GET', null, '5', 200], ['GET', '2', '5', 200], ['GET', '3', '5', 200]],
        'three GETs: pages 1, 2 and an empty page 3',
    );

    const pastEnd = await client.waitingRooms.list({ zone_id: listZone, per_page: 5, page: 3 });
    assert.deepEqual(pastEnd.result, [], 'a page past the end is an empty list');
    assert.equal(pastEnd.hasNextPage(), false);

    // Tidy up so the zone holds nothing.
    for (const id of ids) assert.deepEqual(await client.waitingRooms.delete(id, { zone_id: listZone }), { id });
    assert.deepEqual(await collect(client.waitingRooms.list({ zone_id: listZone })), []);
});

// ---------------------------------------------------------------------------------------------
// Events

test('events: create, get, list, update (PUT), edit (PATCH), details, delete', async () => {
    const room = await createRoom(zoneId, {
        host: 'shop.example.com',
        path: '/events',
        name: 'events_room',
        new_users_per_minute: 400,
        total_active_users: 800,
        session_duration: 7,
        queueing_method: 'fifo',
        custom_page_html: '<p>room page</p>',
        turnstile_mode: 'visible_managed',
        turnstile_action: 'infinite_queue',
    });
    const prequeue = minutesFromNow(50);
    const start = minutesFromNow(60);
    const end = minutesFromNow(180);
    const event = await client.waitingRooms.events.create(room.id, {
        zone_id: zoneId,
        name: 'launch',
        description: 'Product launch',
        event_start_time: start,
        event_end_time: end,
        prequeue_start_time: prequeue,
        shuffle_at_event_start: true,
        total_active_users: 300,
        new_users_per_minute: 250,
        queueing_method: 'random',
    });
    assert.match(event.id, HEX_ID);
    assert.match(event.created_on, ISO_MS);
    assert.match(event.modified_on, ISO_MS);
    assert.deepEqual(
        { ...event, id: undefined, created_on: undefined, modified_on: undefined },
        {
            id: undefined,
            created_on: undefined,
            modified_on: undefined,
            name: 'launch',
            description: 'Product launch',
            event_start_time: start,
            event_end_time: end,
            prequeue_start_time: prequeue,
            shuffle_at_event_start: true,
            suspended: false,
            total_active_users: 300,
            new_users_per_minute: 250,
            session_duration: null,
            queueing_method: 'random',
            disable_session_renewal: null,
            custom_page_html: null,
            turnstile_mode: null,
            turnstile_action: null,
        },
        'create echoes the event, unset overrides null',
    );

    const ids = { zone_id: zoneId, waiting_room_id: room.id };
    assert.deepEqual(await client.waitingRooms.events.get(event.id, ids), event);
    assert.deepEqual(await collect(client.waitingRooms.events.list(room.id, { zone_id: zoneId })), [event]);

    const withEvent = await client.waitingRooms.get(room.id, { zone_id: zoneId });
    assert.equal(withEvent.next_event_start_time, start, 'the room reports its next event');
    assert.equal(withEvent.next_event_prequeue_start_time, prequeue);

    // details: every null override replaced by the room's value.
    const details = await client.waitingRooms.events.details.get(event.id, ids);
    assert.equal(details.id, event.id);
    assert.equal(details.name, 'launch');
    assert.equal(details.total_active_users, 300, 'override kept');
    assert.equal(details.new_users_per_minute, 250, 'override kept');
    assert.equal(details.queueing_method, 'random', 'override kept');
    assert.equal(details.session_duration, 7, 'inherited from the room');
    assert.equal(details.disable_session_renewal, false, 'inherited from the room');
    assert.equal(details.custom_page_html, '<p>room page</p>', 'inherited from the room');
    assert.equal(details.turnstile_mode, 'visible_managed', 'inherited from the room');
    assert.equal(details.turnstile_action, 'infinite_queue', 'inherited from the room');

    // An overlapping second event is refused with 400 (never 409, which the SDK would retry).
    const overlap = await rejection(() => client.waitingRooms.events.create(room.id, {
        zone_id: zoneId, name: 'overlap', event_start_time: minutesFromNow(90), event_end_time: minutesFromNow(120),
    }));
    assert.ok(overlap.error instanceof Cloudflare.BadRequestError, `overlap: ${overlap.error}`);
    assert.equal(overlap.sent, 1, 'an overlapping event is not retried');

    // PUT replaces the event: omitted overrides go back to null (inherit).
    const newStart = minutesFromNow(240);
    const newEnd = minutesFromNow(300);
    const updated = await client.waitingRooms.events.update(event.id, {
        ...ids,
        name: 'launch_v2',
        event_start_time: newStart,
        event_end_time: newEnd,
        session_duration: 12,
    });
    assert.equal(updated.id, event.id);
    assert.equal(updated.created_on, event.created_on);
    assert.deepEqual(
        { ...updated, modified_on: undefined },
        {
            id: event.id,
            created_on: event.created_on,
            modified_on: undefined,
            name: 'launch_v2',
            description: '',
            event_start_time: newStart,
            event_end_time: newEnd,
            prequeue_start_time: null,
            shuffle_at_event_start: false,
            suspended: false,
            total_active_users: null,
            new_users_per_minute: null,
            session_duration: 12,
            queueing_method: null,
            disable_session_renewal: null,
            custom_page_html: null,
            turnstile_mode: null,
            turnstile_action: null,
        },
        'PUT replaces the event',
    );

    // PATCH changes only what is sent; explicit null unsets an override.
    const edited = await client.waitingRooms.events.edit(event.id, {
        ...ids,
        description: 'patched',
        queueing_method: 'passthrough',
        session_duration: null,
    });
    assert.deepEqual(
        { ...edited, modified_on: undefined },
        { ...updated, modified_on: undefined, description: 'patched', queueing_method: 'passthrough', session_duration: null },
        'PATCH changes only the fields sent',
    );
    const merged = await client.waitingRooms.events.details.get(event.id, ids);
    assert.equal(merged.name, 'launch_v2');
    assert.equal(merged.event_start_time, newStart);
    assert.equal(merged.queueing_method, 'passthrough', 'override kept');
    assert.equal(merged.session_duration, 7, 'null override inherits the room value');
    assert.equal(merged.total_active_users, 800, 'inherited from the room');
    assert.equal(merged.new_users_per_minute, 400, 'inherited from the room');
    assert.equal((await client.waitingRooms.get(room.id, { zone_id: zoneId })).next_event_start_time, newStart);

    assert.deepEqual(await client.waitingRooms.events.delete(event.id, ids), { id: event.id });
    assert.deepEqual(await collect(client.waitingRooms.events.list(room.id, { zone_id: zoneId })), []);
    const gone = await rejection(() => client.waitingRooms.events.get(event.id, ids));
    assert.ok(gone.error instanceof Cloudflare.NotFoundError, `deleted event: ${gone.error}`);
    const without = await client.waitingRooms.get(room.id, { zone_id: zoneId });
    assert.equal(without.next_event_start_time, null);
    assert.equal(without.next_event_prequeue_start_time, null);

    await client.waitingRooms.delete(room.id, { zone_id: zoneId });
});

// ---------------------------------------------------------------------------------------------
// Rules

test('rules: create, get, update (PUT), edit (PATCH with position), delete', async () => {
    const room = await createRoom(zoneId, { host: 'shop.example.com', path: '/rules', name: 'rules_room' });
    const roomRules = { zone_id: zoneId };
    const checkRule = (rule, expected) => {
        assert.match(rule.id, HEX_ID);
        assert.equal(typeof rule.version, 'string');
        assert.ok(rule.version.length > 0, 'rule has a version');
        assert.match(rule.last_updated, ISO_MS);
        assert.deepEqual(
            { action: rule.action, expression: rule.expression, description: rule.description, enabled: rule.enabled },
            { action: 'bypass_waiting_room', description: '', enabled: true, ...expected },
        );
    };

    const first = (await client.waitingRooms.rules.create(room.id, {
        ...roomRules,
        rules: { action: 'bypass_waiting_room', expression: 'ip.src in {10.0.0.0/8}', description: 'office' },
    })).result;
    assert.equal(first.length, 1, 'create returns the whole list');
    checkRule(first[0], { expression: 'ip.src in {10.0.0.0/8}', description: 'office' });

    const two = (await client.waitingRooms.rules.create(room.id, {
        ...roomRules,
        rules: { action: 'bypass_waiting_room', expression: 'http.request.uri.path contains "/static/"', enabled: false },
    })).result;
    assert.equal(two.length, 2, 'create appends');
    assert.deepEqual(two[0], first[0], 'the first rule is unchanged');
    checkRule(two[1], { expression: 'http.request.uri.path contains "/static/"', enabled: false });

    assert.deepEqual((await client.waitingRooms.rules.get(room.id, roomRules)).result, two, 'get lists the rules');
    assert.deepEqual(await collect(client.waitingRooms.rules.get(room.id, roomRules)), two, 'iterating get yields the rules');

    const replaced = (await client.waitingRooms.rules.update(room.id, {
        ...roomRules,
        rules: [
            { action: 'bypass_waiting_room', expression: 'http.host eq "shop.example.com"', description: 'a' },
            { action: 'bypass_waiting_room', expression: 'http.request.method eq "POST"', description: 'b' },
            { action: 'bypass_waiting_room', expression: 'http.user_agent contains "monitor"', description: 'c', enabled: false },
        ],
    })).result;
    assert.equal(replaced.length, 3, 'PUT replaces the whole list');
    checkRule(replaced[0], { expression: 'http.host eq "shop.example.com"', description: 'a' });
    checkRule(replaced[1], { expression: 'http.request.method eq "POST"', description: 'b' });
    checkRule(replaced[2], { expression: 'http.user_agent contains "monitor"', description: 'c', enabled: false });
    assert.deepEqual((await client.waitingRooms.rules.get(room.id, roomRules)).result, replaced);

    // PATCH rule "c": enable it, change its description and move it to position 1 (the first).
    const moved = (await client.waitingRooms.rules.edit(replaced[2].id, {
        zone_id: zoneId,
        waiting_room_id: room.id,
        action: 'bypass_waiting_room',
        expression: 'http.user_agent contains "monitor"',
        description: 'c2',
        enabled: true,
        position: { index: 1 },
    })).result;
    assert.deepEqual(moved.map((rule) => rule.id), [replaced[2].id, replaced[0].id, replaced[1].id], 'position {index:1} moves the rule first');
    checkRule(moved[0], { expression: 'http.user_agent contains "monitor"', description: 'c2', enabled: true });
    assert.deepEqual(moved[1], replaced[0]);
    assert.deepEqual(moved[2], replaced[1]);
    assert.deepEqual((await client.waitingRooms.rules.get(room.id, roomRules)).result, moved);

    const left = (await client.waitingRooms.rules.delete(replaced[0].id, { zone_id: zoneId, waiting_room_id: room.id })).result;
    assert.deepEqual(left, [moved[0], moved[2]], 'delete returns the remaining list');
    assert.deepEqual((await client.waitingRooms.rules.get(room.id, roomRules)).result, left);

    // An expression that does not parse is a 400, not retried.
    const bad = await rejection(() => client.waitingRooms.rules.create(room.id, {
        ...roomRules, rules: { action: 'bypass_waiting_room', expression: 'ip.src in {' },
    }));
    assert.ok(bad.error instanceof Cloudflare.BadRequestError, `bad expression: ${bad.error}`);
    assert.equal(bad.sent, 1);

    await client.waitingRooms.delete(room.id, { zone_id: zoneId });
});

// ---------------------------------------------------------------------------------------------
// Status, settings, preview

test('statuses: not_queueing, then suspended', async () => {
    const room = await createRoom(zoneId, { host: 'shop.example.com', path: '/status', name: 'status_room' });
    const status = await client.waitingRooms.statuses.get(room.id, { zone_id: zoneId });
    assert.equal(status.status, 'not_queueing');
    assert.equal(status.event_id, '');
    assert.equal(status.estimated_queued_users, 0);
    assert.equal(status.estimated_total_active_users, 0);
    assert.equal(typeof status.max_estimated_time_minutes, 'number');

    const suspended = await client.waitingRooms.edit(room.id, { zone_id: zoneId, suspended: true });
    assert.equal(suspended.suspended, true);
    assert.equal((await client.waitingRooms.statuses.get(room.id, { zone_id: zoneId })).status, 'suspended');

    await client.waitingRooms.delete(room.id, { zone_id: zoneId });
});

test('settings: get, update (PUT), edit (PATCH)', async () => {
    const settings = client.waitingRooms.settings;
    assert.deepEqual(await settings.get({ zone_id: zoneId }), { search_engine_crawler_bypass: false });
    assert.deepEqual(await settings.update({ zone_id: zoneId, search_engine_crawler_bypass: true }), { search_engine_crawler_bypass: true });
    assert.deepEqual(await settings.get({ zone_id: zoneId }), { search_engine_crawler_bypass: true });
    assert.deepEqual(await settings.edit({ zone_id: zoneId, search_engine_crawler_bypass: false }), { search_engine_crawler_bypass: false });
    assert.deepEqual(await settings.get({ zone_id: zoneId }), { search_engine_crawler_bypass: false });
});

test('page preview: the preview_url renders the template', async () => {
    const customHtml = '<html><body><p id="wait">Wait: {{waitTime}} min</p>'
        + '{{#isFIFOQueue}}<p>fifo</p>{{/isFIFOQueue}}{{#isRandomQueue}}<p>random</p>{{/isRandomQueue}}'
        + '<p>{{waitTimeFormatted}}</p></body></html>';
    const preview = await client.waitingRooms.page.preview({ zone_id: zoneId, custom_html: customHtml });
    assert.ok(preview && typeof preview.preview_url === 'string', `preview answers a preview_url: ${JSON.stringify(preview)}`);
    const url = new URL(preview.preview_url);
    assert.equal(url.origin, base, 'the preview is served by wr');
    assert.match(url.pathname, /^\/preview\/[0-9a-f]{32}$/);

    // Capability URL: no token needed.
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    const html = await page.text();
    assert.match(html, /<p id="wait">Wait: 10 min<\/p>/, 'default wait of 10 minutes');
    assert.match(html, /<p>fifo<\/p>/);
    assert.doesNotMatch(html, /<p>random<\/p>/);
    assert.match(html, /<p>10 minutes<\/p>/);
    assert.doesNotMatch(html, /\{\{/, 'no template tags left');

    const chosen = new URL(url);
    chosen.searchParams.set('waitTime', '25');
    chosen.searchParams.set('queueing_method', 'random');
    const html2 = await (await fetch(chosen)).text();
    assert.match(html2, /<p id="wait">Wait: 25 min<\/p>/);
    assert.match(html2, /<p>random<\/p>/);
    assert.doesNotMatch(html2, /<p>fifo<\/p>/);
});

// ---------------------------------------------------------------------------------------------
// Errors: 4xx are APIErrors with the right status, and never retried

test('errors: total_active_users 10 is a 400 APIError naming the field, not retried', async () => {
    const { error, sent } = await rejection(() => client.waitingRooms.create({
        zone_id: zoneId,
        host: 'shop.example.com',
        path: '/too-small',
        name: 'too_small',
        new_users_per_minute: 200,
        total_active_users: 10,
    }));
    assert.ok(error instanceof Cloudflare.APIError, `an APIError, got ${error}`);
    assert.ok(error instanceof Cloudflare.BadRequestError);
    assert.equal(error.status, 400);
    assert.match(error.message, /total_active_users/);
    assert.ok(Array.isArray(error.errors) && error.errors.length >= 1, 'the envelope errors are exposed');
    assert.match(error.errors[0].message, /total_active_users/);
    assert.ok(Number.isInteger(error.errors[0].code) && error.errors[0].code >= 1000, `wr error code: ${error.errors[0].code}`);
    assert.equal(sent, 1, 'the SDK sent exactly one request (no retry)');
    const names = (await collect(client.waitingRooms.list({ zone_id: zoneId }))).map((room) => room.name);
    assert.ok(!names.includes('too_small'), 'nothing was created');
});

test('errors: a duplicate room name is a 400 (not a retried 409)', async () => {
    const room = await createRoom(zoneId, { host: 'shop.example.com', path: '/dup', name: 'dup_room' });
    const { error, sent } = await rejection(() => createRoom(zoneId, { host: 'shop.example.com', path: '/dup2', name: 'dup_room' }));
    assert.ok(error instanceof Cloudflare.BadRequestError, `duplicate: ${error}`);
    assert.equal(error.status, 400);
    assert.match(error.message, /name/);
    assert.equal(sent, 1, 'not retried');
    await client.waitingRooms.delete(room.id, { zone_id: zoneId });
});

test('errors: a wrong token is a 401 AuthenticationError', async () => {
    const stranger = makeClient('0'.repeat(40));
    const { error, sent } = await rejection(() => stranger.waitingRooms.settings.get({ zone_id: zoneId }));
    assert.ok(error instanceof Cloudflare.AuthenticationError, `wrong token: ${error}`);
    assert.equal(error.status, 401);
    assert.equal(sent, 1);
});

test('no request needed a retry', () => {
    assert.ok(requests.length > 40, `the SDK sent ${requests.length} requests`);
    const retryable = requests.filter((r) => r.status === null || RETRYABLE(r.status));
    assert.deepEqual(retryable, [], 'no request answered 408/409/429/5xx or failed to connect');
});
