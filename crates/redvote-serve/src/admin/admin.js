// redvote admin page: plain JavaScript, no framework, no build step.
//
// The admin token is asked once and kept in sessionStorage (gone when the
// tab closes); every API call sends it as "Authorization: Bearer", never
// in a URL. The live top is an EventSource on /v1/.../top/stream, which
// cannot send headers: the page first asks POST .../top/ticket for a
// short-lived ticket of that board and puts it in the URL only when the
// service needs one (it has an API token); otherwise the URL carries
// nothing. When the stream fails the table is marked stale, the page
// retries with backoff (a fresh ticket when the old one expired) and gives
// up after MAX_ATTEMPTS with a Reconnect button.
//
// The statistics are drawn as SVG by this file (no chart library); the
// export and the statistics' CSV are fetched with the token and handed to
// the browser as a download (a blob URL), so no token is in a link.
// Destructive actions (removing an option, voiding, revoking a key) ask
// first in the page's own dialog (#confirm).
"use strict";

const TOKEN_KEY = "redvote-admin-token";
const $ = (sel) => document.querySelector(sel);
const state = { campaign: null, board: null, settings: null, exists: false };

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

function status(text, bad) {
  const el = $("#status");
  el.textContent = text;
  el.className = bad ? "error" : "muted";
}

const enc = encodeURIComponent;

// One API call: resolves to { ok, status, body } (body: parsed JSON or
// null; status 0: no answer at all).
async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + token() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (_) {
    return { ok: false, status: 0, body: null };
  }
  let json = null;
  try { json = await res.json(); } catch (_) { /* empty body */ }
  return { ok: res.ok, status: res.status, body: json };
}

// The API's problem codes in words.
const SENTENCES = {
  REDVOTE_INVALID_CONFIG: "These settings are not valid",
  REDVOTE_INVALID_NAME: "That name is not valid (1 to 64 bytes, without spaces, commas, colons, braces, * ? [ ] or backslashes)",
  REDVOTE_INVALID_NUMBER: "That is not a valid number",
  REDVOTE_INVALID_PERIOD: "That period is not valid",
  REDVOTE_INVALID_USER: "That user id is not valid",
  REDVOTE_OUT_OF_RANGE: "A value is out of range",
  REDVOTE_CONFIG_LOCKED: "These settings cannot be changed any more",
  REDVOTE_UNKNOWN_CAMPAIGN: "There is no such campaign",
  REDVOTE_UNKNOWN_BOARD: "There is no such board",
  REDVOTE_UNKNOWN_OPTION: "There is no such option",
  REDVOTE_UNAUTHORIZED: "The admin token is missing or wrong: enter it at the top of the page",
  REDVOTE_ADMIN_DISABLED: "The service was started without an admin token, so the admin routes are off",
  REDVOTE_UNAVAILABLE: "Redis is unavailable right now; try again in a moment",
  REDVOTE_TIMEOUT: "The service took too long to answer; try again",
  REDVOTE_OUT_OF_MEMORY: "Redis is out of memory",
  REDVOTE_USAGE: "The request was not understood",
  REDVOTE_BAD_REQUEST: "The request was not understood",
  REDVOTE_TOO_LARGE: "That is too large for the service",
  REDVOTE_INTERNAL: "The service failed unexpectedly",
};

// A refusal as a sentence, then the server's detail and its code.
function problemText(r) {
  if (r.status === 0) return "The service did not answer: is it running?";
  const b = r.body || {};
  const words = SENTENCES[b.code] ||
    (r.status >= 500 ? "The service failed" : "The request was refused");
  return words + (b.detail ? ": " + b.detail : "") + "." + (b.code ? " (" + b.code + ")" : "");
}

// ---- errors next to their fields -------------------------------------------

// The error element of `field` in `form`, and the controls it describes.
function errorOf(form, field) {
  return form.querySelector('.error[data-field="' + CSS.escape(field) + '"]');
}

function clearErrors(form) {
  form.querySelectorAll(".error").forEach((e) => { e.textContent = ""; });
  form.querySelectorAll('[aria-invalid="true"]').forEach((e) => e.removeAttribute("aria-invalid"));
  form.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  const summary = form.querySelector(".summary");
  if (summary) summary.textContent = "";
}

// Shows `text` next to `field` of `form`: the controls that point to the
// error element (aria-describedby) get aria-invalid="true"; the form's
// summary (role="alert") says what failed. Focuses the first such control.
function fieldError(form, field, text, what) {
  const el = errorOf(form, field);
  el.textContent = text;
  const controls = [...document.querySelectorAll("[aria-describedby]")]
    .filter((c) => c.getAttribute("aria-describedby").split(/\s+/).includes(el.id));
  controls.filter((c) => c.matches("input, select, textarea"))
    .forEach((c) => c.setAttribute("aria-invalid", "true"));
  const box = el.closest(".field, tr");
  if (box) box.classList.add("invalid");
  const summary = form.querySelector(".summary");
  if (summary) summary.textContent = (what ? what + ": " : "") + text;
  if (controls[0] && controls[0].form === form) controls[0].focus();
}

// Shows a refusal next to the field its detail names (the scripts' details
// start with the board, option and field: "votes/alice: weight must be ...").
function showError(form, r, fields, fallback, what) {
  const detail = (r.body && r.body.detail) || "";
  const hit = fields.find((f) => f.match(detail));
  fieldError(form, hit ? hit.field : fallback, problemText(r), what);
}

// ---- campaigns and boards --------------------------------------------------

async function loadCampaigns() {
  const names = [];
  let cursor = "0";
  // Pages of the campaign registry, O(log N + count) each; bounded, so a
  // huge registry shows its first 25,000 names (the rest open by name).
  for (let i = 0; i < 50; i++) {
    const r = await api("GET", "/v1/campaigns?count=500&cursor=" + enc(cursor));
    if (!r.ok) { status(problemText(r), true); return; }
    names.push(...r.body.campaigns);
    cursor = r.body.next;
    if (cursor === "0") break;
  }
  const sel = $("#campaign");
  const unique = names.slice().sort();
  sel.replaceChildren(new Option("(none chosen)", ""), ...unique.map((n) => new Option(n, n)));
  // what is open stays open (a typed name may not be listed yet)
  let pick = state.campaign || unique[0] || "";
  if (pick && !unique.includes(pick)) sel.append(new Option(pick, pick));
  sel.value = pick;
  status(unique.length ? unique.length + " campaign(s)" : "no campaign yet: type a name to create one");
  const r = await openCampaign(pick || null);
  if (r && !r.ok && r.status !== 404 && !state.readOnly) status(problemText(r), true);
}

// Opens the campaign `name` (null: none): its settings, its boards, the
// live top of its board. An unknown name opens empty forms: saving the
// campaign creates it. Another refusal (a malformed name, no token)
// opens nothing. Resolves to the settings' reply (null for none).
async function openCampaign(name) {
  stopFoldState();
  state.campaign = name;
  state.settings = null;
  state.exists = false;
  state.deny = null;
  state.optionData = null;
  state.readOnly = false;
  document.body.removeAttribute("data-read-only");
  audit.before = null;
  audit.stack = [];
  $("#campaign-title").textContent = name ? name : "(no campaign open)";
  if (!name) {
    fillCampaignForm({});
    setBoards([]);
    loadAudit();
    return null;
  }
  const [r, d] = await Promise.all([
    api("GET", "/v1/campaigns/" + enc(name) + "/settings"),
    api("GET", "/v1/campaigns/" + enc(name) + "/deny"),
  ]);
  if (state.campaign !== name) return r; // another one was opened meanwhile
  if (r.ok) {
    state.settings = r.body;
    state.exists = true;
    // the deny lists are sent back only once read (else left as they are)
    state.deny = d.ok ? d.body : null;
  } else if (r.status === 404) {
    state.settings = { boards: {} };
    state.deny = { users: [], channels: [] };
    status("no campaign " + name + " yet: save its settings to create it");
  } else if (r.status === 403 && r.body && r.body.code === "REDVOTE_FORBIDDEN") {
    // a team key that may only read (or vote): the live top and the
    // statistics of a board typed by name, nothing else
    state.settings = { boards: {} };
    state.readOnly = true;
    document.body.dataset.readOnly = "1";
    status("this key may not change campaign " + name + ": type a board name to follow its live top and statistics");
  } else {
    state.campaign = null;
    $("#campaign-title").textContent = "(no campaign open)";
    fillCampaignForm({});
    setBoards([]);
    return r;
  }
  fillCampaignForm(state.settings);
  setBoards(Object.keys(state.settings.boards || {}).sort());
  loadFoldState();
  voidHint();
  loadAudit();
  return r;
}

function setBoards(boards) {
  const sel = $("#board");
  const keep = state.board;
  sel.replaceChildren(new Option("(none chosen)", ""), ...boards.map((b) => new Option(b, b)));
  sel.value = keep && boards.includes(keep) ? keep : (boards[0] || "");
  pickBoard();
}

function pickBoard() {
  state.board = $("#board").value || null;
  fillBoardForm();
  startLive();
  loadStats();
}

async function openTyped(ev) {
  ev.preventDefault();
  const f = $("#open-form");
  clearErrors(f);
  const name = $("#campaign-name").value.trim();
  if (!name) {
    fieldError(f, "campaign-name", "Type a campaign name first.");
    return;
  }
  const r = await openCampaign(name);
  if (r && !r.ok && r.status !== 404 && !state.readOnly) {
    fieldError(f, "campaign-name", problemText(r));
    $("#campaign").value = "";
    return;
  }
  const sel = $("#campaign");
  if (![...sel.options].some((o) => o.value === name)) sel.append(new Option(name, name));
  sel.value = name;
}

function openTypedBoard(ev) {
  ev.preventDefault();
  const f = $("#open-board-form");
  clearErrors(f);
  const name = $("#board-typed").value.trim();
  if (!state.campaign) {
    fieldError(f, "board-typed", "Open a campaign first.");
    return;
  }
  if (!name) {
    fieldError(f, "board-typed", "Type a board name first.");
    return;
  }
  const sel = $("#board");
  if (![...sel.options].some((o) => o.value === name)) sel.append(new Option(name, name));
  sel.value = name;
  pickBoard();
}

// ---- live top (SSE) --------------------------------------------------------

// Seconds between attempts to reopen a failed stream; then it gives up.
const BACKOFF = [1, 2, 4, 8, 15, 30];
const MAX_ATTEMPTS = 8;
const live = {
  gen: 0, source: null, timer: null, tick: null, attempts: 0,
  ticket: null, lastEvent: null, url: "",
};

function clock(d) { return d.toTimeString().slice(0, 8); }

function setLiveState(text) {
  $("#live-state").textContent = text;
  $("#live").dataset.state = text;
}

function clearTimers() {
  clearTimeout(live.timer);
  clearInterval(live.tick);
  live.timer = live.tick = null;
}

function fresh() {
  $("#live").classList.remove("stale");
  $("#live-stale").hidden = true;
  $("#live-reconnect").hidden = true;
}

// Marks the table stale: what it shows stopped at `since`.
function stale(text) {
  $("#live").classList.add("stale");
  $("#live-stale").hidden = false;
  $("#live-stale-text").textContent = text;
}

function stopLive() {
  live.gen++;
  clearTimers();
  if (live.source) live.source.close();
  live.source = null;
  fresh();
  setLiveState("not connected");
}

function startLive() {
  stopLive();
  live.attempts = 0;
  live.lastEvent = null;
  live.shown = undefined;
  if (!state.campaign || !state.board) return;
  connect(live.gen);
}

// A ticket of the open board: the one in hand while it has 5 s left, else
// a new one (null and a reason when none could be had).
async function streamTicket() {
  const key = state.campaign + "\n" + state.board;
  const t = live.ticket;
  if (t && t.key === key && t.until - Date.now() > 5000) return { ticket: t };
  const r = await api("POST", "/v1/campaigns/" + enc(state.campaign) + "/boards/" +
    enc(state.board) + "/top/ticket");
  if (!r.ok) return { reason: problemText(r) };
  live.ticket = {
    key, ticket: r.body.ticket, required: r.body.required,
    until: Date.now() + r.body.expires_in * 1000,
  };
  return { ticket: live.ticket };
}

async function connect(gen) {
  setLiveState(live.attempts ? "reconnecting" : "connecting");
  const got = await streamTicket();
  if (gen !== live.gen) return;
  if (!got.ticket) { failed(gen, got.reason); return; }
  const q = new URLSearchParams({ period: $("#period").value, kind: $("#kind").value, n: "10" });
  // the ticket only where the service needs one; never a token
  if (got.ticket.required) q.set("ticket", got.ticket.ticket);
  const url = "/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) +
    "/top/stream?" + q;
  const source = new EventSource(url);
  live.source = source;
  live.url = url;
  source.onopen = () => {
    if (gen !== live.gen) return;
    live.attempts = 0;
    setLiveState("live");
  };
  // EventSource would retry by itself with the same URL (and an expired
  // ticket): the page retries instead, with backoff and a fresh ticket.
  let opened = 0;
  source.addEventListener("open", () => { opened = Date.now(); });
  source.onerror = async () => {
    if (gen !== live.gen) return;
    source.close();
    live.source = null;
    // a stream that ran a while and ended (its `seconds`, 300 by default)
    // is opened again at once, without a stale mark
    if (opened && Date.now() - opened > 10000 && live.attempts === 0) {
      live.attempts = 1;
      connect(gen);
      return;
    }
    const why = await explain(opened > 0);
    if (gen === live.gen) failed(gen, why);
  };
  source.addEventListener("top", (e) => {
    if (gen !== live.gen) return;
    live.lastEvent = new Date();
    live.attempts = 0;
    setLiveState("live");
    fresh();
    $("#live-error").textContent = "";
    renderTop(JSON.parse(e.data));
  });
  source.addEventListener("problem", (e) => {
    if (gen !== live.gen) return;
    const p = JSON.parse(e.data);
    const text = problemText({ status: p.status, body: p });
    setLiveState("stale");
    stale("Live updates stopped at " + clock(live.lastEvent || new Date()) +
      ": " + text + " The server keeps reading.");
  });
}

// Why a stream failed, in words: EventSource does not tell, /readyz
// (open, cheap) says whether the service and its Redis answer.
async function explain(opened) {
  let ready = 0;
  try { ready = (await fetch("/readyz", { cache: "no-store" })).status; } catch (_) { ready = 0; }
  if (ready === 0) return "the service does not answer";
  if (ready !== 200) return "Redis is unavailable";
  return opened ? "the connection was cut" : "the stream could not be opened";
}

// The stream failed (`why`): stale, then a retry after the backoff, or
// the Reconnect button after MAX_ATTEMPTS.
function failed(gen, why) {
  clearTimers();
  live.attempts++;
  const since = "Live updates stopped at " + clock(live.lastEvent || new Date());
  if (live.attempts > MAX_ATTEMPTS) {
    setLiveState("stopped");
    stale(since + " (" + why + "); gave up after " + MAX_ATTEMPTS + " attempts.");
    $("#live-reconnect").hidden = false;
    return;
  }
  setLiveState("stale");
  let left = BACKOFF[Math.min(live.attempts - 1, BACKOFF.length - 1)];
  const say = () => stale(since + " (" + why + "); retrying in " + left + " s (attempt " +
    live.attempts + " of " + MAX_ATTEMPTS + ").");
  say();
  live.tick = setInterval(() => { left = Math.max(0, left - 1); say(); }, 1000);
  live.timer = setTimeout(() => {
    clearTimers();
    if (gen === live.gen) connect(gen);
  }, left * 1000);
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function renderTop(top) {
  $("#live-board").textContent = top.board;
  $("#live-period").textContent = top.period;
  $("#live-kind").textContent = top.kind;
  $("#live-size").textContent = top.size;
  $("#live-participants").textContent = top.participants;
  const rows = top.entries.map((e) => {
    const tr = document.createElement("tr");
    tr.dataset.member = e.member;
    tr.append(cell(e.rank, "rank"), cell(e.member, "member"), cell(e.score, "score"),
      cell(e.participants, "participants"));
    return tr;
  });
  $("#top tbody").replaceChildren(...rows);
  $("#live").dataset.updated = String(Date.now());
  // the charts follow the votes the live top shows (at most once a second)
  if (live.shown !== undefined && live.shown !== top.size + ":" + JSON.stringify(top.entries)) statsSoon();
  live.shown = top.size + ":" + JSON.stringify(top.entries);
}

// ---- dates in the campaign's offset ---------------------------------------

// "+08:00" -> seconds east of UTC (null: not an offset).
function offsetSeconds(text) {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(text);
  if (!m || Number(m[2]) > 23 || Number(m[3]) > 59) return null;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60);
}

const pad = (n, w) => String(n).padStart(w || 2, "0");

// Unix seconds -> "YYYY-MM-DDTHH:MM[:SS]" on the wall clock of the
// offset (the seconds when not 0, as the browser shows the field).
function toLocal(unix, off) {
  const d = new Date((unix + off) * 1000);
  return pad(d.getUTCFullYear(), 4) + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) +
    "T" + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) +
    (d.getUTCSeconds() ? ":" + pad(d.getUTCSeconds()) : "");
}

// "YYYY-MM-DDTHH:MM[:SS]" read on the wall clock of the offset -> Unix
// seconds (null: not a date-time).
function fromLocal(text, off) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
  return ms / 1000 - off;
}

// The offset the form holds (the campaign's default when empty).
function formOffset() {
  const t = $("#f-offset").value.trim();
  return t === "" ? 0 : offsetSeconds(t);
}

// ---- rate-limit rules as a form ---------------------------------------------

const DIMENSIONS = ["user", "option", "channel", "device"];
const WINDOWS = ["second", "minute", "hour", "day", "week", "month", "campaign"];
let ruleSeq = 0;

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("aria-") || k.startsWith("data-") || k === "for") e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
}

// A labelled control: <span class="pair"><label>text</label> control</span>.
function labelled(text, control) {
  return el("span", { class: "pair" }, el("label", { for: control.id }, text), " ", control);
}

// One rule's row (a fieldset): name, counted per, fixed window or rolling,
// limit, per, burst, extra per channel; its error next to it.
function ruleRow(rule) {
  const i = ruleSeq++;
  const err = "r-" + i + "-error";
  const input = (cls, value, size, mode) => el("input", {
    id: "r-" + i + "-" + cls, className: "r-" + cls, value: value ?? "", size: size || 6,
    inputMode: mode || "text", "aria-describedby": err,
  });
  const rolling = !!rule.rolling;
  const kind = el("select", { id: "r-" + i + "-kind", className: "r-kind", "aria-describedby": err },
    new Option("fixed window", "fixed"), new Option("rolling", "rolling"));
  kind.value = rolling ? "rolling" : "fixed";
  const win = el("select", { id: "r-" + i + "-window", className: "r-window", "aria-describedby": err },
    ...WINDOWS.map((w) => new Option(w === "campaign" ? "whole campaign" : w, w)));
  win.value = rule.window || "minute";
  const by = el("fieldset", { class: "by" }, el("legend", {}, "Counted per"),
    ...DIMENSIONS.map((d) => {
      const c = el("input", { type: "checkbox", name: "by-" + i, value: d, "aria-describedby": err });
      c.checked = (rule.by || ["user"]).includes(d);
      return el("label", {}, c, " " + d);
    }));
  const limit = input("limit", rolling ? rule.rolling.limit : rule.limit, 6, "numeric");
  const per = input("per", rolling ? rule.rolling.per : "", 6, "numeric");
  const burst = input("burst", rolling ? rule.rolling.burst : "", 6, "numeric");
  const extra = input("extra", Object.entries(rule.extra || {}).map(([c, n]) => c + "=" + n).join(", "), 14);
  extra.placeholder = "partner=5";
  const remove = el("button", { type: "button", className: "r-remove" }, "Remove rule");
  const fixedOnly = el("span", { class: "fixed-only" }, labelled("Window", win));
  const rollingOnly = el("span", { class: "rolling-only" },
    labelled("per (seconds)", per), labelled("Burst (at once)", burst));
  const row = el("fieldset", { class: "rule" },
    el("legend", {}, "Rule"),
    labelled("Name", input("name", rule.name, 14)),
    by,
    labelled("Kind", kind), fixedOnly,
    labelled("Votes allowed", limit), rollingOnly,
    labelled("Extra per channel", extra),
    remove,
    el("span", { class: "error", id: err, "data-field": "rule:" + i }));
  row.dataset.rule = String(i);
  const sync = () => {
    fixedOnly.hidden = kind.value !== "fixed";
    rollingOnly.hidden = kind.value !== "rolling";
  };
  kind.addEventListener("change", sync);
  remove.addEventListener("click", () => { row.remove(); previewLimits(); $("#add-rule").focus(); });
  sync();
  return row;
}

function fillRules(limits) {
  $("#rules").replaceChildren(...(limits || []).map(ruleRow));
  previewLimits();
}

// The rules the form holds: { rules } or { error: [field, text] }.
function readRules() {
  const rules = [];
  const names = new Set();
  for (const row of $("#rules").querySelectorAll("fieldset.rule")) {
    const i = row.dataset.rule;
    const f = "rule:" + i;
    const get = (c) => row.querySelector(".r-" + c).value.trim();
    const name = get("name");
    if (!name) return { error: [f, "Give the rule a name."] };
    if (!NAME.test(name) || name === "@") {
      return { error: [f, "A rule's name is 1 to 64 characters without spaces, commas, colons, braces, * ? [ ] or backslashes (and not @)."] };
    }
    if (names.has(name)) return { error: [f, "Two rules are named " + name + ": names must differ."] };
    names.add(name);
    const by = [...row.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value);
    if (!by.length) return { error: [f, "Rule " + name + ": tick what it counts per (at least one)."] };
    const limit = get("limit");
    if (!WHOLE.test(limit)) return { error: [f, "Rule " + name + ": votes allowed is a whole number."] };
    const rule = { name, by };
    if (get("kind") === "fixed") {
      rule.window = get("window");
      rule.limit = Number(limit);
    } else {
      const per = get("per");
      const burst = get("burst");
      if (!WHOLE.test(per) || Number(per) < 1) return { error: [f, "Rule " + name + ": per is a whole number of seconds, at least 1."] };
      if (burst && !WHOLE.test(burst)) return { error: [f, "Rule " + name + ": burst is a whole number, or nothing (as many as votes allowed)."] };
      rule.rolling = { limit: Number(limit), per: Number(per) };
      if (burst) rule.rolling.burst = Number(burst);
    }
    const extra = get("extra");
    if (extra) {
      rule.extra = {};
      for (const part of extra.split(",").map((p) => p.trim()).filter(Boolean)) {
        const m = /^([^=\s]+)\s*=\s*(\d+)$/.exec(part);
        if (!m || !NAME.test(m[1])) return { error: [f, "Rule " + name + ": extra per channel reads channel=number, comma-separated (partner=5)."] };
        rule.extra[m[1]] = Number(m[2]);
      }
    }
    rules.push(rule);
  }
  return { rules };
}

const WINDOW_WORDS = {
  second: "a second", minute: "a minute", hour: "an hour", day: "a day", week: "a week",
  month: "a month", campaign: "in the whole campaign",
};
const SUBJECT = {
  user: "a user may vote", option: "an option may be voted for",
  channel: "a channel may vote", device: "a device type may vote",
};
const EACH = { user: "for each user", option: "for each option", channel: "through each channel", device: "on each device" };

function times(n) { return n === 1 ? "once" : n + " times"; }

// One rule's allowance in words: "5 times a minute" (first) or "10 an hour".
function allowance(rule, first) {
  let text;
  if (rule.rolling) {
    const r = rule.rolling;
    text = (first ? times(r.limit) : r.limit) + " every " + (r.per === 1 ? "second" : r.per + " seconds") +
      ", evenly spaced (" + (r.burst ?? r.limit) + " at once)";
  } else {
    text = (first ? times(rule.limit) : String(rule.limit)) + " " + WINDOW_WORDS[rule.window];
  }
  const extra = Object.entries(rule.extra || {}).map(([c, n]) => "+" + n + " through " + c);
  return text + (extra.length ? " (" + extra.join(", ") + ")" : "");
}

// The rules in plain words, a sentence for each set of dimensions.
function limitsInWords(rules) {
  if (!rules.length) return "No rate limit: anyone may vote as often as they like.";
  const groups = new Map();
  for (const r of rules) {
    const key = DIMENSIONS.filter((d) => r.by.includes(d)).join("+");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const sentences = [];
  for (const [key, group] of groups) {
    const dims = key.split("+");
    const phrase = SUBJECT[dims[0]] + " " + group.map((r, i) => allowance(r, i === 0)).join(", ") +
      dims.slice(1).map((d) => " " + EACH[d]).join("");
    sentences.push(phrase.charAt(0).toUpperCase() + phrase.slice(1) + ".");
  }
  return sentences.join(" ");
}

function previewLimits() {
  // each rule's legend says which it is
  [...$("#rules").querySelectorAll("fieldset.rule")].forEach((row, n) => {
    const name = row.querySelector(".r-name").value.trim();
    row.querySelector("legend").textContent = "Rule " + (n + 1) + (name ? ": " + name : "");
  });
  const got = readRules();
  $("#limits-preview").textContent = got.error ? "Preview: " + got.error[1] : limitsInWords(got.rules);
}

// ---- settings forms ----------------------------------------------------------

function fillCampaignForm(s) {
  const f = $("#campaign-form");
  clearErrors(f);
  f.offset.value = s.offset || "";
  const off = offsetSeconds(s.offset || "+00:00") ?? 0;
  $("#f-dates-offset").textContent = s.offset || "+00:00";
  f.start.value = s.start != null ? toLocal(s.start, off) : "";
  f.end.value = s.end != null ? toLocal(s.end, off) : "";
  f.vote_id_ttl.value = s.vote_id_ttl ?? "";
  f.vote_log.value = s.vote_log ?? "";
  f.mode.value = s.mode || "immediate";
  f.fold_ms.value = s.fold_ms ?? "";
  fillRules(s.limits);
  f.deny_users.value = ((state.deny || {}).users || []).join("\n");
  f.deny_channels.value = ((state.deny || {}).channels || []).join("\n");
}

// A number when the text is one, else the text (the server says what is wrong).
function num(v) { return v.trim() !== "" && !isNaN(Number(v)) ? Number(v) : v.trim(); }

const WHOLE = /^\d+$/;
// The name rule of campaigns, boards and options (the service checks it too).
const NAME = /^[^\s,:{}*?[\]\\]{1,64}$/;

// Refuses to save without an open campaign (and board): nothing is sent.
function needCampaign(form, field, what, board) {
  if (!state.campaign) {
    const text = "No campaign is open: choose one in the list or type its name and press Open.";
    fieldError(form, field, text, what);
    // and next to the campaign's own field, which gets the focus
    const open = $("#open-form");
    clearErrors(open);
    fieldError(open, "campaign-name", text);
    return false;
  }
  if (board && !state.board) {
    fieldError(form, field, "No board is open: add one above, or choose one in the list at the top.", what);
    return false;
  }
  return true;
}

const lines = (text) => [...new Set(text.split("\n").map((l) => l.trim()).filter(Boolean))];

async function saveCampaign(ev) {
  ev.preventDefault();
  const f = $("#campaign-form");
  const what = "The campaign was not saved";
  clearErrors(f);
  if (!needCampaign(f, "campaign", what, false)) return;
  const doc = {};
  const off = formOffset();
  if (f.offset.value.trim()) {
    if (off === null) { fieldError(f, "offset", "Enter an offset from UTC as +HH:MM or -HH:MM, e.g. +08:00.", what); return; }
    doc.offset = f.offset.value.trim();
  }
  for (const k of ["start", "end"]) {
    const v = f[k].value.trim();
    if (!v) {
      // an emptied field clears a stored date (null); none stored: nothing sent
      if (state.exists && state.settings && state.settings[k] != null) doc[k] = null;
      continue;
    }
    const unix = off === null ? null : fromLocal(v, off);
    if (unix === null || unix < 0) { fieldError(f, k, "Enter a date and time (after 1970), or nothing.", what); return; }
    doc[k] = unix;
  }
  if (doc.start != null && doc.end != null && doc.end <= doc.start) {
    fieldError(f, "end", "The end must come after the start.", what);
    return;
  }
  const ttl = f.vote_id_ttl.value.trim();
  if (ttl) {
    if (!WHOLE.test(ttl)) { fieldError(f, "vote_id_ttl", "Enter a whole number of seconds, or nothing.", what); return; }
    doc.vote_id_ttl = Number(ttl);
  }
  const log = f.vote_log.value.trim();
  if (log) {
    if (!WHOLE.test(log)) { fieldError(f, "vote_log", "Enter a whole number of votes to keep (0: no log), or nothing.", what); return; }
    doc.vote_log = Number(log);
  }
  // the mode is sent when it changes (a change folds what is buffered)
  if (f.mode.value !== ((state.settings || {}).mode || "immediate")) doc.mode = f.mode.value;
  const foldMs = f.fold_ms.value.trim();
  if (foldMs) {
    if (!WHOLE.test(foldMs) || Number(foldMs) < 10 || Number(foldMs) > 60000) {
      fieldError(f, "fold_ms", "Enter a whole number of milliseconds from 10 to 60000, or nothing.", what);
      return;
    }
    doc.fold_ms = Number(foldMs);
  }
  const got = readRules();
  if (got.error) { fieldError(f, got.error[0], got.error[1], what); return; }
  doc.limits = got.rules;
  if (state.deny) doc.deny = { users: lines(f.deny_users.value), channels: lines(f.deny_channels.value) };
  const name = state.campaign;
  // the status changes at once, so that "saved" below is this save's
  status("saving campaign " + name + "…");
  const r = await api("PUT", "/v1/campaigns/" + enc(name) + "/settings", doc);
  if (!r.ok) {
    const fields = ["offset", "start", "end", "vote_id_ttl", "vote_log", "fold_ms", "mode", "deny"].map((field) => ({
      field, match: (d) => new RegExp("^" + field + "\\b|\\b" + field + "\\b").test(d),
    }));
    // the script names a rule by its place ("limit rule 2: ...") or its
    // name ("limit rule user-minute: ...")
    [...$("#rules").querySelectorAll("fieldset.rule")].forEach((row, n) => {
      const rn = row.querySelector(".r-name").value.trim();
      fields.push({
        field: "rule:" + row.dataset.rule,
        match: (d) => d.includes("limit rule " + (n + 1) + ":") || (rn !== "" && d.includes("limit rule " + rn + ":")),
      });
    });
    fields.push({ field: "limits", match: (d) => /limit|rule|window|rolling/.test(d) });
    showError(f, r, fields, "campaign", what);
    return;
  }
  await loadCampaigns();
  status("campaign " + name + " saved");
}

// ---- a buffered campaign's fold lag ----------------------------------------------

// How long ago, in words: "0.4 s", "12 s", "3 min 5 s".
function ago(ms) {
  if (ms < 10000) return (ms / 1000).toFixed(1) + " s";
  const s = Math.round(ms / 1000);
  return s < 60 ? s + " s" : Math.floor(s / 60) + " min " + (s % 60) + " s";
}

const fold = { timer: null };

function stopFoldState() {
  clearTimeout(fold.timer);
  fold.timer = null;
  $("#fold-state").hidden = true;
}

// The open campaign's mode and, when buffered, its fold lag (the age of
// the oldest vote not yet on the boards), read again every 2 s while it
// is buffered: GET .../fold, one O(1) read.
async function loadFoldState() {
  clearTimeout(fold.timer);
  const name = state.campaign;
  if (!name || !state.exists || state.readOnly) { stopFoldState(); return; }
  const r = await api("GET", "/v1/campaigns/" + enc(name) + "/fold");
  if (state.campaign !== name) return;
  const box = $("#fold-state");
  if (!r.ok) { box.hidden = true; return; }
  const s = r.body;
  box.dataset.mode = s.mode;
  $("#fold-mode").textContent = s.mode;
  if (s.mode !== "buffered") {
    $("#fold-lag").textContent = "each vote is on the boards when it is answered";
  } else {
    const every = "folded every " + s.fold_ms + " ms";
    $("#fold-lag").textContent = s.buffered === 0
      ? every + ": all votes on the boards"
      : every + ": fold lag " + ago(s.lag_ms) + " (" + s.buffered + " vote" + (s.buffered === 1 ? "" : "s") + " waiting)";
    fold.timer = setTimeout(loadFoldState, 2000);
  }
  box.hidden = false;
}

// ---- boards and their options --------------------------------------------------

async function addBoard(ev) {
  ev.preventDefault();
  const f = $("#add-board-form");
  const what = "No board was added";
  clearErrors(f);
  if (!needCampaign(f, "new-board", what, false)) return;
  const name = $("#new-board").value.trim();
  if (!NAME.test(name)) {
    fieldError(f, "new-board", "A board name is 1 to 64 characters without spaces, commas, colons, braces, * ? [ ] or backslashes.", what);
    return;
  }
  if (state.settings && (state.settings.boards || {})[name]) {
    fieldError(f, "new-board", "There is a board " + name + " already: choose it in the list at the top.", what);
    return;
  }
  const r = await api("PUT", "/v1/campaigns/" + enc(state.campaign) + "/settings",
    { boards: { [name]: { periods: ["total"] } } });
  if (!r.ok) { fieldError(f, "new-board", problemText(r), what); return; }
  $("#new-board").value = "";
  state.board = name;
  await loadCampaigns();
  status("board " + name + " added (periods: total): set it up below");
  // on to the new board's first setting
  $("#board-name").scrollIntoView({ block: "start" });
  $('#f-periods input[value="hour"]').focus();
}

// The fields of display data the table shows apart; the rest is "other".
const SHOWN = ["name", "picture"];

// One option's row (a fieldset named by its id): display name, image URL,
// other data, weight, remove.
function optionRow(o, i, weight, isNew) {
  const err = "w-" + i + "-error";
  const derr = "o-" + i + "-error";
  const text = (cls, label, size) => {
    const input = el("input", { id: "o-" + i + "-" + cls, className: "opt-" + cls, size, "aria-describedby": derr });
    input.dataset.option = o;
    return labelled(label, input);
  };
  const w = el("input", {
    id: "w-" + i, className: "weight", size: 5, inputMode: "decimal", value: weight ?? 1,
    "aria-describedby": err + " f-future-hint",
  });
  w.dataset.option = o;
  const other = el("textarea", { id: "o-" + i + "-other", className: "opt-other", rows: 1, "aria-describedby": derr });
  other.dataset.option = o;
  const rm = el("input", { type: "checkbox", id: "o-" + i + "-remove", className: "opt-remove", name: "remove-" + i });
  rm.dataset.option = o;
  const row = el("fieldset", { class: "option" },
    el("legend", {}, isNew ? "New option " + o : "Option " + o),
    text("name", "Display name", 16),
    text("image", "Picture URL", 22),
    el("span", { class: "pair" }, el("label", { for: w.id }, "Weight"), " ", w,
      el("span", { class: "error", id: err, "data-field": "weight:" + o })),
    el("span", { class: "pair other" }, el("label", { for: other.id }, "Other data (field: value, a line each)"), other),
    isNew ? el("span", { class: "muted" }, "starts at 0 votes")
      : el("span", { class: "pair" }, rm, el("label", { for: rm.id }, " Remove (its votes are deleted)")),
    el("span", { class: "error", id: derr, "data-field": "option:" + o }));
  row.dataset.option = o;
  if (isNew) row.dataset.new = "1";
  return row;
}

// Puts an option's display data in its row (unless the row was edited).
function fillOptionData(row, data) {
  if (row.dataset.edited) return;
  data = data || {};
  row.querySelector(".opt-name").value = data.name || "";
  row.querySelector(".opt-image").value = data.picture || "";
  row.querySelector(".opt-other").value = Object.entries(data)
    .filter(([k]) => !SHOWN.includes(k)).map(([k, v]) => k + ": " + v).join("\n");
  row.dataset.loaded = "1";
}

// The row's display data, or an error text.
function rowData(row) {
  const data = {};
  const name = row.querySelector(".opt-name").value.trim();
  const image = row.querySelector(".opt-image").value.trim();
  if (name) data.name = name;
  if (image) {
    if (!/^(https?:\/\/|\/)\S+$/.test(image)) return { error: "The picture URL starts with https://, http:// or /." };
    data.picture = image;
  }
  for (const line of row.querySelector(".opt-other").value.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const m = /^([^:]{1,64}):\s*(.*)$/.exec(line);
    if (!m || SHOWN.includes(m[1].trim())) return { error: "Other data: one \"field: value\" a line (not name or picture, which have their own fields): " + line };
    data[m[1].trim()] = m[2];
  }
  return { data };
}

let optionSeq = 0;

function fillBoardForm() {
  const f = $("#board-form");
  clearErrors(f);
  $("#board-name").textContent = state.board || "-";
  const b = (state.settings && state.settings.boards || {})[state.board] || {};
  f.querySelectorAll('input[name="periods"]').forEach((c) => {
    c.checked = (b.periods || ["total"]).includes(c.value);
  });
  f.ties.value = b.ties || "competition";
  f.carry.value = b.carry ?? "";
  f.decimals.value = b.decimals ?? "";
  for (const p of ["hour", "day", "week", "month"]) {
    f["keep_" + p].value = (b.retention || {})[p] ?? "";
  }
  tiesHint(b);
  const rows = Object.keys(b.options || {}).sort().map((o) => optionRow(o, optionSeq++, b.options[o].weight, false));
  $("#options").replaceChildren(...(rows.length ? rows
    : [el("p", { class: "muted", id: "no-options" }, state.board ? "No options yet: add one below." : "No board is open.")]));
  loadOptionData();
}

function tiesHint(b) {
  const pending = !!b.ties_pending;
  $("#f-ties-hint").textContent = pending
    ? "The switch to " + b.ties + " is pending: ranks still follow " + (b.ties_effective || "competition") +
      " until the board is reindexed (it can take a while on a large board; votes go on meanwhile)."
    : "A switch to dense or first on a board with votes takes effect after a reindex (the page offers it).";
  $("#reindex").hidden = !pending;
}

// The open board's display data (GET .../options), into its rows.
async function loadOptionData() {
  const c = state.campaign;
  const b = state.board;
  if (!c || !b || !((state.settings || {}).boards || {})[b]) return;
  const r = await api("GET", "/v1/campaigns/" + enc(c) + "/boards/" + enc(b) + "/options");
  if (!r.ok || state.campaign !== c || state.board !== b) return;
  const byId = Object.fromEntries(r.body.options.map((o) => [o.option, o.data]));
  for (const row of $("#options").querySelectorAll("fieldset.option")) {
    if (!row.dataset.new) fillOptionData(row, byId[row.dataset.option]);
  }
  state.optionData = byId;
}

function addOption() {
  const f = $("#board-form");
  clearErrors(f);
  if (!needCampaign(f, "new-option", "No option was added", true)) return;
  const o = $("#new-option").value.trim();
  const what = "No option was added";
  if (!NAME.test(o)) {
    fieldError(f, "new-option", "An option id is 1 to 64 characters without spaces, commas, colons, braces, * ? [ ] or backslashes.", what);
    return;
  }
  if (f.querySelector('fieldset.option[data-option="' + CSS.escape(o) + '"]')) {
    fieldError(f, "new-option", "There is an option " + o + " already.", what);
    return;
  }
  const row = optionRow(o, optionSeq++, 1, true);
  row.dataset.loaded = "1";
  const none = $("#no-options");
  if (none) none.remove();
  $("#options").append(row);
  $("#new-option").value = "";
  row.querySelector(".opt-name").focus();
}

async function saveBoard(ev) {
  ev.preventDefault();
  const f = $("#board-form");
  const what = "The board was not saved";
  clearErrors(f);
  if (!needCampaign(f, "board", what, true)) return;
  const spec = {
    periods: [...f.querySelectorAll('input[name="periods"]:checked')].map((c) => c.value),
    ties: f.ties.value,
    options: {},
  };
  if (!spec.periods.length) { fieldError(f, "periods", "Tick at least one period.", what); return; }
  if (f.carry.value.trim()) spec.carry = f.carry.value.trim();
  if (f.decimals.value.trim()) {
    if (!WHOLE.test(f.decimals.value.trim())) {
      fieldError(f, "decimals", "Enter a whole number from 0 to 6, or nothing.", what);
      return;
    }
    spec.decimals = Number(f.decimals.value);
  }
  const retention = {};
  for (const p of ["hour", "day", "week", "month"]) {
    const v = f["keep_" + p].value.trim();
    if (!v) continue;
    if (!WHOLE.test(v)) {
      fieldError(f, "retention", "The " + p + " retention: enter a whole number of seconds, or nothing.", what);
      return;
    }
    retention[p] = Number(v);
  }
  if (Object.keys(retention).length) spec.retention = retention;
  const remove = [];
  for (const row of f.querySelectorAll("fieldset.option")) {
    const o = row.dataset.option;
    if (row.querySelector(".opt-remove:checked")) { remove.push(o); continue; }
    const i = row.querySelector("input.weight");
    const v = i.value.trim();
    if (v === "" || isNaN(Number(v))) {
      fieldError(f, "weight:" + o, "The weight of " + o + " must be a number.", what);
      return;
    }
    spec.options[o] = { weight: Number(v) };
    if (!row.dataset.loaded) continue; // its data not read yet: left as it is
    const got = rowData(row);
    if (got.error) { fieldError(f, "option:" + o, got.error, what); return; }
    const before = JSON.stringify((state.optionData || {})[o] || {});
    if (row.dataset.new || JSON.stringify(got.data) !== before) spec.options[o].data = got.data;
  }
  if (remove.length) spec.remove = remove;
  const b = state.board;
  if (remove.length) {
    const ok = await confirmAction(
      "Remove option" + (remove.length > 1 ? "s " : " ") + remove.join(", ") + " from board " + b +
        "? Their votes on every period are deleted with them, and this cannot be undone.",
      "Remove " + (remove.length > 1 ? remove.length + " options" : remove[0]));
    if (!ok) { status("nothing was removed: the board was not saved"); return; }
  }
  const r = await api("PUT", "/v1/campaigns/" + enc(state.campaign) + "/settings",
    { boards: { [b]: spec } });
  if (!r.ok) {
    const fields = [];
    for (const o of Object.keys(spec.options)) {
      fields.push({ field: "weight:" + o, match: (d) => d.includes("/" + o + ": weight") || d.includes(o + ".weight") });
      fields.push({ field: "option:" + o, match: (d) => d.includes("/" + o + ":") });
    }
    for (const field of ["periods", "ties", "carry", "decimals", "retention"]) {
      fields.push({ field, match: (d) => d.includes(field) || (field === "periods" && d.includes("period")) });
    }
    showError(f, r, fields, "board", what);
    return;
  }
  status("board " + b + " saved" + (remove.length ? " (removed: " + remove.join(", ") + ")" : ""));
  await openCampaign(state.campaign);
}

// Runs the board's reindex until its cursor is "0": the pending tie rule
// is then in effect.
async function reindex() {
  const f = $("#board-form");
  clearErrors(f);
  if (!needCampaign(f, "ties", "Nothing was reindexed", true)) return;
  const c = state.campaign;
  const b = state.board;
  let cursor = "0";
  let members = 0;
  $("#reindex").disabled = true;
  try {
    for (let i = 0; i < 100000; i++) {
      const r = await api("POST", "/v1/campaigns/" + enc(c) + "/boards/" + enc(b) + "/reindex",
        { cursor, count: 1000 });
      if (!r.ok) { fieldError(f, "ties", problemText(r), "The reindex stopped"); return; }
      members += r.body.members;
      cursor = r.body.next;
      $("#f-ties-hint").textContent = "Reindexing: " + members + " members so far...";
      if (cursor === "0") break;
    }
  } finally {
    $("#reindex").disabled = false;
  }
  status("board " + b + " reindexed (" + members + " members): its tie rule is in effect");
  await openCampaign(c);
}

// ---- import ----------------------------------------------------------------------

const MAX_IMPORT = 500;

// CSV (RFC 4180): fields separated by commas, a field in double quotes
// may hold commas, newlines and doubled quotes (""). Answers { records:
// [{ line, fields }] } (line: where the record starts, 1-based) or
// { problem } for a quote left open or text after a closing quote.
function parseCsv(text) {
  const records = [];
  let fields = [];
  let field = "";
  let line = 1;
  let start = 1;
  let i = 0;
  let quoted = false; // the field began with a quote
  const n = text.length;
  const endField = () => { fields.push(field); field = ""; quoted = false; };
  const endRecord = () => { endField(); records.push({ line: start, fields }); fields = []; };
  while (i < n) {
    const ch = text[i];
    if (field === "" && !quoted && ch === '"') {
      quoted = true;
      const from = line;
      i++;
      for (;;) {
        if (i >= n) return { records, problem: "Line " + from + ": a quoted field is never closed (a \" is missing)." };
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
          i++;
          break;
        }
        if (q === "\n") line++;
        if (q === "\r") { line++; if (text[i + 1] === "\n") { field += "\r"; i++; } }
        field += q;
        i++;
      }
      // after the closing quote: a separator, an end of line, or the end
      if (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") {
        return { records, problem: "Line " + line + ": text after a closing quote (write a quote inside quotes as \"\")." };
      }
      continue;
    }
    if (ch === ",") { endField(); i++; continue; }
    if (ch === "\n" || ch === "\r") {
      endRecord();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      start = line;
      continue;
    }
    field += ch;
    i++;
  }
  if (field !== "" || quoted || fields.length) endRecord();
  return { records };
}
const importState = { rows: null };

// The file's rows: [{ line, option, votes, problem }] and a file-level
// problem (null: none).
function parseImport(name, text, known) {
  const rows = [];
  const json = /\.json$/i.test(name) || /^\s*\{/.test(text);
  if (json) {
    let obj;
    try { obj = JSON.parse(text); } catch (e) { return { rows, problem: "This is not JSON: " + e.message + "." }; }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) return { rows, problem: "A JSON file is one object: {\"option\": votes, ...}." };
    let n = 0;
    for (const [option, votes] of Object.entries(obj)) {
      rows.push({ line: ++n, option, votes: typeof votes === "number" ? String(votes) : votes });
    }
  } else {
    const got = parseCsv(text);
    if (got.problem) return { rows, problem: got.problem };
    got.records.forEach((rec, i) => {
      const f = rec.fields;
      if (i === 0 && f.length === 2 && f[0].trim() === "option" && f[1].trim() === "votes") return;
      if (f.length === 1 && f[0].trim() === "") return;
      rows.push({ line: rec.line, option: f[0].trim(), votes: f.length === 2 ? f[1].trim() : null });
    });
  }
  const seen = new Set();
  for (const r of rows) {
    if (r.votes === null) r.problem = "a line is option,votes (two fields)";
    else if (!NAME.test(r.option)) r.problem = "not a valid option name";
    else if (typeof r.votes !== "string" || !/^\d+(\.\d{1,6})?$/.test(r.votes)) r.problem = "votes must be a number, 0 or more";
    else if (seen.has(r.option)) r.problem = "this option comes twice";
    else if (known && !known.has(r.option)) r.problem = "the board has no option " + r.option + " (add it first)";
    seen.add(r.option);
  }
  if (!rows.length) return { rows, problem: "The file holds no rows." };
  if (rows.length > MAX_IMPORT) return { rows, problem: "The file holds " + rows.length + " rows; the page applies at most " + MAX_IMPORT + " at once (one atomic call). Split it, or use redvote campaign NAME import." };
  return { rows, problem: null };
}

async function chooseImport() {
  const f = $("#import-form");
  const what = "Nothing can be imported";
  clearErrors(f);
  importState.rows = null;
  $("#import-apply").disabled = true;
  $("#import-preview").hidden = true;
  $("#import-counts").textContent = "";
  $("#import-preview tbody").replaceChildren();
  const file = $("#import-file").files[0];
  if (!file) return;
  if (!needCampaign(f, "import-file", what, true)) return;
  if (file.size > 4 * 1024 * 1024) { fieldError(f, "import-file", "The file is over 4 MiB: use redvote campaign NAME import.", what); return; }
  const text = await file.text();
  const b = ((state.settings || {}).boards || {})[state.board];
  const known = b ? new Set(Object.keys(b.options || {})) : new Set();
  const got = parseImport(file.name, text, known);
  const bad = got.rows.filter((r) => r.problem);
  const shown = got.rows.slice(0, 20).concat(bad.filter((r) => got.rows.indexOf(r) >= 20).slice(0, 20));
  $("#import-preview tbody").replaceChildren(...shown.map((r) => {
    const tr = el("tr", {}, cell(r.line), cell(r.option), cell(r.votes ?? ""), cell(r.problem || "ok"));
    if (r.problem) tr.className = "bad";
    return tr;
  }));
  $("#import-preview").hidden = shown.length === 0;
  $("#import-counts").textContent = got.rows.length + " row(s) into board " + state.board + ", " +
    bad.length + " with a problem" + (got.rows.length > 20 ? " (the first 20 rows and the rows with problems are shown)" : "") + ".";
  if (got.problem || bad.length) {
    fieldError(f, "import-file", got.problem ||
      ("Line(s) " + bad.slice(0, 10).map((r) => r.line).join(", ") + (bad.length > 10 ? ", ..." : "") +
        " have a problem (see the table): fix the file and choose it again. Nothing was imported."), what);
    return;
  }
  importState.rows = got.rows;
  importState.board = state.board;
  importState.campaign = state.campaign;
  $("#import-apply").disabled = false;
}

async function applyImport(ev) {
  ev.preventDefault();
  const f = $("#import-form");
  const what = "Nothing was imported";
  clearErrors(f);
  const rows = importState.rows;
  if (!rows || importState.board !== state.board || importState.campaign !== state.campaign) {
    fieldError(f, "import-apply", "Choose a file for the open board first.", what);
    return;
  }
  const body = Object.fromEntries(rows.map((r) => [r.option, r.votes]));
  const r = await api("PUT", "/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) + "/import", body);
  if (!r.ok) { fieldError(f, "import-apply", problemText(r), what); return; }
  importState.rows = null;
  $("#import-apply").disabled = true;
  $("#import-counts").textContent = "Imported " + rows.length + " row(s) into board " + state.board + ".";
  status("imported " + rows.length + " row(s) into " + state.board);
  loadAudit();
}

// ---- rate-limit peek ---------------------------------------------------------

async function peek(ev) {
  ev.preventDefault();
  const f = $("#limits-form");
  const what = "No peek";
  clearErrors(f);
  if (!needCampaign(f, "peek", what, false)) return;
  if (!$("#peek-user").value.trim()) { fieldError(f, "peek", "Type a user id first.", what); return; }
  const q = new URLSearchParams({ user: $("#peek-user").value.trim() });
  if ($("#peek-channel").value) q.set("channel", $("#peek-channel").value);
  const r = await api("GET", "/v1/campaigns/" + enc(state.campaign) + "/limits?" + q);
  if (!r.ok) { showError(f, r, [], "peek", what); return; }
  const rows = r.body.limits.map((l) => {
    const tr = document.createElement("tr");
    tr.append(cell(l.rule), cell(l.remaining), cell(l.reset_in < 0 ? "never" : l.reset_in));
    return tr;
  });
  $("#peek-result tbody").replaceChildren(...rows);
}

async function resetLimits() {
  const f = $("#limits-form");
  const what = "No limit was reset";
  clearErrors(f);
  $("#reset-result").textContent = "";
  if (!needCampaign(f, "peek", what, false)) return;
  const user = $("#peek-user").value.trim();
  if (!user) { fieldError(f, "peek", "Type the user id whose limits to reset.", what); return; }
  const body = { user };
  if ($("#peek-channel").value.trim()) body.channel = $("#peek-channel").value.trim();
  const r = await api("POST", "/v1/campaigns/" + enc(state.campaign) + "/limits/reset", body);
  if (!r.ok) { showError(f, r, [], "peek", what); return; }
  $("#reset-result").textContent = "Reset the limits of " + user + ": " + r.body.reset +
    " counter(s) deleted; their next votes count from zero.";
  $("#peek-result tbody").replaceChildren();
  loadAudit();
}

// ---- confirmation ------------------------------------------------------------

// Asks `text` in the page's dialog (the OK button says `ok`): resolves
// true when confirmed, false on Cancel or Escape. The focus goes back to
// where it was.
function confirmAction(text, ok) {
  const d = $("#confirm");
  const back = document.activeElement;
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = ok;
  return new Promise((resolve) => {
    const done = (yes) => {
      $("#confirm-ok").onclick = $("#confirm-cancel").onclick = d.oncancel = null;
      if (d.open) d.close();
      if (back && back.focus) back.focus();
      resolve(yes);
    };
    $("#confirm-ok").onclick = () => done(true);
    $("#confirm-cancel").onclick = () => done(false);
    d.oncancel = (e) => { e.preventDefault(); done(false); };
    d.showModal();
    $("#confirm-cancel").focus();
  });
}

// ---- downloads ------------------------------------------------------------------

// GETs `path` with the token and hands the answer to the browser as a
// file (the name from Content-Disposition, else `fallback`). Resolves to
// { ok, name, bytes, text } or a refusal ({ ok: false, status, body }).
async function download(path, fallback) {
  let res;
  try {
    res = await fetch(path, { headers: { Authorization: "Bearer " + token() } });
  } catch (_) {
    return { ok: false, status: 0, body: null };
  }
  if (!res.ok) {
    let body = null;
    try { body = await res.json(); } catch (_) { /* not JSON */ }
    return { ok: false, status: res.status, body };
  }
  const blob = await res.blob();
  const cd = res.headers.get("Content-Disposition") || "";
  const m = /filename="([^"]+)"/.exec(cd);
  const name = m ? m[1] : fallback;
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return { ok: true, name, bytes: blob.size, text: blob.size < 1 << 20 ? await blob.text() : "" };
}

// ---- statistics and charts ---------------------------------------------------------

const SVGNS = "http://www.w3.org/2000/svg";
const stats = { data: null, timer: null, gen: 0 };

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// A bucket's label: "14:00" for an hour, "03-17" for a day.
function bucketLabel(b, by) {
  const p = b.period.split(":").slice(1).join(":");
  return by === "hour" ? p.slice(11, 13) + ":00" : p.slice(5, 10);
}

// A bucket's name in words for tables and descriptions.
function bucketWords(b, by) {
  const p = b.period.split(":").slice(1).join(":");
  return by === "hour" ? p.slice(0, 10) + " " + p.slice(11, 13) + ":00" : p;
}

// A round step for an axis up to `max` with about 4 lines.
function niceStep(max) {
  if (max <= 4) return 1;
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

// The plot's width: its box's, at least 260.
function plotWidth(plot) { return Math.max(260, Math.floor(plot.clientWidth || plot.parentElement.clientWidth || 600)); }

// A time series as bars (`series`: [{ cls, values }] stacked) or a line,
// with a y axis of counts and x labels thinned to fit; `desc` is the
// chart's text alternative (the table below has every number).
function timeChart(plot, titleId, labels, series, line, desc, yTitle, xTitle) {
  const w = plotWidth(plot);
  const h = 226;
  const m = { l: 38, r: 8, t: 22, b: 44 };
  const iw = w - m.l - m.r;
  const ih = h - m.t - m.b;
  const n = labels.length;
  const totals = labels.map((_, i) => series.reduce((s, x) => s + x.values[i], 0));
  const max = Math.max(1, ...totals);
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const y = (v) => m.t + ih - (v / top) * ih;
  const descId = titleId.replace("-title", "-desc");
  const root = svg("svg", {
    viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img",
    "aria-labelledby": titleId, "aria-describedby": descId,
  });
  root.append(svg("desc", { id: descId }, desc));
  // the axes' titles: what is counted (up), when (across)
  root.append(svg("text", { x: 2, y: 12, class: "axis-title" }, yTitle));
  root.append(svg("text", { x: m.l + iw / 2, y: h - 4, "text-anchor": "middle", class: "axis-title" }, xTitle));
  for (let v = 0; v <= top; v += step) {
    root.append(svg("line", { class: v ? "grid" : "axis", x1: m.l, x2: w - m.r, y1: y(v), y2: y(v) }));
    root.append(svg("text", { x: m.l - 5, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const bw = iw / Math.max(1, n);
  // a label every `every` buckets, so that labels of about 40 px do not meet
  const every = Math.max(1, Math.ceil(44 / bw));
  labels.forEach((lab, i) => {
    const x = m.l + i * bw;
    if (line) {
      // the line is drawn below
    } else {
      let base = 0;
      for (const s of series) {
        const v = s.values[i];
        if (v > 0) {
          root.append(svg("rect", {
            class: s.cls, x: x + bw * 0.12, width: Math.max(1, bw * 0.76),
            y: y(base + v), height: Math.max(1, y(base) - y(base + v)),
          }, svg("title", {}, bucketTitle(lab, s, v))));
        }
        base += v;
      }
    }
    if (i % every === 0) {
      root.append(svg("text", { x: x + bw / 2, y: h - m.b + 16, "text-anchor": "middle" }, lab));
    }
  });
  if (line) {
    const pts = series[0].values.map((v, i) => [m.l + i * bw + bw / 2, y(v)]);
    root.append(svg("polyline", { class: "line", points: pts.map((p) => p.join(",")).join(" ") }));
    pts.forEach((p, i) => root.append(svg("circle", { class: "dot", cx: p[0], cy: p[1], r: n > 40 ? 1.5 : 3 },
      svg("title", {}, labels[i] + ": " + series[0].values[i]))));
  }
  root.append(svg("line", { class: "axis", x1: m.l, x2: m.l, y1: m.t, y2: m.t + ih }));
  plot.replaceChildren(root);
}

function bucketTitle(label, s, v) {
  return label + ": " + v + (s.cls === "bar-voided" ? " voided" : " counted");
}

// Totals by name as horizontal bars (a channel or device a row).
function barsChart(plot, titleId, totals, desc) {
  const names = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : 1));
  const descId = titleId.replace("-title", "-desc");
  if (!names.length) {
    plot.replaceChildren(el("p", { class: "muted empty", id: descId }, desc));
    return;
  }
  const w = plotWidth(plot);
  const row = 22;
  const label = Math.min(130, Math.floor(w * 0.32));
  const h = names.length * row + 6;
  const max = Math.max(1, ...names.map((k) => totals[k]));
  const room = w - label - 50;
  const root = svg("svg", {
    viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img",
    "aria-labelledby": titleId, "aria-describedby": descId,
  });
  root.append(svg("desc", { id: descId }, desc));
  names.forEach((k, i) => {
    const yy = i * row + 3;
    const shown = k.length > 18 ? k.slice(0, 17) + "\u2026" : k;
    const name = svg("text", { x: label - 6, y: yy + 14, "text-anchor": "end" }, shown);
    if (shown !== k) name.append(svg("title", {}, k));
    root.append(name);
    const bw = Math.max(1, (totals[k] / max) * room);
    root.append(svg("rect", { class: "bar", x: label, y: yy + 2, width: bw, height: row - 8 }));
    root.append(svg("text", { x: label + bw + 5, y: yy + 14 }, String(totals[k])));
  });
  root.append(svg("line", { class: "axis", x1: label, x2: label, y1: 0, y2: h }));
  plot.replaceChildren(root);
}

// Draws the charts and the table from stats.data.
function drawStats() {
  const d = stats.data;
  $("#stats-board").textContent = state.board || "-";
  const plots = ["votes", "participants", "channels", "devices"].map((k) => $("#chart-" + k + " .plot"));
  if (!d) {
    plots.forEach((p) => p.replaceChildren());
    $("#stats-table tbody").replaceChildren();
    return;
  }
  const by = d.by;
  document.querySelectorAll("#stats .by-word").forEach((e) => { e.textContent = by; });
  const bs = d.buckets;
  const labels = bs.map((b) => bucketLabel(b, by));
  const counted = bs.map((b) => b.votes - b.voided);
  const voided = bs.map((b) => b.voided);
  const part = bs.map((b) => b.participants);
  const sum = (a) => a.reduce((s, v) => s + v, 0);
  const channels = {};
  const devices = {};
  for (const b of bs) {
    for (const [k, v] of Object.entries(b.channels || {})) channels[k] = (channels[k] || 0) + v;
    for (const [k, v] of Object.entries(b.devices || {})) devices[k] = (devices[k] || 0) + v;
  }
  const busiest = bs.reduce((best, b) => (b.votes > (best ? best.votes : 0) ? b : best), null);
  const span = by === "hour" ? "the last " + bs.length + " hours" : "the last " + bs.length + " days";
  const words = sum(counted) + sum(voided) + " vote(s) in " + span + ", " + sum(voided) + " of them voided" +
    (busiest ? "; the busiest " + by + " was " + bucketWords(busiest, by) + " with " + busiest.votes : "") + ".";
  $("#stats-summary").textContent = "Board " + d.board + ": " + words;
  const off = ((state.settings || {}).offset) || "+00:00";
  const across = by === "hour" ? "hour of the day (" + off + ")" : "day (month-day, " + off + ")";
  timeChart(plots[0], "chart-votes-title", labels,
    [{ cls: "bar", values: counted }, { cls: "bar-voided", values: voided }], false,
    "Votes per " + by + ", " + words + " Every number is in the table below.", "votes", across);
  timeChart(plots[1], "chart-participants-title", labels, [{ cls: "line", values: part }], true,
    "Participants per " + by + ": at most " + Math.max(0, ...part) + " in one " + by + ". Every number is in the table below.",
    "participants", across);
  const inWords = (t) => Object.keys(t).length
    ? Object.entries(t).sort((a, b) => b[1] - a[1]).map(([k, v]) => k + " " + v).join(", ") + "."
    : "No vote named one in " + span + ".";
  barsChart(plots[2], "chart-channels-title", channels, "Votes by channel: " + inWords(channels));
  barsChart(plots[3], "chart-devices-title", devices, "Votes by device: " + inWords(devices));
  const list = (m) => Object.entries(m || {}).map(([k, v]) => k + " " + v).join(", ");
  $("#stats-table tbody").replaceChildren(...bs.slice().reverse().map((b) => el("tr", {},
    cell(bucketWords(b, by)), cell(b.votes), cell(b.voided), cell(b.participants),
    cell(list(b.channels)), cell(list(b.devices)))));
}

// Reads the open board's statistics (JSON) and draws them.
async function loadStats() {
  const gen = ++stats.gen;
  clearTimeout(stats.timer);
  stats.timer = null;
  $("#stats-error").textContent = "";
  if (!state.campaign || !state.board || !((state.settings || {}).boards || {})[state.board] && !state.readOnly) {
    stats.data = null;
    $("#stats-summary").textContent = state.board ? "" : "Open a board to see its statistics.";
    drawStats();
    return;
  }
  const r = await api("GET", "/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) +
    "/stats?by=" + $("#stats-by").value);
  if (gen !== stats.gen) return;
  if (!r.ok) {
    stats.data = null;
    drawStats();
    $("#stats-summary").textContent = "";
    $("#stats-error").textContent = problemText(r);
    return;
  }
  stats.data = r.body;
  drawStats();
  $("#stats").dataset.updated = String(Date.now());
}

// Reads the statistics again soon (after votes the live top saw): at
// most once a second, however often the top changes (a timer already
// set is kept, not pushed back).
function statsSoon() {
  if (stats.timer) return;
  stats.timer = setTimeout(() => { stats.timer = null; loadStats(); }, 1000);
}

async function statsCsv() {
  $("#stats-error").textContent = "";
  if (!state.campaign || !state.board) { $("#stats-error").textContent = "Open a board first."; return; }
  const by = $("#stats-by").value;
  const r = await download("/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) +
    "/stats?format=csv&by=" + by, state.campaign + "-" + state.board + "-stats-" + by + ".csv");
  if (!r.ok) { $("#stats-error").textContent = problemText(r); return; }
  $("#stats-summary").textContent = "Downloaded " + r.name + " (" + r.bytes + " bytes).";
}

// ---- export --------------------------------------------------------------------------

// The period the export form names: total, a current one, or a named one
// (last month and yesterday in the campaign's offset).
function exportPeriod() {
  const v = $("#export-period").value;
  const off = offsetSeconds(((state.settings || {}).offset) || "+00:00") ?? 0;
  const now = new Date(Date.now() + off * 1000);
  if (v === "last-month") {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    return "month:" + pad(d.getUTCFullYear(), 4) + "-" + pad(d.getUTCMonth() + 1);
  }
  if (v === "yesterday") {
    const d = new Date(now.getTime() - 86400000);
    return "day:" + pad(d.getUTCFullYear(), 4) + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate());
  }
  if (v === "named") return $("#export-named").value.trim();
  return v;
}

async function exportBoard(ev) {
  ev.preventDefault();
  const f = $("#export-form");
  const what = "Nothing was exported";
  clearErrors(f);
  $("#export-result").textContent = "";
  if (!needCampaign(f, "export", what, true)) return;
  const period = exportPeriod();
  if (!/^(total|hour|day|week|month)$|^(hour|day|week|month):\S+$/.test(period)) {
    fieldError(f, "export", "Name a period as hour:2026-03-17T10, day:2026-03-17, week:2026-W12 or month:2026-10.", what);
    return;
  }
  const kind = $("#export-kind").value;
  const format = $("#export-format").value;
  const q = new URLSearchParams({ period, kind, format });
  $("#export-download").disabled = true;
  try {
    const r = await download("/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) +
      "/export?" + q, state.campaign + "-" + state.board + "." + format);
    if (!r.ok) { fieldError(f, "export", problemText(r), what); return; }
    const lines = r.text ? r.text.split("\n").filter(Boolean).length - (format === "csv" ? 1 : 0) : null;
    $("#export-result").textContent = "Downloaded " + r.name + ": " +
      (lines === null ? r.bytes + " bytes" : lines + " option(s), " + r.bytes + " bytes") + ".";
  } finally {
    $("#export-download").disabled = false;
  }
}

// ---- voiding --------------------------------------------------------------------------

function voidHint() {
  const n = (state.settings || {}).vote_log || 0;
  $("#void-range-hint").textContent = n > 0
    ? "This campaign logs its latest " + n + " votes: votes of a user or a channel over a time range can be voided."
    : "This campaign keeps no vote log (set \"Vote log\" in its settings), so its votes can only be voided by id; votes cast before a log is set are not in it.";
}

function voidResult(text, bad) {
  const p = $("#void-result");
  p.textContent = text;
  p.className = "result" + (bad ? " bad" : "");
}

// After a void: the statistics, the audit log (the live top follows by itself).
function afterChange() {
  loadStats();
  loadAudit();
}

async function voidOne(ev) {
  ev.preventDefault();
  const f = $("#void-form");
  const what = "Nothing was voided";
  clearErrors(f);
  voidResult("");
  if (!needCampaign(f, "void-id", what, false)) return;
  const id = $("#void-id").value.trim();
  if (!id) { fieldError(f, "void-id", "Type the vote's id (its Idempotency-Key) first.", what); return; }
  const ok = await confirmAction("Void vote " + id + " of campaign " + state.campaign +
    "? Everything it added is subtracted from every board and period it counted on, the statistics count it as voided," +
    " and its user's rate limits are not given back. This cannot be undone.", "Void vote " + id);
  if (!ok) { voidResult("Nothing was voided."); return; }
  const r = await api("POST", "/v1/campaigns/" + enc(state.campaign) + "/votes/" + enc(id) + "/void");
  if (!r.ok) {
    const text = r.body && r.body.code === "REDVOTE_UNKNOWN_VOTE"
      ? "There is no vote " + id + " to void: no vote was sent with that id, it was refused, or the campaign no longer remembers it (it keeps vote ids for " + ((state.settings || {}).vote_id_ttl || 86400) + " s)."
      : problemText(r);
    fieldError(f, "void-id", text, what);
    return;
  }
  const b = r.body;
  const at = b.at ? " at " + auditWhen(b.at * 1000) : "";
  voidResult(b.already
    ? "Vote " + id + " was already voided" + at + ": nothing changed."
    : "Vote " + id + " is voided: " + b.changed + " board entr" + (b.changed === 1 ? "y" : "ies") + " lowered" +
      (b.skipped ? ", " + b.skipped + " skipped (gone since: expired or removed)" : "") + ". The live top and the statistics show it now.");
  status("vote " + id + (b.already ? " was already voided" : " voided"));
  afterChange();
}

async function voidRange(ev) {
  ev.preventDefault();
  const f = $("#void-range-form");
  const what = "Nothing was voided";
  clearErrors(f);
  voidResult("");
  if (!needCampaign(f, "void-range", what, false)) return;
  const by = $("#void-by").value;
  const value = $("#void-value").value.trim();
  if (!value) { fieldError(f, "void-range", "Type the " + by + " whose votes to void.", what); return; }
  const off = offsetSeconds(((state.settings || {}).offset) || "+00:00") ?? 0;
  const from = fromLocal($("#void-from").value, off);
  const to = fromLocal($("#void-to").value, off);
  if (from === null || to === null) { fieldError(f, "void-range", "Enter both the start and the end of the range.", what); return; }
  if (to <= from) { fieldError(f, "void-range", "The end must come after the start.", what); return; }
  const range = $("#void-from").value.replace("T", " ") + " to " + $("#void-to").value.replace("T", " ") +
    " (" + (((state.settings || {}).offset) || "+00:00") + ")";
  const ok = await confirmAction("Void every logged vote of " + by + " " + value + " from " + range +
    "? What they added is subtracted from every board and period they counted on; the statistics count them as voided. This cannot be undone.",
  "Void these votes");
  if (!ok) { voidResult("Nothing was voided."); return; }
  let cursor = "0";
  let voided = 0;
  let others = 0;
  for (let i = 0; i < 10000; i++) {
    const r = await api("POST", "/v1/campaigns/" + enc(state.campaign) + "/votes/void",
      { [by]: value, from, to, cursor, count: 1000 });
    if (!r.ok) {
      fieldError(f, "void-range", problemText(r) + (voided ? " (" + voided + " vote(s) were voided before that)" : ""), what);
      if (voided) afterChange();
      return;
    }
    voided += r.body.voided;
    others += r.body.others;
    cursor = r.body.next;
    if (cursor === "0") break;
  }
  voidResult(voided
    ? "Voided " + voided + " vote(s) of " + by + " " + value + " from " + range + "."
    : "No logged vote of " + by + " " + value + " from " + range + ": nothing was voided" +
      ((state.settings || {}).vote_log ? "." : " (this campaign keeps no vote log)."));
  status(voided + " vote(s) voided");
  afterChange();
}

// ---- audit log ---------------------------------------------------------------------

const audit = { before: null, stack: [], next: null, gen: 0 };
// the end a cleared end is stored as (9999-12-31T23:59:59Z)
const NO_END = 253402300799;
const ACTIONS = {
  configure: "settings changed", import: "starting votes imported", limits_reset: "rate limits reset",
  reindex: "board reindexed", upgrade: "data layout upgraded", void: "vote voided", void_range: "votes voided by range",
};

// "2026-03-17 20:00:05 +08:00": Unix milliseconds on the campaign's clock.
function auditWhen(ms) {
  const o = ((state.settings || {}).offset) || "+00:00";
  const off = offsetSeconds(o) ?? 0;
  const d = new Date(ms + off * 1000);
  return pad(d.getUTCFullYear(), 4) + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
    pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds()) + " " + o;
}

const brief = (v) => {
  const t = v === undefined ? "(none)" : JSON.stringify(v);
  return t.length > 80 ? t.slice(0, 77) + "..." : t;
};

// The paths whose values differ between `a` and `b`, "path: before -> after".
function diffs(a, b, path, out) {
  if (out.length >= 12) return out;
  const obj = (x) => x && typeof x === "object" && !Array.isArray(x);
  // a cleared date is stored as the bound that refuses nothing
  if (path === "start" && a === 0) a = undefined;
  if (path === "start" && b === 0) b = undefined;
  if (path === "end" && a === NO_END) a = undefined;
  if (path === "end" && b === NO_END) b = undefined;
  if (obj(a) && obj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      diffs(a[k], b[k], path ? path + "." + k : k, out);
    }
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push((path || "(all)") + ": " + brief(a) + " \u2192 " + brief(b));
  return out;
}

function auditRow(e) {
  const changed = e.action === "configure"
    ? (e.before === null ? ["campaign created"] : []).concat(diffs(e.before || {}, e.after || {}, "", []))
    : ["answer: " + brief(e.after)];
  const what = el("td", {}, el("b", {}, ACTIONS[e.action] || e.action),
    el("div", { class: "audit-what" }, brief(e.what)));
  const full = el("details", {}, el("summary", {}, "before and after"),
    el("pre", {}, "before: " + JSON.stringify(e.before, null, 1) + "\nafter: " + JSON.stringify(e.after, null, 1)));
  const tr = el("tr", {}, cell(auditWhen(e.when), "when"), cell(e.who),
    what, el("td", {}, el("pre", {}, changed.length ? changed.join("\n") : "nothing"), full));
  // a phone shows each entry as a card: every cell says what it is
  ["When", "Who", "What", "Changed"].forEach((l, i) => tr.children[i].setAttribute("data-label", l));
  tr.dataset.action = e.action;
  return tr;
}

// One page of the audit log: the newest (before null) or the one before
// `before`.
async function loadAudit(before) {
  const gen = ++audit.gen;
  $("#audit-error").textContent = "";
  $("#audit-campaign").textContent = state.campaign ? "of " + state.campaign : "";
  if (!state.campaign || !state.exists) {
    $("#audit-table tbody").replaceChildren();
    $("#audit-page").textContent = state.campaign && !state.readOnly ? "no change yet" : "";
    $("#audit-older").disabled = true;
    return;
  }
  if (before === undefined) { audit.before = null; audit.stack = []; }
  const q = new URLSearchParams({ count: "10" });
  if (audit.before) q.set("before", audit.before);
  const r = await api("GET", "/v1/campaigns/" + enc(state.campaign) + "/audit?" + q);
  if (gen !== audit.gen) return;
  if (!r.ok) { $("#audit-error").textContent = problemText(r); return; }
  $("#audit-table tbody").replaceChildren(...r.body.entries.map(auditRow));
  audit.next = r.body.next;
  $("#audit-older").disabled = !audit.next;
  const n = r.body.entries.length;
  $("#audit-page").textContent = !n ? (audit.stack.length ? "no older change" : "no change yet")
    : audit.stack.length ? "page " + (audit.stack.length + 1) + ": " + n + " older entr" + (n === 1 ? "y" : "ies")
      : "the newest " + n + " entr" + (n === 1 ? "y" : "ies");
  $("#audit").dataset.updated = String(Date.now());
}

async function auditOlder() {
  if (!audit.next) return;
  audit.stack.push(audit.before);
  audit.before = audit.next;
  await loadAudit(audit.before);
}

// ---- team keys -------------------------------------------------------------------------

async function loadKeys() {
  const r = await api("GET", "/v1/keys");
  const off = $("#keys-off");
  if (!r.ok) {
    $("#keys-on").hidden = true;
    $("#keys-table tbody").replaceChildren();
    forgetMadeKey(false);
    off.hidden = false;
    off.textContent = r.status === 403 && r.body && r.body.code === "REDVOTE_FORBIDDEN"
      ? "This token is a team key: team keys are listed and made with the operator's admin token only."
      : problemText(r);
    return;
  }
  off.hidden = true;
  $("#keys-on").hidden = false;
  const day = (s) => new Date(s * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  $("#keys-table tbody").replaceChildren(...r.body.keys.map((k) => {
    const b = el("button", { type: "button", className: "key-revoke" }, "Revoke");
    b.setAttribute("aria-label", "Revoke key " + k.name);
    b.addEventListener("click", () => revokeKey(k.name));
    const tr = el("tr", {}, cell(k.name), cell(k.role), cell(k.pattern), cell(day(k.created)), el("td", {}, b));
    tr.dataset.key = k.name;
    return tr;
  }));
  if (!r.body.keys.length) {
    $("#keys-table tbody").replaceChildren(el("tr", {}, el("td", { colSpan: 5, class: "muted" }, "No team key yet.")));
  }
}

async function addKey(ev) {
  ev.preventDefault();
  const f = $("#key-form");
  const what = "No key was added";
  clearErrors(f);
  const name = $("#key-name").value.trim();
  const pattern = $("#key-pattern").value.trim();
  if (!NAME.test(name) || name === "operator") {
    fieldError(f, "key", "A key's name is 1 to 64 characters without spaces, commas, colons, braces, * ? [ ] or backslashes, and not operator.", what);
    return;
  }
  if (!/^[^\s,:{}?[\]\\]{1,64}$/.test(pattern)) {
    fieldError(f, "key", "The campaigns are a name where * stands for any characters: spring*, *-2026, or * for all.", what);
    return;
  }
  const role = $("#key-role").value;
  const r = await api("POST", "/v1/keys", { name, pattern, role });
  if (!r.ok) {
    fieldError(f, "key", r.body && r.body.code === "REDVOTE_KEY_EXISTS"
      ? "There is a key " + name + " already: revoke it first, or choose another name." : problemText(r), what);
    return;
  }
  $("#key-made-text").textContent = "Key " + name + " may " + (role === "read" ? "read" : role === "vote" ? "vote and read" : "administer") +
    " the campaigns matching " + pattern + ". Give its token to the team:";
  $("#key-token").value = r.body.token;
  $("#key-copied").textContent = "";
  $("#key-made").hidden = false;
  $("#key-name").value = "";
  $("#key-pattern").value = "";
  $("#key-token").focus();
  $("#key-token").select();
  $("#keys-result").textContent = "Key " + name + " added.";
  await loadKeys();
}

async function copyKey() {
  const t = $("#key-token");
  let done = false;
  try { await navigator.clipboard.writeText(t.value); done = true; } catch (_) {
    t.select();
    try { done = document.execCommand("copy"); } catch (_) { done = false; }
  }
  $("#key-copied").textContent = done ? "Copied." : "Select the token and copy it (Ctrl+C).";
}

// The shown token forgotten (the focus back on the name unless `focus` is false).
function forgetMadeKey(focus) {
  $("#key-token").value = "";
  $("#key-made").hidden = true;
  if (focus !== false) $("#key-name").focus();
}

async function revokeKey(name) {
  const ok = await confirmAction("Revoke key " + name + "? Every request with its token is refused from the next one on; a team that still needs access gets a new key.",
    "Revoke " + name);
  if (!ok) { $("#keys-result").textContent = "Key " + name + " was not revoked."; return; }
  const r = await api("DELETE", "/v1/keys/" + enc(name));
  $("#keys-result").textContent = r.ok ? "Key " + name + " revoked: its token no longer works." : problemText(r);
  await loadKeys();
}

// ---- wiring ------------------------------------------------------------------

async function useToken(ev) {
  ev.preventDefault();
  const t = $("#token").value.trim();
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  $("#token").value = "";
  live.ticket = null;
  await loadCampaigns();
  loadKeys();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#token-form").addEventListener("submit", useToken);
  $("#token-forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    live.ticket = null;
    stopLive();
    status("token forgotten");
  });
  $("#reload").addEventListener("click", loadCampaigns);
  $("#campaign").addEventListener("change", async () => {
    const r = await openCampaign($("#campaign").value || null);
    if (r && !r.ok && r.status !== 404 && !state.readOnly) status(problemText(r), true);
  });
  $("#open-form").addEventListener("submit", openTyped);
  $("#open-board-form").addEventListener("submit", openTypedBoard);
  $("#board").addEventListener("change", pickBoard);
  $("#period").addEventListener("change", startLive);
  $("#kind").addEventListener("change", startLive);
  $("#live-reconnect").addEventListener("click", startLive);
  $("#campaign-form").addEventListener("submit", saveCampaign);
  $("#board-form").addEventListener("submit", saveBoard);
  $("#limits-form").addEventListener("submit", peek);
  $("#reset-limits").addEventListener("click", resetLimits);
  $("#add-board-form").addEventListener("submit", addBoard);
  $("#add-option").addEventListener("click", addOption);
  $("#new-option").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); addOption(); }
  });
  $("#reindex").addEventListener("click", reindex);
  $("#add-rule").addEventListener("click", () => {
    const row = ruleRow({ name: "", by: ["user"], window: "minute", limit: 5 });
    $("#rules").append(row);
    previewLimits();
    row.querySelector(".r-name").focus();
  });
  $("#rules").addEventListener("input", previewLimits);
  $("#rules").addEventListener("change", previewLimits);
  $("#options").addEventListener("input", (e) => {
    const row = e.target.closest("fieldset.option");
    if (row && !e.target.matches(".weight, .opt-remove")) row.dataset.edited = "1";
  });
  $("#f-offset").addEventListener("input", () => {
    $("#f-dates-offset").textContent = $("#f-offset").value.trim() || "+00:00";
  });
  $("#import-file").addEventListener("change", chooseImport);
  $("#import-form").addEventListener("submit", applyImport);
  $("#stats-form").addEventListener("submit", (e) => { e.preventDefault(); loadStats(); });
  $("#stats-by").addEventListener("change", loadStats);
  $("#stats-csv").addEventListener("click", statsCsv);
  $("#export-form").addEventListener("submit", exportBoard);
  $("#export-period").addEventListener("change", () => {
    $("#export-named-pair").hidden = $("#export-period").value !== "named";
  });
  $("#void-form").addEventListener("submit", voidOne);
  $("#void-range-form").addEventListener("submit", voidRange);
  $("#audit-newest").addEventListener("click", () => loadAudit());
  $("#audit-older").addEventListener("click", auditOlder);
  $("#key-form").addEventListener("submit", addKey);
  $("#key-copy").addEventListener("click", copyKey);
  $("#key-done").addEventListener("click", forgetMadeKey);
  // the charts follow the page's width
  let width = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth === width) return;
    width = window.innerWidth;
    clearTimeout(stats.resize);
    stats.resize = setTimeout(drawStats, 150);
  });
  if (token()) { loadCampaigns(); loadKeys(); } else status("enter the admin token");
});
