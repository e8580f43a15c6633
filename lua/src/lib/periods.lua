-- periods: calendar periods in a fixed UTC offset. Needs nothing, and
-- includes nothing: tests/periods.rs runs this file on its own against
-- chrono (keep period and parse_period as they are called there).
--
-- Integer Unix seconds in, period names out: hour:2026-03-17T12,
-- day:2026-03-17, week:2026-W12 (ISO-8601: Monday start, week 1 holds
-- January 4th), month:2026-03, total. Dates are H. Hinnant's
-- days_from_civil / civil_from_days, exact for every proleptic Gregorian day.
local floor, format = math.floor, string.format
local civil_memo = {}
local function civil(days)
  local memo = civil_memo[days]
  if memo then return memo[1], memo[2], memo[3] end
  local z = days + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local d = doy - floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  civil_memo[days] = { y, m, d }
  return y, m, d
end

local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = floor((153 * mp + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy - 719468
end

-- A day's date as text, YYYY-MM-DD, once a call a day (string.format
-- costs a vote about 1k an argument; hour, day and month names share it).
local date_memo = {}
local function date_text(days, y, m, d)
  local text = date_memo[days]
  if not text then
    text = format('%04d-%02d-%02d', y, m, d)
    date_memo[days] = text
  end
  return text
end

-- The hours' two digits, at 2h+1..2h+2.
local HOURS = '000102030405060708091011121314151617181920212223'

-- The period of kind ('hour', 'day', 'week', 'month', 'total') holding
-- second t, at UTC offset `offset` seconds: name, first second, end (the
-- first second of the next period; nil for total).
local function period(kind, t, offset)
  if kind == 'total' then return 'total', nil, nil end
  local lt = t + offset
  local days = floor(lt / 86400)
  local y, m, d = civil(days)
  if kind == 'hour' then
    local start = floor(lt / 3600) * 3600
    local h = (start - days * 86400) / 3600
    return 'hour:' .. date_text(days, y, m, d) .. 'T' .. HOURS:sub(2 * h + 1, 2 * h + 2),
      start - offset, start + 3600 - offset
  elseif kind == 'day' then
    return 'day:' .. date_text(days, y, m, d), days * 86400 - offset, (days + 1) * 86400 - offset
  elseif kind == 'week' then
    -- the ISO year is the year of the week's Thursday, 3 days at most from
    -- `days`: the same year but in the first or last 3 days of a year
    local monday = days - (days + 3) % 7
    local iso_year = y
    if (m == 1 and d <= 3) or (m == 12 and d >= 29) then iso_year = civil(monday + 3) end
    local week = floor((monday + 3 - days_from_civil(iso_year, 1, 1)) / 7) + 1
    return format('week:%04d-W%02d', iso_year, week), monday * 86400 - offset, (monday + 7) * 86400 - offset
  elseif kind == 'month' then
    -- the month's first day, and its length (February: the leap-year rule)
    local first = days - d + 1
    local length = 31 - (m - 1) % 7 % 2
    if m == 2 then length = ((y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0) and 29 or 28 end
    return 'month:' .. date_text(days, y, m, d):sub(1, 7), first * 86400 - offset, (first + length) * 86400 - offset
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
