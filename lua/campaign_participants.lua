#!lua
-- GENERATED from lua/src/campaign/participants.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  campaign_participants: unique participants (HyperLogLog PFCOUNT, about
  0.81% standard error) of options of one board and of the whole campaign.
  Reads only, but is not flagged no-writes: Redis counts PFCOUNT as a write
  (it caches the cardinality inside the HyperLogLog).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board
    ARGV[2..] options (0..100)

  Output: { campaign participants, { option, participants }, ... }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names) (shared block: the master
-- copy is lua/lib/names.lua). 1..64 bytes, and none of : { } * ? [ ] \ ,
-- spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= 64 and not s:find('[%c%s:{}%*%?%[%]\\,]')
end

-- periods: calendar periods in a fixed UTC offset (shared block: the
-- master copy is lua/lib/periods.lua; scripts carry it verbatim between
-- "-- @lib periods" and "-- @end periods", and a unit test keeps them equal).
--
-- Integer Unix seconds in, period names out: hour:2026-03-17T12,
-- day:2026-03-17, week:2026-W12 (ISO-8601: Monday start, week 1 holds
-- January 4th), month:2026-03, total. Dates are H. Hinnant's
-- days_from_civil / civil_from_days, exact for every proleptic Gregorian day.
local civil_memo = {}
local function civil(days)
  local memo = civil_memo[days]
  if memo then return memo[1], memo[2], memo[3] end
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  civil_memo[days] = { y, m, d }
  return y, m, d
end

local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end

-- The period of kind ('hour', 'day', 'week', 'month', 'total') holding
-- second t, at UTC offset `offset` seconds: name, first second, end (the
-- first second of the next period; nil for total).
local function period(kind, t, offset)
  if kind == 'total' then return 'total', nil, nil end
  local lt = t + offset
  local days = math.floor(lt / 86400)
  local y, m, d = civil(days)
  if kind == 'hour' then
    local start = math.floor(lt / 3600) * 3600
    return string.format('hour:%04d-%02d-%02dT%02d', y, m, d, (start - days * 86400) / 3600),
      start - offset, start + 3600 - offset
  elseif kind == 'day' then
    return string.format('day:%04d-%02d-%02d', y, m, d), days * 86400 - offset, (days + 1) * 86400 - offset
  elseif kind == 'week' then
    local monday = days - (days + 3) % 7
    local iso_year = civil(monday + 3)
    local week = math.floor((monday + 3 - days_from_civil(iso_year, 1, 1)) / 7) + 1
    return string.format('week:%04d-W%02d', iso_year, week), monday * 86400 - offset, (monday + 7) * 86400 - offset
  elseif kind == 'month' then
    local first = days_from_civil(y, m, 1)
    local next_first = m == 12 and days_from_civil(y + 1, 1, 1) or days_from_civil(y, m + 1, 1)
    return string.format('month:%04d-%02d', y, m), first * 86400 - offset, next_first * 86400 - offset
  end
  return nil
end

-- A named period back to (kind, first second), or nil when the name is not
-- exactly one period's name (hour 24, 2027-02-29, 2026-W54, ... are refused).
local function parse_period(name, offset)
  if name == 'total' then return 'total', nil end
  local kind, rest = name:match('^(%a+):(.+)$')
  local y, m, d, h, w
  local lt
  if kind == 'hour' then
    y, m, d, h = rest:match('^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d)$')
    if y then lt = days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400 + tonumber(h) * 3600 end
  elseif kind == 'day' then
    y, m, d = rest:match('^(%d%d%d%d)%-(%d%d)%-(%d%d)$')
    if y then lt = days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400 end
  elseif kind == 'week' then
    y, w = rest:match('^(%d%d%d%d)%-W(%d%d)$')
    if y then
      local jan4 = days_from_civil(tonumber(y), 1, 4)
      lt = (jan4 - (jan4 + 3) % 7 + (tonumber(w) - 1) * 7) * 86400
    end
  elseif kind == 'month' then
    y, m = rest:match('^(%d%d%d%d)%-(%d%d)$')
    if y then lt = days_from_civil(tonumber(y), tonumber(m), 1) * 86400 end
  end
  if not lt or (m and (tonumber(m) < 1 or tonumber(m) > 12)) or (d and (tonumber(d) < 1 or tonumber(d) > 31)) then
    return nil
  end
  local t = lt - offset
  if period(kind, t, offset) ~= name then return nil end
  return kind, t
end

-- campaign: reading a campaign's and a board's settings (shared block:
-- the master copy is lua/lib/campaign.lua; needs rcall, fail and the names
-- and periods blocks above it).

local function check_name(s)
  if not name_ok(s) then
    fail('INVALID_NAME', '"' .. s:sub(1, 80) .. '" is not a board or option name (1..64 bytes, none of : { } * ? [ ] \\ , spaces or control characters)')
  end
end

-- The campaign's UTC offset; fails when the campaign does not exist.
local function campaign_offset(root)
  local offset = rcall('HGET', root, 'offset')
  if not offset and rcall('EXISTS', root) == 0 then fail('UNKNOWN_CAMPAIGN', root) end
  return tonumber(offset or 0)
end

-- "" for the server's clock, or explicit integer Unix seconds (test path).
local function clock(at)
  if at == nil or at == '' then return tonumber(rcall('TIME')[1]) end
  if not at:find('^%d+$') or #at > 12 then
    fail('INVALID_NUMBER', 'time must be "" or integer Unix seconds, got "' .. at:sub(1, 80) .. '"')
  end
  return tonumber(at)
end

-- A board's settings, or UNKNOWN_BOARD.
local function board_settings(ns, board)
  check_name(board)
  local s = rcall('HMGET', ns .. 'board:' .. board, 'periods', 'ties', 'decimals', 'carry',
    'keep_hour', 'keep_day', 'keep_week', 'keep_month')
  if not s[1] then fail('UNKNOWN_BOARD', ns .. 'board:' .. board) end
  local keeps, periods = {}, {}
  for p in s[1]:gmatch('[^,]+') do
    keeps[p] = true
    periods[#periods + 1] = p
  end
  local decimals, carry = tonumber(s[3] or 2), tonumber(s[4] or 0)
  if not decimals or not carry then fail('INVALID_CONFIG', ns .. 'board:' .. board .. ' is corrupt') end
  return {
    name = board, keeps = keeps, periods = periods, ties = s[2] or 'competition', decimals = decimals,
    carry_millionths = math.floor(carry * 1000000 + 0.5),
    keep = { hour = tonumber(s[5] or 0), day = tonumber(s[6] or 0), week = tonumber(s[7] or 0), month = tonumber(s[8] or 0) },
  }
end

-- Record the period boards a write touched in <ns>periods:B (members
-- "real:P" / "shown:P" -> expiry, 0: kept), so that removing an option can
-- find every board; a board seen for the first time gets its expiry (the
-- board and its "first" side key). `touched` is a list of
-- { member, expire_at or false }.
local function track_periods(ns, board, touched)
  local index = ns .. 'periods:' .. board
  local members = {}
  for i, t in ipairs(touched) do members[i] = t[1] end
  local known = rcall('ZMSCORE', index, unpack(members)) -- one call in the steady state
  for i, t in ipairs(touched) do
    if not known[i] then
      rcall('ZADD', index, t[2] or 0, t[1])
      if t[2] then
        rcall('EXPIREAT', ns .. 'b:' .. board .. ':' .. t[1], t[2])
        rcall('EXPIREAT', ns .. 'f:' .. board .. ':' .. t[1], t[2])
      end
    end
  end
end

-- The board key, its "first" side key and the period name for a period
-- selector: "hour", "day", "week", "month" (the one holding `now`), "total",
-- or a named period such as "day:2026-03-17". shift = -1 gives the period
-- before it. Refuses periods the board does not keep.
local function board_key(ns, b, kind, selector, now, offset, shift)
  if kind ~= 'real' and kind ~= 'shown' then
    fail('INVALID_PERIOD', 'board kind must be real or shown, got "' .. kind:sub(1, 40) .. '"')
  end
  local ptype, t = selector, now
  if selector:find(':') then
    ptype, t = parse_period(selector, offset)
    if not ptype then fail('INVALID_PERIOD', '"' .. selector:sub(1, 80) .. '" is not a period name') end
  end
  if not b.keeps[ptype] then
    fail('INVALID_PERIOD', 'board ' .. b.name .. ' keeps no ' .. ptype:sub(1, 40) .. ' boards')
  end
  local name, start = period(ptype, t, offset)
  if shift == -1 then
    if not start then return nil end
    name = period(ptype, start - 1, offset)
  end
  return ns .. 'b:' .. b.name .. ':' .. kind .. ':' .. name, ns .. 'f:' .. b.name .. ':' .. kind .. ':' .. name, name
end

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'campaign' then
    fail('USAGE', 'campaign_participants takes 1 key, the campaign root "<ns>campaign"')
  end
  if #ARGV < 1 or #ARGV > 101 then fail('USAGE', 'campaign_participants takes board, then 0..100 options') end
  local ns = root:sub(1, -9)
  campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  for i = 2, #ARGV do
    check_name(ARGV[i])
    if rcall('HEXISTS', ns .. 'weights:' .. b.name, ARGV[i]) == 0 then
      fail('UNKNOWN_OPTION', ns .. 'weights:' .. b.name .. ' has no option ' .. ARGV[i])
    end
  end
  -- validated: PFCOUNT may write (it caches the count inside the HLL)
  local reply = { rcall('PFCOUNT', ns .. 'hll') }
  for i = 2, #ARGV do
    reply[#reply + 1] = { ARGV[i], rcall('PFCOUNT', ns .. 'hll:' .. b.name .. ':' .. ARGV[i]) }
  end
  return reply
end

-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- (a Redis error, a Lua bug) is still answered as a stable code, never as a
-- raw Lua error.
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if not res:find('^REDVOTE_') then res = 'REDVOTE_INTERNAL ' .. res end
return redis.error_reply(res)
