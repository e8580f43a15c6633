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
  if (r && !r.ok && r.status !== 404) status(problemText(r), true);
}

// Opens the campaign `name` (null: none): its settings, its boards, the
// live top of its board. An unknown name opens empty forms: saving the
// campaign creates it. Another refusal (a malformed name, no token)
// opens nothing. Resolves to the settings' reply (null for none).
async function openCampaign(name) {
  state.campaign = name;
  state.settings = null;
  state.exists = false;
  state.deny = null;
  state.optionData = null;
  $("#campaign-title").textContent = name ? name : "(no campaign open)";
  if (!name) {
    fillCampaignForm({});
    setBoards([]);
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
  } else {
    state.campaign = null;
    $("#campaign-title").textContent = "(no campaign open)";
    fillCampaignForm({});
    setBoards([]);
    return r;
  }
  fillCampaignForm(state.settings);
  setBoards(Object.keys(state.settings.boards || {}).sort());
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
  if (r && !r.ok && r.status !== 404) {
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
    if (!v) continue;
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
  const got = readRules();
  if (got.error) { fieldError(f, got.error[0], got.error[1], what); return; }
  doc.limits = got.rules;
  if (state.deny) doc.deny = { users: lines(f.deny_users.value), channels: lines(f.deny_channels.value) };
  const name = state.campaign;
  const r = await api("PUT", "/v1/campaigns/" + enc(name) + "/settings", doc);
  if (!r.ok) {
    const fields = ["offset", "start", "end", "vote_id_ttl", "deny"].map((field) => ({
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
    const all = text.replace(/\r\n?/g, "\n").split("\n");
    all.forEach((l, i) => {
      if (i === 0 && l.trim() === "option,votes") return;
      if (l.trim() === "") return;
      const parts = l.split(",");
      rows.push({ line: i + 1, option: parts[0].trim(), votes: parts.length === 2 ? parts[1].trim() : null, raw: l });
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
}

// ---- wiring ------------------------------------------------------------------

async function useToken(ev) {
  ev.preventDefault();
  const t = $("#token").value.trim();
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  $("#token").value = "";
  live.ticket = null;
  await loadCampaigns();
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
    if (r && !r.ok && r.status !== 404) status(problemText(r), true);
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
  if (token()) loadCampaigns(); else status("enter the admin token");
});
