#!lua flags=no-writes
--[[
  campaign_settings: a campaign's stored settings as the JSON document
  campaign_configure takes (sent back to it, it configures the same
  campaign): offset, start, end, vote_id_ttl, vote_log, mode, fold_ms, limits, and every board's
  periods, ties, carry, decimals, retention and options with their
  weights. Left out, as they can be large: the deny lists and the options'
  display data. Read-only (flagged no-writes: it runs on a replica, and a
  client that WAITs for replicas after writes does not wait for it); one
  atomic snapshot of the campaign.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    (no ARGV)

  Output: the JSON text of the settings document (a bulk string), e.g.
    {"offset":"+08:00","start":1767225600,"end":1769904000,
     "limits":[{"name":"user-day","by":["user"],"window":"day","limit":10}],
     "boards":{"stars":{"periods":["day","total"],"ties":"competition",
       "carry":"0","decimals":2,"retention":{"day":2678400},
       "options":{"wy":{"weight":1}}}}}
    A start of 0 and an end of 253402300799 (9999-12-31T23:59:59) refuse
    no vote: a cleared date, left out like one never set. A member is
    there when it is stored (campaign_configure stores a new
    board's periods, ties, carry and decimals, and a retention only when
    given). `ties` is the rule configured; while a switch to it is pending
    (lua/src/lib/board.lua: campaign_reindex.lua has not finished building
    its side keys) the board also reads "ties_pending": true and
    "ties_effective": the rule reads rank by until then (campaign_configure
    takes both back and ignores them); a rolling rule reads "rolling": {"limit", "per", "burst"};
    "boards" is left out when the campaign has none. Boards are sorted by
    name; a board listed in <ns>boards whose settings hash has no periods
    is left out.

  Cost: bounded by the caps of one campaign_configure call, 64 boards and
    1000 options: a campaign holding more is refused (REDVOTE_INVALID_CONFIG,
    found with SCARD and one HLEN a board before any board is read). Then
    O(boards + options): HMGET of the campaign hash, SMEMBERS <ns>boards,
    and per board HGETALL + HMGET of <ns>board:B and HGETALL of
    <ns>weights:B.

  Keys: <ns>boards, <ns>board:B, <ns>weights:B

  Reply: json
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG (a
    corrupt stored setting or board or option name, a key of the wrong
    type, or a campaign over 64 boards or 1000 options),
    REDVOTE_LAYOUT_VERSION,
    REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/names"
--- @include "lib/stored"
--- @include "lib/offset"
--- @include "lib/board"
--- @include "lib/limits"

-- The caps of one campaign_configure call: what one read returns.
local MAX_BOARDS, MAX_OPTIONS = 64, 1000

-- A JSON object from `members`, a list of { name, JSON text } in order
-- (cjson encodes an empty table as {}, so lists and objects that may be
-- empty are joined here).
local function json_object(members)
  local out = {}
  for _, m in ipairs(members) do out[#out + 1] = cjson.encode(m[1]) .. ':' .. m[2] end
  return '{' .. table.concat(out, ',') .. '}'
end

-- A stored rule (validated by lib/limits' limit_rules) as the document's,
-- its members in a fixed order (cjson's follows the Lua table's hash order,
-- which differs between servers: Redis and Valkey answered other bytes).
local function rule_json(r)
  local members = { { 'name', cjson.encode(r.name) } }
  members[#members + 1] = { 'by', #r.by > 0 and cjson.encode(r.by) or '[]' }
  if r.rolling then
    local rolling = { { 'limit', cjson.encode(r.limit) }, { 'per', cjson.encode(r.per) } }
    if r.burst then rolling[#rolling + 1] = { 'burst', cjson.encode(r.burst) } end
    members[#members + 1] = { 'rolling', json_object(rolling) }
  else
    members[#members + 1] = { 'window', cjson.encode(r.window) }
    members[#members + 1] = { 'limit', cjson.encode(r.limit) }
  end
  if r.extra then
    local channels, extra = {}, {}
    for channel in pairs(r.extra) do channels[#channels + 1] = channel end
    table.sort(channels)
    for _, channel in ipairs(channels) do extra[#extra + 1] = { channel, cjson.encode(r.extra[channel]) } end
    members[#members + 1] = { 'extra', json_object(extra) }
  end
  return json_object(members)
end

-- Board `board`'s members of the document (nil: no settings stored).
local function board_json(ns, board)
  local key = ns .. 'board:' .. board
  local flat = rcall('HGETALL', key)
  local raw = {}
  for i = 1, #flat, 2 do raw[flat[i]] = flat[i + 1] end
  if not raw.periods then return nil end
  local s = board_settings(ns, board) -- validated as every board read does
  local members = { { 'periods', cjson.encode(s.periods) } }
  if s.pending then
    -- the rule configured, not in effect yet: reads rank by the one in
    -- effect until campaign_reindex.lua has run to the end
    members[#members + 1] = { 'ties', cjson.encode(s.pending) }
    members[#members + 1] = { 'ties_pending', 'true' }
    members[#members + 1] = { 'ties_effective', cjson.encode(s.ties) }
  elseif raw.ties then
    members[#members + 1] = { 'ties', cjson.encode(s.ties) }
  end
  if raw.carry then members[#members + 1] = { 'carry', cjson.encode(raw.carry) } end
  if raw.decimals then members[#members + 1] = { 'decimals', tostring(s.decimals) } end
  local retention = {}
  for _, p in ipairs({ 'hour', 'day', 'week', 'month' }) do
    if raw['keep_' .. p] then retention[#retention + 1] = { p, tostring(s.keep[p]) } end
  end
  if #retention > 0 then members[#members + 1] = { 'retention', json_object(retention) } end
  -- The options, sorted by name, as one JSON object (up to 1000 options:
  -- one pattern match and one string an option). A plain name (lib/names'
  -- PLAIN_NAME, name_ok's first test) is quoted as it is, another
  -- goes through name_ok and cjson; a weight stored as canonical digits
  -- in 1..1000000 is written as stored, another through stored_int.
  local wkey = ns .. 'weights:' .. board
  local weights = rcall('HGETALL', wkey)
  local names, texts, n = {}, {}, 0
  for i = 1, #weights, 2 do
    local option, stored = weights[i], weights[i + 1]
    local quoted
    if #option <= NAME_MAX and option:find(PLAIN_NAME) then
      quoted = '"' .. option .. '"'
    elseif name_ok(option) then
      quoted = cjson.encode(option)
    else
      fail('INVALID_CONFIG', wkey .. ' holds "' .. option:sub(1, 40) .. '", not an option name')
    end
    if not (#stored < 7 and stored:find('^[1-9]%d*$') or stored == '1000000') then
      stored = tostring(stored_int(stored, 1, 1000000, wkey, option))
    end
    n = n + 1
    names[n] = option
    texts[option] = quoted .. ':{"weight":' .. stored .. '}'
  end
  table.sort(names)
  for i = 1, n do names[i] = texts[names[i]] end
  members[#members + 1] = { 'options', '{' .. table.concat(names, ',') .. '}' }
  return json_object(members)
end

local function main()
  local root, ns = campaign_key('campaign_settings')
  argc('campaign_settings', 0, 0, 'no arguments')
  local offset = campaign_offset(root) -- REDVOTE_UNKNOWN_CAMPAIGN, or a corrupt offset
  local c = rcall('HMGET', root, 'offset', 'start', 'end', 'vote_id_ttl', 'limits', 'vote_log', 'mode', 'fold_ms')
  -- the bound, before any board is read
  local set = ns .. 'boards'
  local nboards = rcall('SCARD', set)
  if nboards > MAX_BOARDS then
    fail('INVALID_CONFIG', 'the campaign has ' .. nboards .. ' boards: its settings are read with at most ' .. MAX_BOARDS)
  end
  local boards = rcall('SMEMBERS', set)
  table.sort(boards)
  local noptions = 0
  for _, board in ipairs(boards) do
    if not name_ok(board) then fail('INVALID_CONFIG', set .. ' holds "' .. board:sub(1, 40) .. '", not a board name') end
    noptions = noptions + rcall('HLEN', ns .. 'weights:' .. board)
    if noptions > MAX_OPTIONS then
      fail('INVALID_CONFIG', 'the campaign has more than ' .. MAX_OPTIONS .. ' options: its settings are read with at most ' .. MAX_OPTIONS)
    end
  end

  local doc = {}
  if c[1] then
    local a = math.abs(offset)
    doc[#doc + 1] = { 'offset', cjson.encode(string.format('%s%02d:%02d', offset < 0 and '-' or '+', math.floor(a / 3600), math.floor(a % 3600 / 60))) }
  end
  -- start 0 and end 253402300799 (9999-12-31T23:59:59) refuse no vote: a
  -- cleared date (the service stores them for "start": null / "end": null),
  -- shown as absent
  local start_at = c[2] and stored_int(c[2], 0, 253402300799, root, 'start')
  local end_at = c[3] and stored_int(c[3], 0, 253402300799, root, 'end')
  if start_at and start_at > 0 then doc[#doc + 1] = { 'start', tostring(start_at) } end
  if end_at and end_at < 253402300799 then doc[#doc + 1] = { 'end', tostring(end_at) } end
  if c[4] then doc[#doc + 1] = { 'vote_id_ttl', tostring(stored_int(c[4], 1, 31536000, root, 'vote_id_ttl')) } end
  if c[6] then doc[#doc + 1] = { 'vote_log', tostring(stored_int(c[6], 0, 1000000, root, 'vote_log')) } end
  if c[7] then
    if c[7] ~= 'immediate' and c[7] ~= 'buffered' then fail('INVALID_CONFIG', root .. ' mode is corrupt: "' .. c[7]:sub(1, 40) .. '"') end
    doc[#doc + 1] = { 'mode', cjson.encode(c[7]) }
  end
  if c[8] then doc[#doc + 1] = { 'fold_ms', tostring(stored_int(c[8], 10, 60000, root, 'fold_ms')) } end
  if c[5] then
    local rules = {}
    for _, r in ipairs(limit_rules(root, c[5])) do rules[#rules + 1] = rule_json(r) end
    doc[#doc + 1] = { 'limits', '[' .. table.concat(rules, ',') .. ']' }
  end
  local members = {}
  for _, board in ipairs(boards) do
    local b = board_json(ns, board)
    if b then members[#members + 1] = { board, b } end
  end
  if #members > 0 then doc[#doc + 1] = { 'boards', json_object(members) } end
  return json_object(doc)
end

--- @include "lib/epilogue"
