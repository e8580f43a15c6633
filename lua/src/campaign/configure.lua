#!lua
--[[
  campaign_configure: create or update a campaign, its boards, options,
  weights and settings from one JSON document, all validated before the
  first write, in one atomic call.

  Input:
    KEYS[1]  campaign root "<ns>campaign" (the settings hash); every other
             key derives from <ns>, e.g. "{c:spring2026}:" (one cluster slot)
    ARGV[1]  settings  <json 1..4194304>  JSON object of at most 4 MiB (4194304
             bytes), every member optional; a member not shown here (a
             misspelt setting, in the campaign, a board or an option) is
             refused with REDVOTE_INVALID_CONFIG naming it:
      { "offset": "+08:00",            UTC offset of hour/day/week/month starts
        "start": 1767225600,           Unix seconds; votes before are refused
        "end": 1769904000,             Unix seconds; votes from then on are refused
        "vote_id_ttl": 86400,          seconds a vote id is remembered (1..31536000;
                                       default 86400)
        "vote_log": 0,                 entries of the capped vote log <ns>log
                                       (XADD MAXLEN ~ N, what campaign_void_range
                                       voids by user or channel), 0..1000000; 0
                                       (the default): no log
        "limits": [                    rate limits checked by every vote (replaces
                                       the list; [] removes them), at most 32:
          { "name": "user-minute",     1..64 bytes, unique
            "by": ["user"],            non-empty subset of user, option, channel, device
            "window": "minute",        second, minute, hour, day, week, month, campaign
            "limit": 5,                votes per window, 1..1000000000
            "extra": { "partner": 5 } },   extra allowance per channel (optional),
                                       at most 32 channels
          { "name": "smooth", "by": ["user"],
            "rolling": { "limit": 5, "per": 60, "burst": 5 } } ],  GCRA: limit per
                                       `per` seconds, `burst` (default limit) at once
        "deny": { "users": [...], "channels": [...] },   refused outright (replaces
                                       each list given), at most 10000 entries
                                       of 1..256 bytes each
        "boards": { "<board>": {
            "periods": ["hour", "day", "week", "month", "total"],   any subset
                                       (a list of at most 5)
            "ties": "name" | "competition" | "dense" | "first",
                                       (dense or first on a board already
                                       written is pending until
                                       campaign_reindex.lua has run: see
                                       Writes; "ties_pending" and
                                       "ties_effective", which
                                       campaign_settings.lua reports, are
                                       read-only and ignored)
            "carry": "0.1",            share of a vote's shown weight added to
                                       the NEXT period's shown board, 0..1
            "decimals": 2,             shown scores are kept and shown with this
                                       many decimals (0..6)
            "retention": { "hour": 172800, "day": 2678400, "week": 0, "month": 0 },
                                       seconds a period board lives after its
                                       period ends (0: forever)
            "options": { "<option>": { "weight": 1, "data": { "name": "..." } } },
                                       data: at most 100 fields, names 1..64
                                       bytes, values strings or numbers of at
                                       most 2048 bytes
            "remove": ["<option>", ...]   options to delete, at most 1000 a
                                       board: see Removal
        } } }
    Names of boards and options: 1..64 bytes, none of : { } * ? [ ] \ ,
    spaces or control characters. Defaults for a new board: periods
    ["total"], ties "competition", carry 0, decimals 2, retention 0; an
    option's weight defaults to 1. At most 64 boards and 1000 options a call.

  Removal: a board's `remove` deletes, in this call, each option's weight
    (so votes and imports for it are refused, REDVOTE_UNKNOWN_OPTION, and
    it leaves the option list), display data, imported votes and
    participant counter: O(options), whatever the board's size. On
    campaign data layout 2, the entries of the period boards listed in
    <ns>periods:B (real and shown, and the side keys f:/o:/d: of
    lib/order) are left to campaign_remove.lua, which takes them off in
    bounded steps: the options join the board's pending set
    <ns>removing:B (a campaign_remove cursor from before restarts:
    `remove_gen` of <ns>board:B counts up on every removal). Until it is done, reads
    (campaign_top, campaign_around, campaign_standing, and the export,
    which pages through campaign_top) skip them and rank the others as if
    they were gone (lib/ranks, O(R) more a period board read for R
    pending, at most 1000 a board: more is refused, REDVOTE_INVALID_CONFIG,
    until campaign_remove has run), and configuring an option of the same
    name is refused (REDVOTE_INVALID_CONFIG) until then. A board with no
    period board listed has nothing to clean: nothing is pending. On layout
    1 (redvote 0.5 may still write the campaign, and would neither skip nor
    keep a pending removal: its configure could add the option again and
    a later step would delete its new votes; its reads would show the
    removed option) the removal takes every period board in this call, as
    0.5 does: O(period boards x options); upgrade (docs/versions.md) to
    make it bounded.

  Sizes: every list and map has the maximum given above, checked before the
    first write (REDVOTE_INVALID_CONFIG; a document over 4 MiB:
    REDVOTE_USAGE), and every write of a list goes in chunks of at most 1000
    items (hset_chunks), so no write can reach Lua's unpack limit.

  Writes: HSET <ns>campaign offset start end vote_id_ttl vote_log
    stats_keep (the longest statistics retention of its boards, lib/stats); SADD <ns>boards; HSET
    <ns>campaign limits (normalized JSON); DEL + SADD <ns>deny:users,
    <ns>deny:channels; EXPIREAT of the campaign-window counters
    <ns>rl:RULE:campaign when `end` changes, DEL of those of removed rules;
    <ns>board:B (periods ties ties_next carry decimals keep_hour keep_day
    keep_week keep_month indexed order_gen; a switch of the tie rule to
    dense or first on a board already written is recorded as pending,
    `ties_next`, and takes effect when campaign_reindex.lua has built its
    side keys: reads rank by the old rule until then; any other switch
    takes effect at once; the side keys o:/d: of lua/src/lib/order.lua of
    a rule no longer kept are UNLINKed, one UNLINK a listed period board);
    HSET <ns>weights:B option weight; DEL + HSET <ns>option:B:O
    (display data); for removed options HDEL <ns>weights:B, <ns>initial:B,
    DEL <ns>option:B:O, <ns>hll:B:O, then SADD <ns>removing:B (layout
    2), or ZREM from every period board and its side keys (layout 1; see
    Removal); on both layouts HINCRBY <ns>board:B remove_gen and HSET
    <ns>removed:B option remove_gen (the removal's generation, which
    campaign_void compares with the one its vote recorded).

  Output: { "boards", n, "options", n } (how many were created or updated)

  Keys: <ns>boards, <ns>board:B, <ns>weights:B, <ns>option:B:O,
    <ns>deny:users, <ns>deny:channels, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>initial:B,
    <ns>hll:B:O, <ns>removing:B, <ns>removed:B, <ns>rl:RULE:WINDOW:SUBJECT, <ns>rl:RULE:rolling:SUBJECT,
    <ns>rl:RULE:campaign

  Reply: pairs(string, integer)
  Idempotent: yes (a removal sent again finds its options pending and
    leaves them so; on layout 1, where a removal completes in the call, a
    second send answers REDVOTE_UNKNOWN_OPTION, nothing applied twice)

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG, REDVOTE_INVALID_NAME,
    REDVOTE_UNKNOWN_OPTION (removing an option the board does not have,
    or one whose removal is pending),
    REDVOTE_LAYOUT_VERSION, REDVOTE_UNFOLDED, REDVOTE_UNKNOWN_BOARD (a
    buffered vote's board, folded first, that is gone: a buffer a hand
    changed).
]]
--- @include "lib/prologue"
--- @include "lib/names"
--- @include "lib/campaign"
--- @include "lib/option"
--- @include "lib/stored"
--- @include "lib/order"
--- @include "lib/fold_all"

-- cjson decodes arrays and objects alike: a list has exactly keys 1..n.
local function is_list(t)
  if type(t) ~= 'table' then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

local function integer(v, lo, hi, what)
  local n = tonumber(v)
  if type(v) ~= 'number' or n ~= math.floor(n) or n < lo or n > hi then
    fail('INVALID_CONFIG', what .. ' must be an integer in ' .. lo .. '..' .. hi .. ', got ' .. tostring(v):sub(1, 40))
  end
  return n
end

-- Appends the pair k, v to `list`, a flat list of HSET's field, value pairs.
local function push(list, k, v)
  list[#list + 1] = k
  list[#list + 1] = v
end

-- HSET of field, value pairs (`list`, flat) in chunks of 1000 items (500
-- pairs): a single unpack of more than about 8000 items fails in Lua.
local function hset_chunks(key, list)
  for i = 1, #list, 1000 do rcall('HSET', key, unpack(list, i, math.min(i + 999, #list))) end
end

-- A board or option name, a key of the settings (`what`: "board", "option").
-- Every key of the object `t` is one of `known` (a set): a misspelt
-- setting is refused, not lost (REDVOTE_INVALID_CONFIG naming it and where).
local function known_fields(t, known, where)
  for k in pairs(t) do
    if not known[k] then
      fail('INVALID_CONFIG', 'unknown setting "' .. tostring(k):sub(1, 64) .. '" in ' .. where)
    end
  end
end
local CAMPAIGN_FIELDS = { offset = 1, start = 1, ['end'] = 1, vote_id_ttl = 1, vote_log = 1, limits = 1, deny = 1,
  boards = 1, mode = 1, fold_ms = 1 }
local BOARD_FIELDS = { periods = 1, ties = 1, ties_pending = 1, ties_effective = 1, carry = 1, decimals = 1,
  retention = 1, options = 1, remove = 1 }
local OPTION_FIELDS = { weight = 1, data = 1 }

local function check_config_name(what, s)
  if not name_ok(s) then fail('INVALID_NAME', what .. ' name "' .. tostring(s):sub(1, 80) .. '"') end
end

-- The names of the campaign-window rules of `rules` (a decoded `limits`,
-- read leniently: anything else is no rule).
local function counters_of(rules)
  local names = {}
  for _, r in ipairs(type(rules) == 'table' and rules or {}) do
    if type(r) == 'table' and r.window == 'campaign' and name_ok(r.name) then names[r.name] = true end
  end
  return names
end

---------------------------------------------------------------------------
-- Validation: every argument and every stored value the writes depend on,
-- in this order (the first refusal wins); nothing is written yet.
---------------------------------------------------------------------------

-- The call's key and its one argument, a JSON object of at most 4 MiB.
-- Returns the campaign root, the namespace and the decoded document.
-- The campaign's data layout (lib/layout): what it was, or for a new
-- campaign the last this version writes. Set by parse_document.
local layout

-- Refuses `what` on a campaign still at layout 1, whose writers may include
-- redvote 0.5, which would not keep what `what` needs (docs/versions.md).
local function needs_layout_2(what)
  if layout < 2 then
    fail('LAYOUT_VERSION', what .. ' needs campaign data layout 2; this campaign is at layout 1 (redvote 0.5 may '
      .. 'still write it): once none does, run redvote campaign NAME upgrade (docs/versions.md)')
  end
end

local function parse_document()
  local root, ns
  root, ns, layout = campaign_key('campaign_configure')
  if rcall('EXISTS', root) == 0 then layout = CAMPAIGN_LAYOUT_IMMEDIATE end
  argc('campaign_configure', 1, 1, 'one JSON argument')
  if #ARGV[1] > 4194304 then fail('USAGE', 'campaign_configure takes a settings document of at most 4 MiB (4194304 bytes)') end
  local ok, doc = pcall(cjson.decode, ARGV[1])
  if not ok or type(doc) ~= 'table' or not ARGV[1]:find('^%s*{') then
    fail('INVALID_CONFIG', 'settings are not a JSON object')
  end
  known_fields(doc, CAMPAIGN_FIELDS, 'the campaign')
  return root, ns, doc
end

-- The campaign's own settings the document gives (offset, start, end,
-- vote_id_ttl, vote_log), validated: the root's fields to write, flat.
local function campaign_fields(doc)
  local campaign = {}
  if doc.offset ~= nil then
    local sign, hh, mm = tostring(doc.offset):match('^([%+%-])(%d%d):(%d%d)$')
    if not sign or tonumber(mm) > 59 or tonumber(hh) * 60 + tonumber(mm) > 14 * 60 then
      fail('INVALID_CONFIG', 'offset must be +HH:MM or -HH:MM within 14 hours, got ' .. tostring(doc.offset):sub(1, 40))
    end
    local seconds = tonumber(hh) * 3600 + tonumber(mm) * 60
    push(campaign, 'offset', sign == '-' and -seconds or seconds)
  end
  for _, field in ipairs({ 'start', 'end' }) do
    if doc[field] ~= nil then push(campaign, field, integer(doc[field], 0, 253402300799, field)) end
  end
  if doc.vote_id_ttl ~= nil then
    push(campaign, 'vote_id_ttl', integer(doc.vote_id_ttl, 1, 31536000, 'vote_id_ttl'))
  end
  if doc.vote_log ~= nil then
    local log = integer(doc.vote_log, 0, 1000000, 'vote_log')
    push(campaign, 'vote_log', log)
    if log > 0 then needs_layout_2('a vote log') end
  end
  if doc.mode ~= nil then
    if doc.mode ~= 'immediate' and doc.mode ~= 'buffered' then
      fail('INVALID_CONFIG', 'mode must be "immediate" or "buffered", got ' .. tostring(doc.mode):sub(1, 40))
    end
    if layout < CAMPAIGN_LAYOUT_IMMEDIATE then
      fail('LAYOUT_VERSION', 'a mode needs campaign data layout ' .. CAMPAIGN_LAYOUT_IMMEDIATE .. '; this campaign is at layout '
        .. layout .. ': run redvote campaign NAME upgrade first (docs/versions.md)')
    end
    push(campaign, 'mode', doc.mode)
    layout = doc.mode == 'buffered' and CAMPAIGN_LAYOUT_BUFFERED or CAMPAIGN_LAYOUT_IMMEDIATE
    if doc.mode == 'buffered' then
      -- nothing waits once this call has folded: every vote accepted
      -- before now is on the boards (lib/fold's `folded`)
      local t = rcall('TIME')
      push(campaign, 'folded', string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)))
    end
  end
  if doc.fold_ms ~= nil then push(campaign, 'fold_ms', integer(doc.fold_ms, 10, 60000, 'fold_ms')) end
  return campaign
end

-- The campaign's window after the call (the document's start and end, else
-- the stored ones, which must parse) is not empty. Returns the stored
-- { start, end } (HMGET's reply).
local function check_window(root, doc)
  local stored = rcall('HMGET', root, 'start', 'end')
  local start_at = doc.start or (stored[1] and stored_int(stored[1], 0, 253402300799, root, 'start'))
  local end_at = doc['end'] or (stored[2] and stored_int(stored[2], 0, 253402300799, root, 'end'))
  if start_at and end_at and end_at <= start_at then fail('INVALID_CONFIG', 'end must be after start') end
  return stored
end

-- The document's `i`th rate-limit rule `r` (`names`: the names of the rules
-- before it), validated and normalized as lib/limits.lua reads it.
local function parse_limit_rule(i, r, names)
  local dims = { user = true, option = true, channel = true, device = true }
  local windows = { second = true, minute = true, hour = true, day = true, week = true, month = true, campaign = true }
  if type(r) ~= 'table' then fail('INVALID_CONFIG', 'limit rule ' .. i .. ' must be an object') end
  for k, v in pairs(r) do
    local known = { name = 'string', by = 'table', window = 'string', limit = 'number', rolling = 'table', extra = 'table' }
    if not known[k] or type(v) ~= known[k] then
      fail('INVALID_CONFIG', 'limit rule ' .. i .. ': unknown field or wrong type: ' .. tostring(k):sub(1, 40))
    end
  end
  if r.rolling then
    for k, v in pairs(r.rolling) do
      if (k ~= 'limit' and k ~= 'per' and k ~= 'burst') or type(v) ~= 'number' then
        fail('INVALID_CONFIG', 'limit rule ' .. i .. ': rolling takes numbers limit, per, burst; got ' .. tostring(k):sub(1, 40))
      end
    end
  end
  local name = r.name
  if type(name) ~= 'string' or not name_ok(name) or names[name] or name == '@' then
    fail('INVALID_CONFIG', 'limit rule ' .. i .. ': name must be a unique name (1..64 bytes, not key-like, not "@")')
  end
  names[name] = true
  local what = 'limit rule ' .. name
  if not is_list(r.by) or #r.by == 0 then fail('INVALID_CONFIG', what .. ': by must list user, option, channel or device') end
  local by, seen = {}, {}
  for _, d in ipairs(r.by) do
    if not dims[d] or seen[d] then fail('INVALID_CONFIG', what .. ': unknown or repeated dimension ' .. tostring(d):sub(1, 40)) end
    seen[d] = true
    by[#by + 1] = d
  end
  local rule = { name = name, by = by }
  if r.rolling ~= nil then
    if type(r.rolling) ~= 'table' or r.window ~= nil or r.limit ~= nil then
      fail('INVALID_CONFIG', what .. ': a rolling rule has rolling = { limit, per, burst } and no window or limit')
    end
    rule.rolling = true
    rule.limit = integer(r.rolling.limit, 1, 1000000, what .. ': rolling.limit')
    rule.per = integer(r.rolling.per, 1, 315360000, what .. ': rolling.per')
    rule.burst = integer(r.rolling.burst or rule.limit, 1, 1000000, what .. ': rolling.burst')
  else
    if not windows[r.window] then
      fail('INVALID_CONFIG', what .. ': window must be second, minute, hour, day, week, month or campaign, got ' .. tostring(r.window):sub(1, 40))
    end
    rule.window = r.window
    rule.limit = integer(r.limit, 1, 1000000000, what .. ': limit')
  end
  if r.extra ~= nil then
    if type(r.extra) ~= 'table' then fail('INVALID_CONFIG', what .. ': extra must map channels to numbers') end
    rule.extra = {}
    local nextra = 0
    for channel, n in pairs(r.extra) do
      nextra = nextra + 1
      if nextra > 32 then fail('INVALID_CONFIG', what .. ': extra holds at most 32 channels') end
      if type(channel) ~= 'string' or not name_ok(channel) then fail('INVALID_CONFIG', what .. ': extra channel names must be names') end
      rule.extra[channel] = integer(n, 0, 1000000000, what .. ': extra.' .. channel)
    end
  end
  return rule
end

-- The document's `limits`, a list of at most 32 rules: the normalized
-- rules, or nil when the document does not give them.
local function parse_limits(limits)
  if limits == nil then return nil end
  if not is_list(limits) or #limits > 32 then fail('INVALID_CONFIG', 'limits must be a list of at most 32 rules') end
  local names, rules = {}, {}
  for i, r in ipairs(limits) do rules[#rules + 1] = parse_limit_rule(i, r, names) end
  return rules
end

-- Campaign-window counters live in one hash per rule, <ns>rl:RULE:campaign,
-- expiring a week after the campaign's end (COUNTER_GRACE, lib/campaign):
-- a new end moves their expiry (so moving
-- `end` later never resets "once per campaign"), and a rule that is
-- removed takes its counters along (they would never expire without an
-- end). The stored rules are read leniently here (names only): this is
-- also the call that repairs a corrupt `limits`. Returns the hashes to
-- expire at the new end (`end_at`) and those to delete.
local function counter_changes(root, ns, doc, rules, stored)
  local stored_limits = rcall('HGET', root, 'limits')
  local ok_old, old_rules = pcall(cjson.decode, stored_limits or '[]')
  local old_counters = counters_of(ok_old and old_rules)
  local new_counters = doc.limits ~= nil and counters_of(rules) or old_counters
  local counters = { expire = {}, drop = {}, end_at = doc['end'] }
  if doc['end'] ~= nil and doc['end'] ~= (stored[2] and tonumber(stored[2])) then
    for name in pairs(new_counters) do counters.expire[#counters.expire + 1] = ns .. 'rl:' .. name .. ':campaign' end
  end
  for name in pairs(old_counters) do
    if not new_counters[name] then counters.drop[#counters.drop + 1] = ns .. 'rl:' .. name .. ':campaign' end
  end
  return counters
end

-- The document's deny lists: { list name, entries } for each it gives.
local function deny_lists(doc)
  local deny = {}
  if doc.deny == nil then return deny end
  if type(doc.deny) ~= 'table' then fail('INVALID_CONFIG', 'deny must be { "users": [...], "channels": [...] }') end
  for list, values in pairs(doc.deny) do
    if (list ~= 'users' and list ~= 'channels') or not is_list(values) or #values > 10000 then
      fail('INVALID_CONFIG', 'deny lists are users and channels, at most 10000 each')
    end
    for _, v in ipairs(values) do
      if type(v) ~= 'string' or #v == 0 or #v > 256 or v:find('%c') then
        fail('INVALID_CONFIG', 'deny.' .. list .. ' entries are 1..256 bytes without control characters')
      end
    end
    deny[#deny + 1] = { list, values }
  end
  return deny
end

-- A board's `periods` (nil: the default, { 'total' }): the stored value.
local function board_periods(board, periods)
  local seen, list = {}, {}
  if type(periods or {}) ~= 'table' then fail('INVALID_CONFIG', board .. ': periods must be a list') end
  if #(periods or {}) > 5 then fail('INVALID_CONFIG', board .. ': periods must be a list of at most 5') end
  for _, p in ipairs(periods or { 'total' }) do
    if p ~= 'hour' and p ~= 'day' and p ~= 'week' and p ~= 'month' and p ~= 'total' then
      fail('INVALID_CONFIG', board .. ': unknown period ' .. tostring(p):sub(1, 40) .. ' (hour, day, week, month, total)')
    end
    if not seen[p] then seen[p] = true; list[#list + 1] = p end
  end
  if #list == 0 then fail('INVALID_CONFIG', board .. ': periods must not be empty') end
  return table.concat(list, ',')
end

-- The tie rules with side keys (lib/order).
local ORDERED = { dense = true, first = true }

-- The stored tie rules of a board as lib/board reads them, leniently (this
-- call also repairs them): `was` is HMGET ties, ties_next, indexed,
-- order_gen. Returns the rule in effect, the pending one (nil: none) and
-- whether they were corrupt (then no side key is trusted).
local function stored_rules(was)
  local t, n = was[1] or 'competition', was[2]
  local known = { name = true, competition = true, dense = true, first = true }
  if not known[t] or (n and not known[n]) or n == t then return 'competition', nil, true end
  if ORDERED[t] and was[3] ~= '1' and not n then return 'competition', t, false end
  return t, n, false
end

-- A board's tie rule (`ties`, nil: competition) into its `fields` (HSET)
-- and `hdel` (HDEL); `was`: see stored_rules. A new board takes it at once.
-- On an existing board:
--   * the rule pending already: nothing changes;
--   * the rule in effect: a pending switch is cancelled (its side keys go);
--   * dense or first on a board already written: it becomes the pending
--     rule (`ties_next`), the one in effect stays until campaign_reindex.lua
--     has built the new rule's side keys (its last call makes the switch),
--     so that no read ever ranks without them;
--   * otherwise (name or competition, or a board never written) at once.
-- Every new pending rule counts in `order_gen` (a reindex cursor from
-- before it restarts). Returns the rules whose side keys go (order_drop) and the
-- rules a writer keeps after the call (the `sides` of lib/board).
local function board_ties(ns, board, ties, exists, was, fields, hdel)
  ties = ties or 'competition'
  if not ORDERED[ties] and ties ~= 'name' and ties ~= 'competition' then
    fail('INVALID_CONFIG', board .. ': ties must be name, competition, dense or first, got ' .. tostring(ties):sub(1, 40))
  end
  if not exists then
    push(fields, 'ties', ties)
    return {}, ORDERED[ties] and { ties } or {}
  end
  local key = ns .. 'board:' .. board
  local written = rcall('ZCARD', ns .. 'periods:' .. board) > 0
  local gen = was[4] and stored_int(was[4], 0, 999999999999999, key, 'order_gen') or 0
  local effect, pending, corrupt = stored_rules(was)
  local sides = function(e, p)
    local list = {}
    if ORDERED[e] then list[#list + 1] = e end
    if p and ORDERED[p] then list[#list + 1] = p end
    return list
  end
  if ties == pending and not corrupt then return {}, sides(effect, pending) end
  if ties == effect and not pending and not corrupt then return {}, sides(effect) end
  local drop = corrupt and { 'dense', 'first' } or {}
  if not corrupt and pending and ORDERED[pending] then drop[#drop + 1] = pending end
  if ties ~= effect and ORDERED[ties] and written then
    -- pending: the rule in effect stays (its side keys complete), the
    -- board is not indexed for the rule configured (redvote 0.5's votes
    -- would not keep the pending rule's side keys)
    needs_layout_2('switching the ties of a board with votes to ' .. ties)
    push(fields, 'indexed', '0')
    push(fields, 'order_gen', gen + 1)
    push(fields, 'ties', effect)
    push(fields, 'ties_next', ties)
    if not corrupt and ties ~= pending then drop[#drop + 1] = ties end
    return drop, sides(effect, ties)
  end
  push(fields, 'indexed', '1')
  push(fields, 'ties', ties)
  hdel[#hdel + 1] = 'ties_next'
  if not corrupt and ties ~= effect and ORDERED[effect] then drop[#drop + 1] = effect end
  return drop, sides(ties)
end

-- The fields of <ns>board:B the document sets (all of them for a new
-- board, `exists` false, which also gets `indexed` 1): periods, ties,
-- decimals, carry, retention. Returns them (flat), the fields to delete,
-- the rules whose side keys go (board_ties) and the board's `sides` after
-- the call. (`ties_pending` and `ties_effective`, which campaign_settings
-- reports, are read-only: checked for their type, then ignored.)
local function board_fields(ns, board, spec, exists, was)
  local fields, hdel = {}, {}
  if not exists then push(fields, 'indexed', '1') end
  if spec.periods ~= nil or not exists then push(fields, 'periods', board_periods(board, spec.periods)) end
  if spec.ties_pending ~= nil and type(spec.ties_pending) ~= 'boolean' then
    fail('INVALID_CONFIG', board .. ': ties_pending (read-only) must be true or false')
  end
  if spec.ties_effective ~= nil and not (ORDERED[spec.ties_effective] or spec.ties_effective == 'name' or spec.ties_effective == 'competition') then
    fail('INVALID_CONFIG', board .. ': ties_effective (read-only) must be name, competition, dense or first')
  end
  local drop, sides = {}, nil
  if spec.ties ~= nil or not exists then
    drop, sides = board_ties(ns, board, spec.ties, exists, was, fields, hdel)
  else
    local effect, pending = stored_rules(was)
    sides = {}
    if ORDERED[effect] then sides[#sides + 1] = effect end
    if pending and ORDERED[pending] then sides[#sides + 1] = pending end
  end
  if spec.decimals ~= nil or not exists then push(fields, 'decimals', integer(spec.decimals or 2, 0, 6, board .. ': decimals')) end
  if spec.carry ~= nil or not exists then
    local carry = tostring(spec.carry or '0')
    if not (carry:find('^0%.%d+$') or carry:find('^1%.0+$') or carry == '0' or carry == '1') or #carry > 8 then
      fail('INVALID_CONFIG', board .. ': carry must be a decimal in [0, 1] with at most 6 decimals, got ' .. carry:sub(1, 40))
    end
    push(fields, 'carry', carry)
  end
  if spec.retention ~= nil and type(spec.retention) ~= 'table' then fail('INVALID_CONFIG', board .. ': retention must be an object') end
  for p, seconds in pairs(spec.retention or {}) do
    if p ~= 'hour' and p ~= 'day' and p ~= 'week' and p ~= 'month' then
      fail('INVALID_CONFIG', board .. ': retention is per hour, day, week or month, got ' .. tostring(p):sub(1, 40))
    end
    push(fields, 'keep_' .. p, integer(seconds, 0, 315360000, board .. ': retention.' .. p))
  end
  return fields, hdel, drop, sides
end

-- A board's `options`: the weights to write (given, or 1 for an option the
-- board lacks; flat) and the display data ({ option, fields (flat) } each).
-- `count.options` counts the options of the whole call (at most 1000).
local function board_options(ns, board, options, count, pending)
  local weights, data = {}, {}
  if options ~= nil and type(options) ~= 'table' then fail('INVALID_CONFIG', board .. ': options must be an object') end
  for option, o in pairs(options or {}) do
    check_config_name('option', option)
    if type(o) ~= 'table' then fail('INVALID_CONFIG', board .. '/' .. option .. ' must be an object') end
    known_fields(o, OPTION_FIELDS, 'option ' .. board .. '/' .. option)
    count.options = count.options + 1
    if count.options > 1000 then fail('INVALID_CONFIG', 'at most 1000 options a call') end
    if pending > 0 and rcall('SISMEMBER', ns .. 'removing:' .. board, option) == 1 then
      fail('INVALID_CONFIG', board .. '/' .. option .. ' is being removed: its removal must finish before it is '
        .. 'configured again (redvote campaign NAME remove-options, or campaign_remove.lua until its cursor is "0")')
    end
    if o.weight ~= nil or rcall('HEXISTS', ns .. 'weights:' .. board, option) == 0 then
      push(weights, option, integer(o.weight or 1, 1, 1000000, board .. '/' .. option .. ': weight'))
    end
    if o.data ~= nil then
      if type(o.data) ~= 'table' then fail('INVALID_CONFIG', board .. '/' .. option .. ': data must be an object') end
      local flat = {}
      for k, v in pairs(o.data) do
        if #flat >= 200 then fail('INVALID_CONFIG', board .. '/' .. option .. ': data holds at most 100 fields') end
        if type(k) ~= 'string' or #k == 0 or #k > 64 or (type(v) ~= 'string' and type(v) ~= 'number') or #tostring(v) > 2048 then
          fail('INVALID_CONFIG', board .. '/' .. option .. ': data is string keys (1..64 bytes) to strings or numbers (<= 2048 bytes)')
        end
        push(flat, k, tostring(v))
      end
      data[#data + 1] = { option, flat }
    end
  end
  return weights, data
end

-- A board's `remove`: at most 1000 options the board has, none of them
-- also configured by the call.
local function board_removals(ns, board, spec, pending)
  local remove = {}
  if spec.remove ~= nil and (type(spec.remove) ~= 'table' or #spec.remove > 1000) then
    fail('INVALID_CONFIG', board .. ': remove must be a list of at most 1000 options')
  end
  if spec.remove and #spec.remove > 0 and pending + #spec.remove > 1000 then
    fail('INVALID_CONFIG', board .. ': at most 1000 options pending removal a board; ' .. pending .. ' are: finish '
      .. 'their removal first (redvote campaign NAME remove-options, or campaign_remove.lua until its cursor is "0")')
  end
  for _, option in ipairs(spec.remove or {}) do
    check_config_name('option', option)
    if (spec.options or {})[option] then fail('INVALID_CONFIG', board .. '/' .. option .. ' is both configured and removed') end
    -- already pending removal (a retry of the call that removed it): done
    if pending == 0 or rcall('SISMEMBER', ns .. 'removing:' .. board, option) == 0 then
      check_option(ns, board, option)
      remove[#remove + 1] = option
    end
  end
  return remove
end

-- The board's period boards from its index, when options are removed on
-- layout 1 (layout 2: none, campaign_remove.lua cleans them): those not
-- expired ("real:P" / "shown:P"), whose entries of the removed options go.
-- The keys the removal writes are read here first. Returns them and
-- whether the removal is left pending (layout 2 and a period board
-- listed).
local function board_index(ns, board, remove)
  local boards_of = {}
  if #remove > 0 and layout >= 2 then
    rcall('HLEN', ns .. 'initial:' .. board)
    return boards_of, rcall('ZCARD', ns .. 'periods:' .. board) > 0
  end
  if #remove > 0 then
    local index = rcall('ZRANGE', ns .. 'periods:' .. board, 0, -1, 'WITHSCORES')
    local now = tonumber(rcall('TIME')[1])
    for i = 1, #index, 2 do
      local expiry = tonumber(index[i + 1])
      if expiry == 0 or expiry > now then
        boards_of[#boards_of + 1] = index[i]
        for _, side in ipairs({ 'b:', 'f:', 'o:', 'd:' }) do rcall('ZCARD', ns .. side .. board .. ':' .. index[i]) end
      end
    end
    rcall('HLEN', ns .. 'initial:' .. board)
  end
  return boards_of, false
end

-- One board of the document, validated against its stored state. Every
-- key this call writes is read first (HLEN, SCARD, ZCARD): one of the wrong
-- type is refused before the first write. Returns the plan of its writes.
local function board_plan(ns, board, spec, count)
  check_config_name('board', board)
  if type(spec) ~= 'table' then fail('INVALID_CONFIG', 'board ' .. board .. ' must be an object') end
  known_fields(spec, BOARD_FIELDS, 'board ' .. board)
  count.boards = count.boards + 1
  if count.boards > 64 then fail('INVALID_CONFIG', 'at most 64 boards a call') end
  local exists = rcall('HLEN', ns .. 'board:' .. board) > 0
  rcall('HLEN', ns .. 'weights:' .. board)
  local was = rcall('HMGET', ns .. 'board:' .. board, 'ties', 'ties_next', 'indexed', 'order_gen', 'remove_gen')
  -- the options pending removal (campaign_remove.lua), read on layout 2
  local pending = layout >= 2 and rcall('SCARD', ns .. 'removing:' .. board) or 0
  local plan = { board = board }
  local sides
  plan.fields, plan.hdel, plan.drop, sides = board_fields(ns, board, spec, exists, was)
  plan.after = { sides = sides }
  plan.weights, plan.data = board_options(ns, board, spec.options, count, pending)
  plan.remove = board_removals(ns, board, spec, pending)
  plan.boards_of, plan.pending = board_index(ns, board, plan.remove)
  if #plan.remove > 0 then
    -- every removal counts: a void skips what the vote counted of an
    -- option removed since (<ns>removed:B, lib/void)
    plan.remove_gen = (was[5] and stored_int(was[5], 0, 999999999999999, ns .. 'board:' .. board, 'remove_gen') or 0) + 1
    rcall('HLEN', ns .. 'removed:' .. board)
  end
  return plan
end

-- The document's `boards` (at most 64, with at most 1000 options in all):
-- a plan for each, and the counts of boards and options.
local function board_plans(ns, doc)
  local plans, count = {}, { boards = 0, options = 0 }
  if doc.boards ~= nil and type(doc.boards) ~= 'table' then fail('INVALID_CONFIG', 'boards must be an object') end
  for board, spec in pairs(doc.boards or {}) do plans[#plans + 1] = board_plan(ns, board, spec, count) end
  if count.boards > 0 then rcall('SCARD', ns .. 'boards') end
  return plans, count
end

---------------------------------------------------------------------------
-- Writes: only after all of the above.
---------------------------------------------------------------------------

-- The campaign's settings (with `updated`, the time of this call), the
-- campaign-window counters' expiries, the deny lists and `denying`.
local function write_campaign(root, ns, campaign, counters, deny)
  push(campaign, 'updated', rcall('TIME')[1])
  if layout > 1 then push(campaign, 'layout', layout) end
  hset_chunks(root, campaign)
  for _, key in ipairs(counters.expire) do rcall('EXPIREAT', key, counters.end_at + COUNTER_GRACE) end
  for _, key in ipairs(counters.drop) do rcall('DEL', key) end
  for _, d in ipairs(deny) do
    rcall('DEL', ns .. 'deny:' .. d[1])
    for i = 1, #d[2], 1000 do rcall('SADD', ns .. 'deny:' .. d[1], unpack(d[2], i, math.min(i + 999, #d[2]))) end
  end
  if #deny > 0 then
    -- The vote looks at the deny lists only when one is non-empty.
    local any = rcall('EXISTS', ns .. 'deny:users', ns .. 'deny:channels') > 0
    rcall('HSET', root, 'denying', any and '1' or '0')
  end
end

-- A removal's generation: `remove_gen` of <ns>board:B counts it, and
-- <ns>removed:B records it for each option removed (what a void compares
-- with the generation its vote recorded, lib/void).
local function write_removal_gen(ns, b)
  rcall('HSET', ns .. 'board:' .. b.board, 'remove_gen', b.remove_gen)
  local gens = {}
  for _, option in ipairs(b.remove) do push(gens, option, b.remove_gen) end
  hset_chunks(ns .. 'removed:' .. b.board, gens)
end

-- One board's plan (board_plan): its settings, weights, display data, the
-- side keys of rules no longer kept, and the removed options everywhere
-- they are.
local function write_board(ns, b)
  local board = b.board
  rcall('SADD', ns .. 'boards', board)
  hset_chunks(ns .. 'board:' .. board, b.fields)
  if #b.hdel > 0 then rcall('HDEL', ns .. 'board:' .. board, unpack(b.hdel)) end
  hset_chunks(ns .. 'weights:' .. board, b.weights)
  for _, d in ipairs(b.data) do
    local key = ns .. 'option:' .. board .. ':' .. d[1]
    rcall('DEL', key)
    hset_chunks(key, d[2])
  end
  for _, rule in ipairs(b.drop) do order_drop(ns, board, rule) end
  if #b.remove == 0 then return end
  write_removal_gen(ns, b)
  if layout >= 2 then
    -- O(options): the rest is pending, for campaign_remove.lua
    local removing = ns .. 'removing:' .. board
    for i = 1, #b.remove, 1000 do
      local chunk = { unpack(b.remove, i, math.min(i + 999, #b.remove)) }
      rcall('HDEL', ns .. 'weights:' .. board, unpack(chunk))
      rcall('HDEL', ns .. 'initial:' .. board, unpack(chunk))
      if b.pending then rcall('SADD', removing, unpack(chunk)) end
    end
    for _, option in ipairs(b.remove) do
      rcall('DEL', ns .. 'option:' .. board .. ':' .. option, ns .. 'hll:' .. board .. ':' .. option)
    end
    return
  end
  -- Period boards that have expired leave the index first (0: kept forever).
  local index = ns .. 'periods:' .. board
  rcall('ZREMRANGEBYSCORE', index, 1, rcall('TIME')[1])
  for _, option in ipairs(b.remove) do
    for _, p in ipairs(b.boards_of) do order_remove(ns, b.after, ns .. 'b:' .. board .. ':' .. p, option) end
    rcall('HDEL', ns .. 'weights:' .. board, option)
    rcall('HDEL', ns .. 'initial:' .. board, option)
    rcall('DEL', ns .. 'option:' .. board .. ':' .. option, ns .. 'hll:' .. board .. ':' .. option)
  end
  -- A board emptied by the removal is gone: forget it, so that a later
  -- vote re-creating it sets its expiry again.
  for _, p in ipairs(b.boards_of) do
    if rcall('EXISTS', ns .. 'b:' .. board .. ':' .. p) == 0 then rcall('ZREM', index, p) end
  end
end

-- The campaign's statistics retention (lib/stats), after the boards of
-- this call are written: root field stats_keep, the longest stats_keep of
-- every board written so far (-1: one is kept forever); it only grows, so
-- it needs no read of the boards this call does not name.
local function write_stats_keep(root, ns, boards)
  local keep = tonumber(rcall('HGET', root, 'stats_keep') or '0') or 0
  for _, b in ipairs(boards) do
    if keep == -1 then break end
    local s = rcall('HMGET', ns .. 'board:' .. b.board, 'periods', 'keep_hour', 'keep_day', 'keep_week', 'keep_month')
    local k = { hour = s[2], day = s[3], week = s[4], month = s[5] }
    local longest = 0
    for p in (s[1] or ''):gmatch('[^,]+') do
      if p ~= 'total' then
        local n = tonumber(k[p] or '0') or 0
        if n == 0 then longest = -1; break end
        if n > longest then longest = n end
      end
    end
    if longest == 0 then longest = -1 end -- a board of its total only: kept
    if longest == -1 or longest > keep then keep = longest end
  end
  rcall('HSET', root, 'stats_keep', keep)
end

local function main()
  -- validation, in order: the document, the campaign's settings, its
  -- rules and what they change, the deny lists, the boards
  local root, ns, doc = parse_document()
  local campaign = campaign_fields(doc)
  local stored = check_window(root, doc)
  local rules = parse_limits(doc.limits)
  if rules then
    -- the rules as lib/limits reads them, and their stamp: a copy of what
    -- was validated here, which the votes compare with the rules to trust
    -- them (limit_rules)
    local json = #rules > 0 and cjson.encode(rules) or '[]'
    push(campaign, 'limits', json)
    push(campaign, 'limits_checked', json)
  end
  local counters = counter_changes(root, ns, doc, rules, stored)
  local deny = deny_lists(doc)
  local boards, count = board_plans(ns, doc)

  -- validated: a buffered campaign's votes are folded with the settings
  -- they were accepted under (lib/fold), then the writes start here
  fold_all(root, ns)
  write_campaign(root, ns, campaign, counters, deny)
  for _, b in ipairs(boards) do write_board(ns, b) end
  if #boards > 0 then write_stats_keep(root, ns, boards) end
  return { 'boards', count.boards, 'options', count.options }
end

--- @include "lib/epilogue"
