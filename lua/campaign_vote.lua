#!lua
--[[
  campaign_vote: user U votes for option O on board B, and in the same call
  for any number of further (board, option) pairs of the campaign (the
  seed's batch vote). All or nothing: one bad pair refuses the whole call.

  For each pair and each period the board keeps (from the server's clock in
  the campaign's UTC offset): +1 on the REAL board, +weight on the SHOWN
  board, +weight x carry on the NEXT period's shown board; then PFADD U to
  the option's and the campaign's participant HyperLogLogs (counters only:
  their replies are never used as a duplicate check).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  user   1..256 bytes, no control characters
    ARGV[2]  time   "" for the server's TIME; integer Unix seconds only on the
                    test/import path (the driver's vote_at)
    ARGV[3..] board, option, board, option, ...: 1..50 pairs

  Keys written (P = a period name such as day:2026-03-17, or total):
    <ns>b:B:real:P, <ns>b:B:shown:P   zsets, member O (EXPIREAT end of P +
                                      the board's retention for P, if any)
    <ns>f:B:real:P, <ns>f:B:shown:P   zsets, boards with ties "first" only:
                                      O -> the sequence number of the vote that
                                      brought O to its current score (same TTL)
    <ns>periods:B                     zset: every P the board has written ->
                                      its expiry time (0: kept forever)
    <ns>seq                           the vote sequence counter ("first" ties)
    <ns>hll:B:O, <ns>hll              participant HyperLogLogs

  Precision: shown scores are kept as exact decimals with the board's
  `decimals` (a carried share is rounded half up to them), so 0.1 + 0.2 is
  stored as 0.3; a write that would take a score beyond 2^53 units is refused.

  Output: one entry per pair, in order: { board, option, { P, shown score
    (string, fixed decimals), ... } } for every period the board keeps.

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_UNKNOWN_OPTION, REDVOTE_CAMPAIGN_CLOSED, REDVOTE_OUT_OF_RANGE,
    REDVOTE_INVALID_CONFIG.
]]
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

-- @lib periods: calendar periods in a fixed UTC offset (shared block: the
-- master copy is lua/lib/periods.lua; scripts carry it verbatim between
-- "-- @lib periods" and "-- @end periods", and a unit test keeps them equal).
--
-- Integer Unix seconds in, period names out: hour:2026-03-17T12,
-- day:2026-03-17, week:2026-W12 (ISO-8601: Monday start, week 1 holds
-- January 4th), month:2026-03, total. Dates are H. Hinnant's
-- days_from_civil / civil_from_days, exact for every proleptic Gregorian day.
local function civil(days)
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
-- @end periods

local EXACT = 9007199254740992 -- 2^53

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'campaign' then
    fail('USAGE', 'campaign_vote takes 1 key, the campaign root "<ns>campaign"')
  end
  if #ARGV < 4 or #ARGV % 2 ~= 0 then fail('USAGE', 'campaign_vote takes user, time, then board, option pairs') end
  if #ARGV > 102 then fail('USAGE', 'at most 50 (board, option) pairs a call') end
  local ns = root:sub(1, -9)
  local user, at = ARGV[1], ARGV[2]
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
  local now
  if at == '' then
    now = tonumber(rcall('TIME')[1])
  elseif at:find('^%d+$') and #at <= 12 then
    now = tonumber(at)
  else
    fail('INVALID_NUMBER', 'time must be "" or integer Unix seconds, got "' .. at:sub(1, 80) .. '"')
  end

  local c = rcall('HMGET', root, 'offset', 'start', 'end')
  if rcall('EXISTS', root) == 0 then fail('UNKNOWN_CAMPAIGN', root) end
  local offset = tonumber(c[1] or 0)
  if c[2] and now < tonumber(c[2]) then fail('CAMPAIGN_CLOSED', 'the campaign starts at ' .. c[2]) end
  if c[3] and now >= tonumber(c[3]) then fail('CAMPAIGN_CLOSED', 'the campaign ended at ' .. c[3]) end

  -- Every board's settings once, every option's weight.
  local boards, pairs_ = {}, {}
  for i = 3, #ARGV, 2 do
    local board, option = ARGV[i], ARGV[i + 1]
    for _, name in ipairs({ board, option }) do
      if #name == 0 or #name > 64 or name:find('[%c%s:{}%*%?%[%]\\,]') then
        fail('INVALID_NAME', '"' .. name:sub(1, 80) .. '" is not a board or option name')
      end
    end
    if not boards[board] then
      local s = rcall('HMGET', ns .. 'board:' .. board, 'periods', 'ties', 'carry', 'decimals',
        'keep_hour', 'keep_day', 'keep_week', 'keep_month')
      if not s[1] then fail('UNKNOWN_BOARD', ns .. 'board:' .. board) end
      local carry = tonumber(s[3] or '0')
      local decimals = tonumber(s[4] or '2')
      if not carry or not decimals then fail('INVALID_CONFIG', ns .. 'board:' .. board .. ' is corrupt') end
      local periods = {}
      for p in s[1]:gmatch('[^,]+') do periods[#periods + 1] = p end
      boards[board] = {
        periods = periods, first = s[2] == 'first', decimals = decimals,
        carry_millionths = math.floor(carry * 1000000 + 0.5),
        keep = { hour = tonumber(s[5] or 0), day = tonumber(s[6] or 0), week = tonumber(s[7] or 0), month = tonumber(s[8] or 0) },
      }
    end
    local weight = tonumber(rcall('HGET', ns .. 'weights:' .. board, option))
    if not weight then fail('UNKNOWN_OPTION', ns .. 'weights:' .. board .. ' has no option ' .. option) end
    pairs_[#pairs_ + 1] = { board = board, option = option, weight = weight }
  end

  -- Rate limits (next issue) are checked here: before the first write, so a
  -- refused vote changes nothing.

  -- Plan every write as exact integer units (10^-decimals) and check the range.
  local plan, order = {}, {}
  local touched, touched_order = {}, {}
  local function add(board, pname, key, first_key, member, units, scale, expire_at)
    local id = key .. '\0' .. member
    local entry = plan[id]
    if not touched[board .. ':' .. pname] then
      touched[board .. ':' .. pname] = true
      touched_order[#touched_order + 1] = { board, pname, expire_at or 0 }
    end
    if not entry then
      local current = tonumber(rcall('ZSCORE', key, member) or '0')
      entry = { key = key, first_key = first_key, member = member, scale = scale, expire_at = expire_at,
        units = math.floor(current * 10 ^ scale + 0.5) }
      plan[id] = entry
      order[#order + 1] = entry
    end
    entry.units = entry.units + units
    if entry.units >= EXACT or entry.units <= -EXACT then
      fail('OUT_OF_RANGE', key .. ' ' .. member .. ' would leave the exact range (2^53 units of 10^-' .. scale .. ')')
    end
  end
  local shown_at = {}
  for n, pair in ipairs(pairs_) do
    local b = boards[pair.board]
    local base = ns .. 'b:' .. pair.board .. ':'
    local side = ns .. 'f:' .. pair.board .. ':'
    shown_at[n] = {}
    for _, kind in ipairs(b.periods) do
      local name, _, finish = period(kind, now, offset)
      local keep = b.keep[kind] or 0
      local expire_at = (finish and keep > 0) and (finish + keep) or nil
      local first = b.first
      add(pair.board, name, base .. 'real:' .. name, first and side .. 'real:' .. name, pair.option, 1, 0, expire_at)
      add(pair.board, name, base .. 'shown:' .. name, first and side .. 'shown:' .. name, pair.option,
        pair.weight * 10 ^ b.decimals, b.decimals, expire_at)
      shown_at[n][#shown_at[n] + 1] = { name, base .. 'shown:' .. name }
      if finish and b.carry_millionths > 0 then
        local next_name, _, next_finish = period(kind, finish, offset)
        local carried = math.floor(pair.weight * b.carry_millionths * 10 ^ b.decimals / 1000000 + 0.5)
        if carried > 0 then
          add(pair.board, next_name, base .. 'shown:' .. next_name, first and side .. 'shown:' .. next_name, pair.option, carried,
            b.decimals, keep > 0 and (next_finish + keep) or nil)
        end
      end
    end
  end

  -- validated: the writes start here
  local seq = rcall('INCRBY', ns .. 'seq', #order) - #order
  for i, e in ipairs(order) do
    e.text = string.format('%.' .. e.scale .. 'f', e.units / 10 ^ e.scale)
    rcall('ZADD', e.key, e.text, e.member)
    if e.first_key then rcall('ZADD', e.first_key, seq + i, e.member) end
    if e.expire_at then
      rcall('EXPIREAT', e.key, e.expire_at)
      if e.first_key then rcall('EXPIREAT', e.first_key, e.expire_at) end
    end
  end
  for _, t in ipairs(touched_order) do
    rcall('ZADD', ns .. 'periods:' .. t[1], t[3], t[2])
  end
  for _, pair in ipairs(pairs_) do
    rcall('PFADD', ns .. 'hll:' .. pair.board .. ':' .. pair.option, user)
  end
  rcall('PFADD', ns .. 'hll', user)

  local reply = {}
  for n, pair in ipairs(pairs_) do
    local shown = {}
    for _, s in ipairs(shown_at[n]) do
      shown[#shown + 1] = s[1]
      shown[#shown + 1] = plan[s[2] .. '\0' .. pair.option].text
    end
    reply[n] = { pair.board, pair.option, shown }
  end
  return reply
end

-- Every refusal leaves through fail() before the first write; anything else
-- (a Redis error, a Lua bug) is still answered as a stable code, never as a
-- raw Lua error.
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if not res:find('^REDVOTE_') then res = 'REDVOTE_INTERNAL ' .. res end
return redis.error_reply(res)
