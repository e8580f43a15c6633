// redvote admin page: plain JavaScript, no framework, no build step.
//
// The admin token is asked once and kept in sessionStorage (gone when the
// tab closes); every API call sends it as "Authorization: Bearer". The live
// top is an EventSource on /v1/.../top/stream, which cannot send headers:
// it passes the token as ?access_token= (that route alone reads it).
"use strict";

const TOKEN_KEY = "redvote-admin-token";
const $ = (sel) => document.querySelector(sel);
const state = { campaign: null, board: null, settings: null, source: null };

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

function status(text, bad) {
  const el = $("#status");
  el.textContent = text;
  el.className = bad ? "error" : "muted";
}

const enc = encodeURIComponent;

// One API call: resolves to { ok, status, body } (body: parsed JSON or null).
async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + token() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = null;
  try { json = await res.json(); } catch (_) { /* empty body */ }
  return { ok: res.ok, status: res.status, body: json };
}

function problemText(r) {
  const b = r.body || {};
  return (b.code ? b.code + ": " : "") + (b.detail || "HTTP " + r.status);
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
  const keep = state.campaign;
  sel.replaceChildren(...[...new Set(names)].sort().map((n) => new Option(n, n)));
  if (keep && names.includes(keep)) sel.value = keep;
  status(names.length + " campaign(s)");
  await pickCampaign();
}

async function pickCampaign() {
  state.campaign = $("#campaign").value || null;
  if (!state.campaign) { stopLive(); return; }
  const r = await api("GET", "/v1/campaigns/" + enc(state.campaign) + "/settings");
  if (!r.ok) { status(problemText(r), true); return; }
  state.settings = r.body;
  fillCampaignForm(r.body);
  const boards = Object.keys(r.body.boards || {}).sort();
  const sel = $("#board");
  const keep = state.board;
  sel.replaceChildren(...boards.map((b) => new Option(b, b)));
  if (keep && boards.includes(keep)) sel.value = keep;
  pickBoard();
}

function pickBoard() {
  state.board = $("#board").value || null;
  fillBoardForm();
  startLive();
}

// ---- live top (SSE) --------------------------------------------------------

function stopLive() {
  if (state.source) state.source.close();
  state.source = null;
  $("#live-state").textContent = "not connected";
}

function startLive() {
  stopLive();
  if (!state.campaign || !state.board) return;
  const q = new URLSearchParams({
    period: $("#period").value, kind: $("#kind").value, n: "10", access_token: token(),
  });
  const url = "/v1/campaigns/" + enc(state.campaign) + "/boards/" + enc(state.board) +
    "/top/stream?" + q;
  const source = new EventSource(url);
  state.source = source;
  $("#live-state").textContent = "connecting";
  source.onopen = () => { $("#live-state").textContent = "live"; };
  source.onerror = () => { $("#live-state").textContent = "reconnecting"; };
  source.addEventListener("top", (e) => { $("#live-error").textContent = ""; renderTop(JSON.parse(e.data)); });
  source.addEventListener("problem", (e) => {
    const p = JSON.parse(e.data);
    $("#live-error").textContent = p.code + ": " + p.detail;
  });
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

function clearErrors(form) {
  form.querySelectorAll(".error").forEach((e) => { e.textContent = ""; });
}

// Shows a refusal next to the field its detail names (the scripts' details
// start with the board, option and field: "votes/alice: weight must be ...").
function showError(form, r, fields, fallback) {
  const text = problemText(r);
  const detail = (r.body && r.body.detail) || "";
  const hit = fields.find((f) => f.match(detail));
  const name = hit ? hit.field : fallback;
  const el = form.querySelector('.error[data-field="' + CSS.escape(name) + '"]');
  el.textContent = text;
  const input = el.closest(".field, tr");
  if (input) input.classList.add("invalid");
}

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
function num(v) { return v.trim() !== "" && !isNaN(Number(v)) ? Number(v) : v; }

async function saveCampaign(ev) {
  ev.preventDefault();
  const f = $("#campaign-form");
  clearErrors(f);
  f.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  const doc = {};
  if (f.offset.value.trim()) doc.offset = f.offset.value.trim();
  for (const k of ["start", "end", "vote_id_ttl"]) if (f[k].value.trim()) doc[k] = num(f[k].value);
  try {
    doc.limits = JSON.parse(f.limits.value || "[]");
  } catch (e) {
    f.querySelector('.error[data-field="limits"]').textContent = "not JSON: " + e.message;
    return;
  }
  const r = await api("PUT", "/v1/campaigns/" + enc(state.campaign) + "/settings", doc);
  if (!r.ok) {
    const fields = ["offset", "start", "end", "vote_id_ttl", "limits"].map((field) => ({
      field, match: (d) => new RegExp("^" + field + "\\b|\\b" + field + "\\b").test(d),
    }));
    fields.push({ field: "limits", match: (d) => /^limits|rule|window|rolling/.test(d) });
    showError(f, r, fields, "campaign");
    return;
  }
  status("campaign saved");
  await pickCampaign();
}

function fillBoardForm() {
  const f = $("#board-form");
  clearErrors(f);
  f.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
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
  const rows = Object.keys(b.options || {}).sort().map((o) => {
    const tr = document.createElement("tr");
    tr.append(cell(o, "option"));
    const td = document.createElement("td");
    const input = document.createElement("input");
    input.className = "weight";
    input.dataset.option = o;
    input.size = 8;
    input.value = b.options[o].weight ?? 1;
    td.append(input);
    const err = document.createElement("span");
    err.className = "error";
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
  clearErrors(f);
  f.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  const spec = {
    periods: [...f.querySelectorAll('input[name="periods"]:checked')].map((c) => c.value),
    ties: f.ties.value,
    options: {},
  };
  if (f.carry.value.trim()) spec.carry = f.carry.value.trim();
  if (f.decimals.value.trim()) spec.decimals = num(f.decimals.value);
  const retention = {};
  for (const p of ["hour", "day", "week", "month"]) {
    if (f["keep_" + p].value.trim()) retention[p] = num(f["keep_" + p].value);
  }
  if (Object.keys(retention).length) spec.retention = retention;
  f.querySelectorAll("input.weight").forEach((i) => {
    spec.options[i.dataset.option] = { weight: num(i.value) };
  });
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
    showError(f, r, fields, "board");
    return;
  }
  status("board " + b + " saved");
  await pickCampaign();
}

// ---- rate-limit peek ---------------------------------------------------------

async function peek(ev) {
  ev.preventDefault();
  const f = $("#limits-form");
  clearErrors(f);
  const q = new URLSearchParams({ user: $("#peek-user").value });
  if ($("#peek-channel").value) q.set("channel", $("#peek-channel").value);
  const r = await api("GET", "/v1/campaigns/" + enc(state.campaign) + "/limits?" + q);
  if (!r.ok) { showError(f, r, [], "peek"); return; }
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
  await loadCampaigns();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#token-form").addEventListener("submit", useToken);
  $("#token-forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    stopLive();
    status("token forgotten");
  });
  $("#reload").addEventListener("click", loadCampaigns);
  $("#campaign").addEventListener("change", pickCampaign);
  $("#board").addEventListener("change", pickBoard);
  $("#period").addEventListener("change", startLive);
  $("#kind").addEventListener("change", startLive);
  $("#campaign-form").addEventListener("submit", saveCampaign);
  $("#board-form").addEventListener("submit", saveBoard);
  $("#limits-form").addEventListener("submit", peek);
  if (token()) loadCampaigns(); else status("enter the admin token");
});
