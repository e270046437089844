// wr's console: the rooms' live figures, and (with an edit token) the switches operators need on
// launch day. Every change is a PATCH through the admin API with the token this page holds.
// The token lives in this script's memory only: no cookie (so no CSRF), no storage (so nothing
// else on this origin can read it); it reaches the server only in Authorization headers.
"use strict";

const REFRESH_MS = 5000;
const NOTICE_MS = 8000; // how long "Saved: …" stays; errors stay until the next change
let token = null;
let canEdit = false;
let canEditZones = false; // an edit token for every zone: zones themselves are only theirs to change
const cards = new Map(); // room id → the card's parts, kept across refreshes
const zoneCards = new Map(); // zone id → the zone's parts
const main = document.getElementById("main");

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function signIn(message) {
  token = null;
  cards.clear();
  zoneCards.clear();
  main.replaceChildren(document.getElementById("sign-in").content.cloneNode(true));
  if (message) main.prepend(element("p", "error", message));
  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    start(document.getElementById("token").value.trim());
  });
}

// The v4 result of a call; throws with the API's own message when it refuses.
async function api(method, path, body, asText) {
  // X-Wr-Client: the audit log records that a change came from the console.
  const options = { method, headers: { Authorization: "Bearer " + token, "X-Wr-Client": "console" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (asText && response.ok) return response.text();
  let envelope = null;
  try { envelope = await response.json(); } catch (_) { /* not JSON: use the status */ }
  if (!response.ok || (envelope && envelope.success === false)) {
    const message = envelope && envelope.errors && envelope.errors.length ? envelope.errors[0].message : path + " answered " + response.status;
    throw Object.assign(new Error(message), { status: response.status });
  }
  return envelope.result;
}

function figure(label) {
  const cell = element("div");
  const number = element("b", "", "…");
  cell.append(number, element("span", "", label));
  return { cell, number };
}

function eventStage(event, now) {
  const start = Date.parse(event.event_start_time), end = Date.parse(event.event_end_time);
  const prequeue = event.prequeue_start_time ? Date.parse(event.prequeue_start_time) : start;
  if (end <= now) return null;
  if (start <= now) return "running";
  if (prequeue <= now) return "prequeueing";
  return "upcoming";
}

// Says what a change did; a success fades after NOTICE_MS unless another notice replaced it.
function notify(card, text, isError) {
  card.notice.className = isError ? "notice error" : "notice";
  card.notice.textContent = text;
  clearTimeout(card.noticeTimer);
  if (!isError) card.noticeTimer = setTimeout(() => { if (card.notice.textContent === text) card.notice.textContent = ""; }, NOTICE_MS);
}

// A PATCH from a button or form: disables it while in flight, then says what happened.
async function change(card, what, path, body, control) {
  if (control) control.disabled = true;
  try {
    await api("PATCH", path, body);
    notify(card, "Saved: " + what + " (" + new Date().toLocaleTimeString() + ")");
    if (refreshing) await refreshing; // it may have read the room before the change
    await refresh();
  } catch (error) {
    notify(card, "Not saved: " + what + ": " + error.message, true);
  } finally {
    if (control) control.disabled = false;
  }
}

// The API's own ranges (docs/api.md), so the browser refuses what the API would.
const LIMITS = { total_active_users: [200, 2147483647], new_users_per_minute: [200, 2147483647], session_duration: [1, 30] };

// A number field; `max` and `step` as the API's range has them (the browser then refuses what the
// API would, before sending it).
function numberInput(name, label, min, max, step) {
  const wrapper = element("label", "", label);
  const input = element("input");
  input.type = "number";
  input.name = name;
  input.min = String(min);
  if (max !== undefined) input.max = String(max);
  if (step !== undefined) input.step = String(step);
  input.required = true;
  wrapper.append(input);
  return { wrapper, input };
}

function checkboxInput(name, label) {
  const wrapper = element("label", "check");
  const input = element("input");
  input.type = "checkbox";
  input.name = name;
  wrapper.append(input, document.createTextNode(" " + label));
  return { wrapper, input };
}

function inputValue(input) {
  if (input.type === "checkbox") return input.checked;
  return input.tagName === "SELECT" ? input.value : Number(input.value);
}

// A form of fields that are saved together: `current()` is what is stored, `send(body)` the
// PATCH body for the changed fields. Shows the stored values unless the operator is typing.
function settingsForm(card, role, fields, current, send, shown) {
  const form = element("form", "controls");
  form.dataset.role = role;
  const save = element("button", "", "Save");
  save.type = "submit";
  form.append(...fields.map((field) => field.wrapper), save);
  const inputs = Object.fromEntries(fields.map((field) => [field.input.name, field.input]));
  form.addEventListener("input", () => { form.dataset.dirty = "1"; });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const stored = current();
    const body = {};
    const said = [];
    for (const [name, input] of Object.entries(inputs)) {
      const value = inputValue(input);
      if (value !== stored[name]) { body[name] = value; said.push(name + " " + shown(name, stored[name]) + " → " + shown(name, value)); }
    }
    delete form.dataset.dirty;
    if (said.length === 0) { card.notice.className = "notice"; card.notice.textContent = "Nothing to save."; return; }
    change(card, said.join(", "), card.base, send(body), save);
  });
  const fill = (values) => {
    if (form.dataset.dirty || form.contains(document.activeElement)) return;
    for (const [name, input] of Object.entries(inputs)) {
      if (input.type === "checkbox") input.checked = Boolean(values[name]); else input.value = String(values[name]);
    }
  };
  return { form, inputs, fill };
}

// ---- What the origin guard does, in words (the same words `wr rooms status` prints) ----------

// 0.004 → "0.4 %", 0.05 → "5 %", 0 → "0 %", 0.0004 → "< 0.1 %".
function percentText(fraction) {
  const percent = fraction * 100;
  if (percent === 0) return "0 %";
  if (percent < 0.1) return "< 0.1 %";
  return percent.toFixed(1).replace(/\.0$/, "") + " %";
}

// A room's status set against its configuration: the limits in force beside the configured ones
// (the room's, or its running event's), the guard's state in a line such as "origin slow:
// admitting 120 a minute of 500", and the origin's figures. Pure: the browser tests feed it
// statuses. Whatever the status does not carry (a wr without origin protection) is null, and the
// card shows nothing for it.
function originGuardView(status, room, events) {
  const event = status.event_id ? (events || []).find((candidate) => candidate.id === status.event_id) : null;
  const limits = {
    total: event && typeof event.total_active_users === "number" ? event.total_active_users : room.total_active_users,
    perMinute: event && typeof event.new_users_per_minute === "number" ? event.new_users_per_minute : room.new_users_per_minute,
  };
  const guard = room.origin_guard || {};
  const measured = status.origin_guard && typeof status.origin_guard === "object" ? status.origin_guard : null;
  const effectiveNew = status.effective_new_users_per_minute, effectiveTotal = status.effective_total_active_users;
  const view = { state: measured ? measured.state : null, newInForce: null, newLowered: false, activeInForce: null,
                 activeLowered: false, headline: null, origin: null, reason: null };
  if (typeof effectiveNew === "number") {
    view.newInForce = effectiveNew + " of " + limits.perMinute;
    view.newLowered = effectiveNew < limits.perMinute;
  }
  if (typeof effectiveTotal === "number") {
    view.activeInForce = effectiveTotal + " of " + limits.total;
    view.activeLowered = effectiveTotal < limits.total;
  }
  if (!measured) return view;

  const p95 = typeof measured.p95_ttfb_ms === "number" ? measured.p95_ttfb_ms : null;
  const errors = typeof measured.error_rate === "number" ? measured.error_rate : null;
  if ((view.state === "throttling" || view.state === "recovering") && typeof effectiveNew === "number") {
    let cause = "origin recovering";
    if (view.state === "throttling") {
      const slow = p95 !== null && p95 > guard.target_ttfb_ms, failing = errors !== null && errors > guard.max_error_rate;
      cause = slow && failing ? "origin slow and failing" : slow ? "origin slow" : failing ? "origin failing" : "origin over target";
    }
    view.headline = cause + ": admitting " + Math.round(effectiveNew) + " a minute of " + limits.perMinute;
    if (typeof effectiveTotal === "number" && effectiveTotal < limits.total)
      view.headline += ", " + Math.round(effectiveTotal) + " active of " + limits.total;
  }
  // The targets mean something only while the guard works to them.
  const parts = [];
  if (p95 !== null) parts.push("origin p95 time to first byte " + Math.round(p95) + " ms" + (guard.enabled ? " (target " + guard.target_ttfb_ms + " ms)" : ""));
  if (errors !== null) parts.push((parts.length ? "errors " : "origin errors ") + percentText(errors) +
                                  (guard.enabled ? " (at most " + percentText(guard.max_error_rate) + ")" : ""));
  if (parts.length) view.origin = parts.join(", ");
  if (typeof measured.reason === "string" && measured.reason) view.reason = measured.reason;
  return view;
}

// What the two switches do to the people already in the room, said before they take effect.
function consequence(action, room) {
  if (action === "queue-all")
    return "Queue everyone: from now on no one new is let in, and every new visitor waits in line until you stop it. " +
           "Visitors already admitted keep browsing until their sessions end (" + room.session_duration +
           " min after their last request); those waiting keep their places.";
  return "Suspend: the room stops queueing and everyone goes straight to the site, with no limit. Visitors already " +
         "admitted keep browsing; those waiting are let in at their next refresh and lose their places in line.";
}

// Asks before a switch that changes what visitors get; the change is made only on "Yes".
function confirmFirst(card, action, what, body, control) {
  card.confirm.hidden = false;
  card.confirm.dataset.for = action;
  card.confirmText.textContent = consequence(action, card.room);
  card.confirmYes.textContent = action === "queue-all" ? "Yes, queue everyone" : "Yes, suspend";
  card.confirmYes.onclick = () => { card.confirm.hidden = true; change(card, what, card.base, body, control); };
  card.confirmYes.focus();
}

function buildControls(card) {
  const controls = element("div", "controls");
  controls.dataset.role = "switches";
  card.queueAll = element("button");
  card.queueAll.type = "button";
  card.queueAll.dataset.action = "queue-all";
  card.queueAll.addEventListener("click", () => {
    const on = !card.room.queue_all;
    if (on) confirmFirst(card, "queue-all", "queue everyone on", { queue_all: true }, card.queueAll);
    else change(card, "queue everyone off", card.base, { queue_all: false }, card.queueAll);
  });
  card.suspend = element("button");
  card.suspend.type = "button";
  card.suspend.dataset.action = "suspend";
  card.suspend.addEventListener("click", () => {
    const on = !card.room.suspended;
    if (on) confirmFirst(card, "suspend", "suspended", { suspended: true }, card.suspend);
    else change(card, "resumed", card.base, { suspended: false }, card.suspend);
  });
  controls.append(card.queueAll, card.suspend);

  card.confirm = element("div", "confirm");
  card.confirm.dataset.role = "confirm";
  card.confirm.setAttribute("role", "alertdialog");
  card.confirm.hidden = true;
  card.confirmText = element("p");
  card.confirmYes = element("button", "danger");
  card.confirmYes.type = "button";
  card.confirmYes.dataset.action = "confirm";
  const cancel = element("button", "", "Cancel");
  cancel.type = "button";
  cancel.dataset.action = "cancel";
  cancel.addEventListener("click", () => { card.confirm.hidden = true; });
  card.confirm.append(card.confirmText, card.confirmYes, cancel);

  const form = element("form", "controls");
  form.dataset.role = "limits";
  const limit = (name, label) => numberInput(name, label, LIMITS[name][0], LIMITS[name][1], 1);
  const fields = [limit("total_active_users", "total active users"), limit("new_users_per_minute", "new users per minute"),
                  limit("session_duration", "session duration (min)")];
  const methodLabel = element("label", "", "queueing method");
  const method = element("select");
  method.name = "queueing_method";
  for (const choice of ["fifo", "random", "passthrough", "reject"]) method.append(new Option(choice, choice));
  methodLabel.append(method);
  const save = element("button", "", "Save");
  save.type = "submit";
  form.append(...fields.map((field) => field.wrapper), methodLabel, save);
  card.inputs = Object.fromEntries([...fields.map((field) => [field.input.name, field.input]), ["queueing_method", method]]);
  form.addEventListener("input", () => {
    form.dataset.dirty = "1";
    // new_users_per_minute may not exceed total_active_users.
    card.inputs.new_users_per_minute.max = card.inputs.total_active_users.value || String(LIMITS.new_users_per_minute[1]);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = {};
    const said = [];
    for (const [name, input] of Object.entries(card.inputs)) {
      const value = input.tagName === "SELECT" ? input.value : Number(input.value);
      if (value !== card.room[name]) { body[name] = value; said.push(name + " " + card.room[name] + " → " + value); }
    }
    delete form.dataset.dirty;
    if (said.length === 0) { notify(card, "Nothing to save."); return; }
    change(card, said.join(", "), card.base, body, save);
  });
  card.form = form;

  // wr's origin guard: ranges as the API has them (the floor's maximum follows the room's limit).
  card.guardForm = settingsForm(card, "origin-guard", [
    checkboxInput("enabled", "origin guard"),
    numberInput("target_ttfb_ms", "p95 target (ms)", 50, 60000, 1),
    numberInput("max_error_rate", "max error rate (0–1)", 0, 1, "any"),
    numberInput("min_new_users_per_minute", "floor per minute (0: a tenth)", 0, undefined, 1),
  ], () => card.room.origin_guard, (changed) => ({ origin_guard: changed }), (name, value) => String(value));
  return [controls, card.confirm, form, card.guardForm.form];
}

function newZoneCard(zone) {
  const card = { base: "/client/v4/zones/" + zone.id, zone };
  card.node = element("section", "zone");
  card.node.dataset.zone = zone.id;
  card.title = element("h2", "", "zone " + zone.name);
  card.summary = element("div", "muted");
  card.notice = element("div", "notice");
  card.notice.setAttribute("role", "status");
  card.node.append(card.title, card.summary);
  if (canEditZones) {
    const unlimited = (name, value) => (name === "max_origin_connections" && value === 0 ? "unlimited" : String(value));
    card.connections = settingsForm(card, "origin-connections", [
      numberInput("max_origin_connections", "origin connections (0: no limit)", 0, 1000000, 1),
      numberInput("origin_queue_timeout_seconds", "wait for one (s)", 1, 120, 1),
    ], () => card.zone, (changed) => changed, unlimited);
    card.node.append(card.connections.form);
  }
  card.node.append(card.notice);
  return card;
}

function updateZoneCard(card, zone) {
  card.zone = zone;
  const cap = zone.max_origin_connections;
  card.summary.textContent = "origin " + zone.origin + " · " +
    (cap ? "at most " + cap + " origin connections; a request waits up to " + zone.origin_queue_timeout_seconds + " s for one"
         : "origin connections unlimited");
  if (card.connections) card.connections.fill(zone);
}

function newCard(zone, room) {
  const card = { base: "/client/v4/zones/" + zone.id + "/waiting_rooms/" + room.id, room };
  card.node = element("section", "room");
  card.node.dataset.room = room.id;
  card.title = element("h2", "", zone.name + " / " + room.name + " ");
  card.badge = element("span", "status");
  card.title.append(card.badge);
  card.route = element("div", "muted");
  const figures = element("div", "figures");
  card.active = figure("active users");
  card.queued = figure("queued users");
  card.wait = figure("longest estimated wait");
  card.newInForce = figure("new per minute in force");
  card.activeInForce = figure("active limit in force");
  card.waitWhy = element("small", "muted");
  card.wait.cell.append(card.waitWhy);
  figures.append(card.active.cell, card.queued.cell, card.wait.cell, card.newInForce.cell, card.activeInForce.cell);
  card.guard = element("div", "guard");
  card.guard.dataset.role = "origin-guard-state";
  card.origin = element("div", "muted");
  card.origin.dataset.role = "origin-figures";
  card.notice = element("div", "notice");
  card.notice.setAttribute("role", "status");
  card.chart = element("div");
  card.events = element("div");
  card.rules = element("div");
  card.node.append(card.title, card.route, figures, card.guard, card.origin);
  if (canEdit) card.node.append(...buildControls(card));
  card.node.append(card.notice, card.chart, card.events, card.rules);
  return card;
}

function fillEvents(card, events) {
  const now = Date.now();
  const listed = events.map((event) => [event, eventStage(event, now)]).filter(([, stage]) => stage);
  card.events.replaceChildren(element("h3", "", "Events"));
  if (listed.length === 0) { card.events.append(element("p", "muted", "No upcoming or running events.")); return; }
  const table = element("table");
  for (const [event, stage] of listed) {
    const row = element("tr");
    const badge = element("span", "status " + stage, stage + (event.suspended ? " (suspended)" : ""));
    const cell = element("td");
    cell.append(badge);
    row.append(element("td", "", event.name), cell,
               element("td", "muted", (event.prequeue_start_time ? "prequeue " + event.prequeue_start_time + " · " : "") +
                                        event.event_start_time + " → " + event.event_end_time));
    table.append(row);
  }
  card.events.append(table);
}

function fillRules(card, rules) {
  card.rules.replaceChildren(element("h3", "", "Bypass rules"));
  if (rules.length === 0) { card.rules.append(element("p", "muted", "No bypass rules.")); return; }
  const table = element("table");
  for (const rule of rules) {
    const row = element("tr");
    row.dataset.rule = rule.id;
    const expression = element("td");
    expression.append(element("code", "", rule.expression));
    row.append(expression, element("td", "", rule.description || ""), element("td", "", rule.enabled ? "enabled" : "disabled"));
    if (canEdit) {
      const toggle = element("button", rule.enabled ? "danger" : "", rule.enabled ? "Disable" : "Enable");
      toggle.type = "button";
      toggle.dataset.action = "toggle-rule";
      toggle.addEventListener("click", () => change(card, (rule.enabled ? "disabled" : "enabled") + " rule " + rule.expression,
                                                    card.base + "/rules/" + rule.id, { enabled: !rule.enabled }, toggle));
      const cell = element("td");
      cell.append(toggle);
      row.append(cell);
    }
    table.append(row);
  }
  card.rules.append(table);
}

async function updateCard(card, room) {
  const [status, chart, events, rules] = await Promise.all([
    api("GET", card.base + "/status"), api("GET", card.base + "/analytics.svg?step=1m", undefined, true),
    api("GET", card.base + "/events?per_page=1000"), api("GET", card.base + "/rules")]);
  card.room = room;
  card.badge.className = "status " + status.status;
  card.badge.textContent = status.status.replace("_", " ");
  const guard = room.origin_guard || {};
  card.route.textContent = room.host + room.path + " · " + room.queueing_method + " · limits " + room.total_active_users + " active, " +
                           room.new_users_per_minute + " new per minute · sessions " + room.session_duration + " min" +
                           (guard.enabled ? " · origin guard on (p95 under " + guard.target_ttfb_ms + " ms, errors under " +
                                            percentText(guard.max_error_rate) + ")" : "") +
                           (room.queue_all ? " · queueing everyone" : "") + (room.suspended ? " · suspended" : "");
  card.active.number.textContent = status.estimated_total_active_users;
  card.queued.number.textContent = status.estimated_queued_users;
  const noWait = whyNoWait(room, status);
  card.wait.number.textContent = noWait ? "—" : status.max_estimated_time_minutes + " min";
  card.waitWhy.textContent = noWait || (status.estimated_queued_users > 0 ? "the wait of someone arriving now" : "");
  const view = originGuardView(status, room, events);
  for (const [part, text, lowered] of [[card.newInForce, view.newInForce, view.newLowered],
                                       [card.activeInForce, view.activeInForce, view.activeLowered]]) {
    part.cell.hidden = text === null;
    part.number.textContent = text === null ? "" : text;
    part.cell.className = lowered ? "lowered" : "";
  }
  card.guard.className = "guard " + (view.state || "");
  card.guard.textContent = view.headline ? view.headline + (view.reason ? " — " + view.reason : "") : "";
  card.guard.hidden = !view.headline;
  card.origin.textContent = view.origin || "";
  card.origin.hidden = !view.origin;
  if (canEdit) {
    if (!card.form.dataset.dirty && !card.form.contains(document.activeElement))
      card.inputs.new_users_per_minute.max = String(room.total_active_users);
    card.queueAll.textContent = room.queue_all ? "Stop queueing everyone" : "Queue everyone";
    card.queueAll.className = room.queue_all ? "" : "danger";
    card.suspend.textContent = room.suspended ? "Resume" : "Suspend";
    card.suspend.className = room.suspended ? "" : "danger";
    // An operator typing a new limit keeps what they typed until they save.
    if (!card.form.dataset.dirty && !card.form.contains(document.activeElement))
      for (const [name, input] of Object.entries(card.inputs)) input.value = String(room[name]);
    card.guardForm.inputs.min_new_users_per_minute.max = String(room.new_users_per_minute);
    card.guardForm.fill(guard);
  }
  // The chart is wr's own SVG (no script in it), parsed rather than injected as markup.
  const svg = new DOMParser().parseFromString(chart, "image/svg+xml").documentElement;
  card.chart.replaceChildren(document.importNode(svg, true));
  fillEvents(card, events);
  fillRules(card, rules);
}

// What "example.com/shop/launch" names in an audit entry, for people.
function auditObject(object) {
  const place = [object.zone && object.type !== "zone" ? object.zone.name : null, object.room ? object.room.name : null, object.name || object.id]
    .filter((part) => part);
  return object.type + " " + place.join("/");
}

function auditValue(value) {
  if (value === null || value === undefined) return "-";
  return typeof value === "string" ? value : JSON.stringify(value);
}

// The latest configuration changes: who, when, from where, and each field before → after.
async function auditPanel() {
  const section = element("section", "audit");
  section.dataset.role = "audit";
  section.append(element("h2", "", "Recent changes"));
  let entries;
  try {
    entries = await api("GET", "/client/v4/audit_logs?per_page=20");
  } catch (error) {
    section.append(element("p", "muted", "The audit log could not be read: " + error.message));
    return section;
  }
  if (entries.length === 0) { section.append(element("p", "muted", "No changes recorded yet.")); return section; }
  const table = element("table");
  for (const entry of entries) {
    const row = element("tr");
    row.dataset.audit = entry.id;
    const changes = element("td");
    for (const change of entry.changes) {
      changes.append(element("div", "", change.field + ": " + auditValue(change.before) + " → " + auditValue(change.after)));
    }
    row.append(element("td", "muted", new Date(entry.when).toLocaleString()), element("td", "", entry.token ? entry.token.name : "-"),
               element("td", "muted", entry.address + " · " + entry.via), element("td", "", entry.action + " " + auditObject(entry.object)),
               changes);
    table.append(row);
  }
  section.append(table);
  return section;
}

const KINDS = ["room.queueing_started", "room.queueing_stopped", "room.wait_above_threshold", "room.wait_below_threshold",
               "event.started", "event.ended", "origin_guard.throttling", "origin_guard.recovered", "node.state_lost",
               "node.state_restored", "node.stopped_reporting", "node.reporting_again"];
const DESTINATIONS = "/client/v4/notifications/destinations";
let notificationNotice = null; // kept across refreshes, so "Saved" stays readable
// The form to add a destination, made once per token and kept across refreshes: a refresh every
// few seconds must never wipe what the operator is typing into it.
let destinationForm = null;

// Runs a change to the notification destinations, then says what happened.
async function notificationChange(what, call, control) {
  if (control) control.disabled = true;
  try {
    const result = await call();
    notificationNotice = { text: "Done: " + what + (result && result.secret ? " — its secret, shown once: " + result.secret : ""), error: false };
  } catch (error) {
    notificationNotice = { text: "Not done: " + what + ": " + error.message, error: true };
  } finally {
    if (control) control.disabled = false;
  }
  if (refreshing) await refreshing;
  await refresh();
}

function addDestinationForm() {
  const form = element("form", "controls");
  form.dataset.role = "add-destination";
  const field = (name, label, type) => {
    const wrapper = element("label", "", label);
    const input = element("input");
    input.name = name;
    input.type = type;
    wrapper.append(input);
    form.append(wrapper);
    return input;
  };
  const name = field("name", "name", "text");
  const url = field("url", "URL (http or https)", "url");
  const secret = field("secret", "secret (16+ characters; empty: wr makes one)", "password");
  secret.autocomplete = "new-password";
  const threshold = field("wait_threshold_minutes", "wait threshold (min)", "number");
  threshold.value = "30";
  const kinds = element("fieldset", "kinds");
  kinds.append(element("legend", "", "kinds (none ticked: every kind)"));
  for (const kind of KINDS) {
    const label = element("label", "", " " + kind);
    const box = element("input");
    box.type = "checkbox";
    box.value = kind;
    label.prepend(box);
    kinds.append(label);
  }
  const save = element("button", "", "Add destination");
  save.type = "submit";
  form.append(kinds, save);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { name: name.value.trim(), url: url.value.trim(), wait_threshold_minutes: Number(threshold.value),
                   kinds: [...kinds.querySelectorAll("input:checked")].map((box) => box.value) };
    if (secret.value) body.secret = secret.value;
    notificationChange("added " + body.name, async () => {
      const result = await api("POST", DESTINATIONS, body);
      form.reset(); // added: the form is ready for the next one (what was refused stays, to be fixed)
      threshold.value = "30";
      return result;
    }, save);
  });
  return form;
}

// The webhook destinations, each with its latest deliveries; an edit token may add, test,
// switch off and remove them.
async function notificationsPanel() {
  const section = element("section", "notifications");
  section.dataset.role = "notifications";
  section.append(element("h2", "", "Notifications"));
  if (notificationNotice) section.append(element("div", "notice" + (notificationNotice.error ? " error" : ""), notificationNotice.text));
  let destinations;
  try {
    destinations = await api("GET", DESTINATIONS + "?per_page=100");
  } catch (error) {
    section.append(element("p", "muted", error.status === 403 ? "Notifications need a token valid for every zone." : "Could not read them: " + error.message));
    return section;
  }
  if (destinations.length === 0) section.append(element("p", "muted", "No webhook destinations yet."));
  for (const destination of destinations) {
    const base = DESTINATIONS + "/" + destination.id;
    const block = element("div", "destination");
    block.dataset.destination = destination.name;
    block.append(element("h3", "", destination.name + " → " + destination.url + (destination.enabled ? "" : " (off)")));
    block.append(element("div", "muted", (destination.kinds.length ? destination.kinds.join(", ") : "every kind") +
                                          " · wait threshold " + destination.wait_threshold_minutes + " min"));
    if (canEdit) {
      const controls = element("div", "controls");
      const test = element("button", "", "Send a test");
      test.type = "button";
      test.dataset.action = "test";
      test.addEventListener("click", () => notificationChange("test sent to " + destination.name, () => api("POST", base + "/test", {}), test));
      const toggle = element("button", destination.enabled ? "danger" : "", destination.enabled ? "Switch off" : "Switch on");
      toggle.type = "button";
      toggle.addEventListener("click", () => notificationChange((destination.enabled ? "switched off " : "switched on ") + destination.name,
                                                                () => api("PATCH", base, { enabled: !destination.enabled }), toggle));
      const remove = element("button", "danger", "Remove");
      remove.type = "button";
      remove.addEventListener("click", () => notificationChange("removed " + destination.name, () => api("DELETE", base), remove));
      controls.append(test, toggle, remove);
      block.append(controls);
    }
    const deliveries = await api("GET", base + "/deliveries?per_page=5");
    if (deliveries.length === 0) {
      block.append(element("p", "muted", "Nothing sent yet."));
    } else {
      const table = element("table");
      const head = element("tr");
      for (const title of ["created", "kind", "status", "attempts", "last answer", "next retry"]) head.append(element("th", "", title));
      table.append(head);
      for (const delivery of deliveries) {
        const row = element("tr");
        row.dataset.delivery = delivery.id;
        row.append(element("td", "muted", new Date(delivery.created_on).toLocaleString()), element("td", "", delivery.kind),
                   element("td", "status " + delivery.status, delivery.status), element("td", "", String(delivery.attempts)),
                   element("td", "", delivery.last_status === null ? (delivery.last_error || "-") : String(delivery.last_status)),
                   element("td", "muted", delivery.next_attempt_on ? new Date(delivery.next_attempt_on).toLocaleString() : "-"));
        table.append(row);
      }
      block.append(table);
    }
    section.append(block);
  }
  if (canEdit) {
    if (!destinationForm) destinationForm = addDestinationForm();
    section.append(destinationForm);
  }
  return section;
}

// Why a room has no wait to show, in the words of the page its visitors see; null when it has one.
function whyNoWait(room, status) {
  if (room.suspended) return "suspended: everyone goes straight to the site, no one waits";
  if (room.queue_all) return "queueing everyone: no estimate until you stop";
  if (status.status === "event_prequeueing") return "prequeue: everyone waits for the event to start";
  if (room.queueing_method === "reject") return "reject: no one is let in";
  if (room.queueing_method === "passthrough") return "passthrough: no one waits";
  if (status.estimated_queued_users === 0) return "no one is waiting";
  return null;
}

// Puts `nodes` in `parent` in that order, moving only those not in place already: a card that
// stays where it was is not taken out of the page, so a field in it keeps the focus and the
// selection (a node moved loses them).
function placeChildren(parent, nodes) {
  nodes.forEach((node, i) => { if (parent.childNodes[i] !== node) parent.insertBefore(node, parent.childNodes[i] || null); });
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

// A field that was moved all the same (a kept form in a panel made anew) gets the focus, and
// the caret, back after `move`: the next keys the operator types land in it.
function keepingFocus(move) {
  const active = document.activeElement;
  let caret = null;
  try { caret = [active.selectionStart, active.selectionEnd]; } catch { caret = null; }
  move();
  if (!active || active === document.body || !active.isConnected || document.activeElement === active) return;
  active.focus({ preventScroll: true });
  if (caret && caret[0] !== null) try { active.setSelectionRange(caret[0], caret[1]); } catch { /* not a text field */ }
}

let refreshing = null;
async function refresh() {
  if (!token) return;
  if (refreshing) return refreshing; // one refresh at a time; a change waits for the running one
  refreshing = (async () => {
    try {
      const seen = new Set();
      const order = [];
      const seenZones = new Set();
      let rooms = 0;
      for (const zone of await api("GET", "/client/v4/zones?per_page=1000")) {
        let zoneCard = zoneCards.get(zone.id);
        if (!zoneCard) { zoneCard = newZoneCard(zone); zoneCards.set(zone.id, zoneCard); }
        updateZoneCard(zoneCard, zone);
        seenZones.add(zone.id);
        order.push(zoneCard.node);
        for (const room of await api("GET", "/client/v4/zones/" + zone.id + "/waiting_rooms?per_page=1000")) {
          rooms += 1;
          let card = cards.get(room.id);
          if (!card) { card = newCard(zone, room); cards.set(room.id, card); }
          await updateCard(card, room);
          seen.add(room.id);
          order.push(card.node);
        }
      }
      for (const id of [...cards.keys()]) if (!seen.has(id)) cards.delete(id);
      for (const id of [...zoneCards.keys()]) if (!seenZones.has(id)) zoneCards.delete(id);
      if (rooms === 0) order.push(element("p", "", "No waiting rooms yet: create one with `wr rooms create` or the API."));
      order.push(await notificationsPanel());
      order.push(await auditPanel());
      keepingFocus(() => placeChildren(main, order));
      document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString() + " · refreshes every " + REFRESH_MS / 1000 + " s";
    } catch (error) {
      if (error.status === 401) return signIn("That token was refused.");
      document.getElementById("updated").textContent = "could not refresh: " + error.message;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function start(secret) {
  token = secret;
  try {
    const verified = await api("GET", "/client/v4/user/tokens/verify");
    canEdit = verified.scope === "edit";
    canEditZones = canEdit && !verified.zone_id;
    document.getElementById("scope").textContent = (canEdit ? "edit" : "read-only") + " token" +
                                                   (verified.zone_id ? " for zone " + verified.zone_id : "");
  } catch (error) {
    return signIn(error.status === 401 ? "That token was refused." : "Could not check the token: " + error.message);
  }
  cards.clear();
  zoneCards.clear();
  destinationForm = null;
  await refresh();
}

// A token handed over in the address (#token=…, as `make demo` prints it) is read once and
// removed from the address bar and history.
function tokenFromHash() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  history.replaceState(null, "", location.pathname);
  return fromHash;
}
const fromHash = tokenFromHash();
if (fromHash) start(fromHash); else signIn();
// A new #token=… link pasted into an open console takes effect (reading the address only at
// load would keep the old token, or the sign-in form, until a reload).
window.addEventListener("hashchange", () => {
  const pasted = tokenFromHash();
  if (pasted && pasted !== token) start(pasted);
});
setInterval(() => { if (token && !refreshing) refresh(); }, REFRESH_MS);
