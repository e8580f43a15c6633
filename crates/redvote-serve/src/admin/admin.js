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
  // A bounded number of SCAN steps: each one is O(count) on the server.
  for (let i = 0; i < 50; i++) {
    const r = await api("GET", "/v1/campaigns?count=500&cursor=" + enc(cursor));
    if (!r.ok) { status(problemText(r), true); return; }
    names.push(...r.body.campaigns);
    cursor = r.body.next;
    if (cursor === "0") break;
  }
  const sel = $("#campaign");
  const unique = [...new Set(names)].sort();
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
  $("#campaign-title").textContent = name ? name : "(no campaign open)";
  if (!name) {
    fillCampaignForm({});
    setBoards([]);
    return null;
  }
  const r = await api("GET", "/v1/campaigns/" + enc(name) + "/settings");
  if (state.campaign !== name) return r; // another one was opened meanwhile
  if (r.ok) {
    state.settings = r.body;
    state.exists = true;
  } else if (r.status === 404) {
    state.settings = { boards: {} };
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

// ---- settings forms ----------------------------------------------------------

function fillCampaignForm(s) {
  const f = $("#campaign-form");
  clearErrors(f);
  f.offset.value = s.offset || "";
  f.start.value = s.start ?? "";
  f.end.value = s.end ?? "";
  f.vote_id_ttl.value = s.vote_id_ttl ?? "";
  f.limits.value = s.limits ? JSON.stringify(s.limits, null, 1) : "[]";
}

// A number when the text is one, else the text (the server says what is wrong).
function num(v) { return v.trim() !== "" && !isNaN(Number(v)) ? Number(v) : v.trim(); }

const WHOLE = /^\d+$/;

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
    fieldError(form, field, "No board is open: choose one in the list or type its name and press Open board.", what);
    return false;
  }
  return true;
}

async function saveCampaign(ev) {
  ev.preventDefault();
  const f = $("#campaign-form");
  const what = "The campaign was not saved";
  clearErrors(f);
  if (!needCampaign(f, "campaign", what, false)) return;
  const doc = {};
  if (f.offset.value.trim()) doc.offset = f.offset.value.trim();
  for (const k of ["start", "end", "vote_id_ttl"]) {
    const v = f[k].value.trim();
    if (!v) continue;
    if (!WHOLE.test(v)) { fieldError(f, k, "Enter a whole number of seconds, or nothing.", what); return; }
    doc[k] = Number(v);
  }
  try {
    doc.limits = JSON.parse(f.limits.value || "[]");
  } catch (e) {
    fieldError(f, "limits", "This is not JSON: " + e.message + ".", what);
    return;
  }
  const name = state.campaign;
  const r = await api("PUT", "/v1/campaigns/" + enc(name) + "/settings", doc);
  if (!r.ok) {
    const fields = ["offset", "start", "end", "vote_id_ttl", "limits"].map((field) => ({
      field, match: (d) => new RegExp("^" + field + "\\b|\\b" + field + "\\b").test(d),
    }));
    fields.push({ field: "limits", match: (d) => /^limits|rule|window|rolling/.test(d) });
    showError(f, r, fields, "campaign", what);
    return;
  }
  await loadCampaigns();
  status("campaign " + name + " saved");
}

function fillBoardForm() {
  const f = $("#board-form");
  clearErrors(f);
  $("#board-name").textContent = state.board || "-";
  const b = (state.settings && state.settings.boards || {})[state.board] || {};
  f.querySelectorAll('input[name="periods"]').forEach((c) => {
    c.checked = (b.periods || []).includes(c.value);
  });
  f.ties.value = b.ties || "competition";
  f.carry.value = b.carry ?? "";
  f.decimals.value = b.decimals ?? "";
  for (const p of ["hour", "day", "week", "month"]) {
    f["keep_" + p].value = (b.retention || {})[p] ?? "";
  }
  const rows = Object.keys(b.options || {}).sort().map((o, i) => {
    const tr = document.createElement("tr");
    tr.append(cell(o, "option"));
    const td = document.createElement("td");
    const input = document.createElement("input");
    input.className = "weight";
    input.id = "w-" + i;
    input.dataset.option = o;
    input.size = 8;
    input.inputMode = "decimal";
    input.setAttribute("aria-label", "Weight of " + o);
    input.setAttribute("aria-describedby", "w-" + i + "-error");
    input.value = b.options[o].weight ?? 1;
    td.append(input);
    const err = document.createElement("span");
    err.className = "error";
    err.id = "w-" + i + "-error";
    err.dataset.field = "weight:" + o;
    tr.append(td, cell(""));
    tr.lastChild.append(err);
    return tr;
  });
  $("#weights tbody").replaceChildren(...rows);
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
  for (const i of f.querySelectorAll("input.weight")) {
    const v = i.value.trim();
    if (v === "" || isNaN(Number(v))) {
      fieldError(f, "weight:" + i.dataset.option, "The weight of " + i.dataset.option + " must be a number.", what);
      return;
    }
    spec.options[i.dataset.option] = { weight: Number(v) };
  }
  const b = state.board;
  const r = await api("PUT", "/v1/campaigns/" + enc(state.campaign) + "/settings",
    { boards: { [b]: spec } });
  if (!r.ok) {
    const fields = Object.keys(spec.options).map((o) => ({
      field: "weight:" + o, match: (d) => d.includes("/" + o + ": weight") || d.includes(o + ".weight"),
    }));
    for (const field of ["periods", "ties", "carry", "decimals", "retention"]) {
      fields.push({ field, match: (d) => d.includes(field) || (field === "periods" && d.includes("period")) });
    }
    showError(f, r, fields, "board", what);
    return;
  }
  status("board " + b + " saved");
  await openCampaign(state.campaign);
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
  if (token()) loadCampaigns(); else status("enter the admin token");
});
