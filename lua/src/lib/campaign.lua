--- @include "lib/prologue"
--- @include "lib/names"
--- @include "lib/periods"
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
