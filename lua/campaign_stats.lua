#!lua flags=no-writes
-- GENERATED from lua/src/campaign/stats.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_stats: a board's vote statistics over a time range, one entry a
  bucket (hour or day, in the campaign's offset), empty buckets included
  (zeros): votes (pairs voted on the board), their weighted amount, those
  voided since, the campaign's participants of the bucket, and the votes
  by channel and by device (docs/statistics.md). Read-only (flagged
  no-writes: it runs on a replica); O(buckets x fields).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  granularity  <enum(hour|day)>  hour or day
    ARGV[3]  from  <integer 0..253402300799>  Unix seconds: the first bucket is
             the one holding it
    ARGV[4]  to  <integer 0..253402300799>  Unix seconds, after from
             (exclusive): the buckets that start before it; at most 336 hours
             (two weeks: about 3 ms) or 366 days a call

  Keys read: <ns>board:B, <ns>st:B:P (lib/stats), <ns>sn:P.

  Output: one entry a bucket, in time order: { P (hour:2026-03-17T12,
    day:2026-03-17), start (Unix seconds), votes, amount, voided,
    voided_amount, participants, { channel, votes, ... }, { device, votes,
    ... } }; a channel or device "*" counts those past the first 32 of the
    bucket; votes without a channel (device) are in neither list.

  Keys: <ns>board:B, <ns>st:B:P, <ns>sn:P

  Reply: list({bucket: string, start: integer, votes: integer, amount:
    integer, voided: integer, voided_amount: integer, participants: integer,
    channels: pairs(string, integer), devices: pairs(string, integer)})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
-- args: the checks every script makes of its KEYS and ARGV before anything
-- else, refused with REDVOTE_USAGE and a detail naming the operation. The
-- checks of single arguments are lib/integer_arg and lib/user.

-- The one key a script takes: KEYS[1] must end with `suffix` ('article:' for
-- the site root, 'campaign' for a campaign root); `role` describes it in the
-- refusal. Returns the key and the prefix before the suffix, from which the
-- script derives every other key (so they share the key's hash tag).
local function one_key(op, suffix, role)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-#suffix) ~= suffix then
    fail('USAGE', op .. ' takes 1 key, the ' .. role)
  end
  return key, key:sub(1, -#suffix - 1)
end

-- ARGV must hold lo..hi arguments; `usage` lists them ("user, article [, vote]").
local function argc(op, lo, hi, usage)
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
end
-- layout: the data-layout version a site or a campaign was written with
-- (docs/versions.md). A campaign keeps it in the field `layout` of its
-- settings hash <ns>campaign, a site in the field `layout` of
-- <prefix>redvote:config; no field is layout 1 (sites written by the seeds,
-- or by a redvote before new sites started at 2; campaigns configured by
-- redvote 0.5 or before).
--
-- These scripts (redvote 0.6) read and write the layouts first..last
-- below, and start a new site or campaign at the last. Site layout 2
-- keeps each group's ordered boards up to date (lib/site_boards): post.lua
-- records it with a site's first article (no id counter, no layout field),
-- upgrade.lua moves a site of layout 1 to it; a site with articles and no
-- field (the seeds' data) is layout 1, and so is a site whose field says 1
-- (asked for before its first post). Campaign layout 3 keeps the per-user
-- counters of fixed-window rate limits in bucketed hashes (lib/limits); a
-- campaign moves to it by campaign_upgrade. A layout outside
-- that range was written by a redvote they do not know: every script, read
-- or write, refuses it (REDVOTE_LAYOUT_VERSION, naming both) before any
-- write, instead of reading or corrupting what it does not understand.
-- (Plain numbers, not a table: a table would be built and collected by
-- every call of every script.)
local SITE_LAYOUT_FIRST, SITE_LAYOUT_LAST, CAMPAIGN_LAYOUT_FIRST, CAMPAIGN_LAYOUT_LAST = 1, 2, 1, 4
-- Campaign layout 4 is layout 3 in mode "buffered" (lib/fold): a redvote
-- that knows no buffer refuses it rather than write past one. Configure
-- moves a campaign between 3 and 4 with its mode; an immediate campaign
-- is at most at CAMPAIGN_LAYOUT_IMMEDIATE.
local CAMPAIGN_LAYOUT_IMMEDIATE, CAMPAIGN_LAYOUT_BUFFERED = 3, 4

-- The layout of the site or campaign (`what`) whose hash `key` holds
-- `stored` in its field `layout` (nil when absent): a number, checked.
local function check_layout(what, key, stored)
  if not stored then return 1 end
  local first, last = CAMPAIGN_LAYOUT_FIRST, CAMPAIGN_LAYOUT_LAST
  if what == 'site' then first, last = SITE_LAYOUT_FIRST, SITE_LAYOUT_LAST end
  local have = stored:match('^[1-9]%d?%d?$') and tonumber(stored)
  if not have then fail('INVALID_CONFIG', key .. ' layout must be a layout version (1..999)') end
  if have < first or have > last then
    fail('LAYOUT_VERSION', what .. ' data layout ' .. have .. ' is not one this redvote knows (' .. first
      .. '..' .. last .. '): it was written by ' .. (have > last and 'a newer' or 'an older')
      .. ' redvote; run that version, or upgrade the data (docs/versions.md)')
  end
  return have
end
-- counter_grace: campaign-window rate counters (<ns>rl:RULE:campaign)
-- expire this long after the campaign's end, not at it: a campaign
-- extended after it ended (configure moves `end` later) keeps "once per
-- campaign" for a week. Needs nothing, and defines no function: the vote
-- (lib/limit_spend) includes it without lib/campaign's helpers.
local COUNTER_GRACE = 604800
-- campaign: the one key every campaign script takes. Needs one_key
-- (lib/args). (COUNTER_GRACE, lib/counter_grace, comes with it.)

-- KEYS[1] must be the campaign root "<ns>campaign" (REDVOTE_USAGE naming
-- `op` otherwise) of a campaign whose data layout this script knows
-- (lib/layout). Returns it, <ns>, from which every other key derives, the
-- layout, and the values of the root's fields `...` (a caller's own
-- settings, read in the same HMGET: no second read of the hash).
local function campaign_key(op, ...)
  local root, ns = one_key(op, 'campaign', 'campaign root "<ns>campaign"')
  local c = rcall('HMGET', root, 'layout', ...)
  local layout = check_layout('campaign', root, c[1])
  table.remove(c, 1)
  return root, ns, layout, c
end
-- integer_arg: an integer argument in lo..hi, as decimal digits only (no
-- sign, no exponent, no leading zero when lo >= 1), returned as a number.
-- `what` replaces "an integer in lo..hi" in the refusal when given; `code`
-- replaces INVALID_NUMBER (a setting refuses with INVALID_CONFIG). The
-- detail names the argument and quotes the value, cut to 80 bytes.
local function integer_arg(s, name, lo, hi, what, code)
  local digits = lo >= 1 and '^[1-9]%d*$' or '^%d+$'
  if not s:find(digits) or #s > #string.format('%d', hi) or tonumber(s) < lo or tonumber(s) > hi then
    what = what or ('an integer in ' .. lo .. '..' .. hi)
    fail(code or 'INVALID_NUMBER', name .. ' must be ' .. what .. ', got "' .. s:sub(1, 80) .. '"')
  end
  return tonumber(s)
end
-- stored: the one parser of stored integer settings (a site's
-- redvote:config, campaign, board and weight hashes, and the numbers of the
-- stored `limits` JSON). Lua's
-- tonumber takes nan, inf, 1e400, 0x10 and ' 5'; a stored setting is
-- trusted only as written by campaign_configure. Needs fail (lib/prologue).
-- One function on purpose: every helper a script defines is a closure per
-- call, and the vote runs this on its hot path.

-- `v` (a string of decimal digits with an optional minus sign, or a JSON
-- number that is a whole number) as a number in lo..hi; otherwise refuses
-- with REDVOTE_INVALID_CONFIG naming the key and the field.
local function stored_int(v, lo, hi, key, field)
  local n
  if type(v) == 'string' then
    if #v <= 16 and v:find('^%-?%d+$') then n = tonumber(v) end
  elseif type(v) == 'number' and v == math.floor(v) then
    n = v
  end
  if not n or n < lo or n > hi then
    fail('INVALID_CONFIG', key .. ' ' .. field .. ' is corrupt: "' .. tostring(v):sub(1, 40) .. '"')
  end
  return n
end
-- unknown_campaign: the refusal of a campaign that does not exist. Needs
-- fail (lib/prologue).

-- Refuses a campaign whose root `root` does not exist
-- (REDVOTE_UNKNOWN_CAMPAIGN), naming it as the API does: by its name in
-- the default namespace "{c:NAME}:", else by the namespace it was given.
local function unknown_campaign(root)
  local name = root:match('^{c:(.*)}:campaign$')
  if name then fail('UNKNOWN_CAMPAIGN', 'campaign "' .. name .. '" is not configured') end
  fail('UNKNOWN_CAMPAIGN', 'the campaign of namespace "' .. root:sub(1, -9) .. '" is not configured')
end
-- offset: the campaign's UTC offset, read from its root hash. Needs rcall
-- and fail (lib/prologue), stored_int (lib/stored) and unknown_campaign
-- (lib/unknown_campaign).

-- The offset in seconds (whole minutes within 14 hours);
-- REDVOTE_UNKNOWN_CAMPAIGN when the campaign does not exist,
-- REDVOTE_INVALID_CONFIG when the stored offset is corrupt.
local function campaign_offset(root)
  local offset = rcall('HGET', root, 'offset')
  if not offset then
    if rcall('EXISTS', root) == 0 then unknown_campaign(root) end
    return 0
  end
  local n = stored_int(offset, -50400, 50400, root, 'offset')
  if n % 60 ~= 0 then fail('INVALID_CONFIG', root .. ' offset is corrupt: "' .. offset:sub(1, 40) .. '"') end
  return n
end
-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names): 1..64 bytes, and none of
-- : { } * ? [ ] \ , spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
-- (Most names are letters, digits, _ - and .: a one-class pattern accepts
-- them first, for a quarter of the cost of trying every forbidden byte.)
-- The common names, letters, digits, _ - and . only (a name that needs no
-- escaping in JSON either).
local PLAIN_NAME = '^[%w_%-%.]+$'
-- The longest name, in bytes.
local NAME_MAX = 64

local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= NAME_MAX
    and (s:find(PLAIN_NAME) ~= nil or not s:find('[%c%s:{}%*%?%[%]\\,]'))
end
-- name_arg: a board, option, channel or device name given as an argument.
-- Needs fail (lib/prologue) and name_ok (lib/names).

-- Refuses what name_ok does not accept, as REDVOTE_INVALID_NAME.
local function check_name(s)
  if not name_ok(s) then
    fail('INVALID_NAME', '"' .. s:sub(1, 80) .. '" is not a board or option name (1..64 bytes, none of colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters)')
  end
end
-- board: a board's settings, from <ns>board:B. Needs rcall, fail
-- (lib/prologue), check_name (lib/name_arg) and stored_int (lib/stored).

-- The tie rules whose side keys (lib/order) make ranks O(log N).
local ORDERED_RULES = { dense = true, first = true }

-- Bounded work (no call blocks Redis for more than 5 ms). A
-- writer that takes many pairs (campaign_import, a batch campaign_vote)
-- does at most CALL_WORK units of work a call, a unit being about one
-- command it sends: a pair costs 3 in an import (its option, its amount
-- before and after) and 8 in a vote (its weight, its participants, its
-- statistics), plus 4 a rate-limit rule in a vote; each board entry it
-- writes (one option on one period board) 2 (its read and its write) plus
-- its side keys' (lib/order): 4 a dense or first rule kept, 2 more for
-- first's sequence numbers. Fitted on 1M-option boards (docs/benchmark.md,
-- Bounded work): about 2.5 microseconds a unit (3 on a loaded machine), so
-- 600 units stay near 1.5-2 ms, with room under 5 ms for a call the
-- machine delays. One pair never exceeds it (at most 8 + 14 entries x 12
-- + 32 rules x 4 = 304).
local CALL_WORK = 600

-- The units of one entry written on a board with settings `b`.
local function entry_work(b)
  return 2 + 4 * #b.sides + (b.first and 2 or 0)
end

-- A stored tie rule of `key`, field `field` (nil: absent).
local function stored_ties(v, key, field)
  if v and v ~= 'competition' and v ~= 'name' and v ~= 'dense' and v ~= 'first' then
    fail('INVALID_CONFIG', key .. ' ' .. field .. ' is corrupt: "' .. v:sub(1, 40) .. '"')
  end
  return v
end

-- The settings of the board named `board`: REDVOTE_INVALID_NAME,
-- REDVOTE_UNKNOWN_BOARD, or REDVOTE_INVALID_CONFIG (naming the key and the
-- field) when one is not exactly what campaign_configure writes.
--
-- Tie rules. `ties` is the rule in effect, the one every read ranks by;
-- its side keys (lib/order) are complete whenever it is dense or first.
-- `pending` is a rule configured but not in effect yet (nil: none): its
-- side keys are being built by campaign_reindex.lua, whose last call makes
-- it the rule in effect. Writers keep the side keys of both (`sides`: the
-- rules among them that have side keys). Stored, in <ns>board:B: `ties`
-- (absent: competition; with a `ties_next`, the rule in effect, its side
-- keys complete), `ties_next` (the pending rule of a switch), `indexed`
-- ("1": no switch pending, the side keys of `ties` complete; "0" while one
-- is), `order_gen` (counts the pending rules; a reindex cursor carries it).
-- `remove_gen` counts the board's option removals.
-- A board whose stored `ties` is dense or first without `indexed` 1 and
-- without a `ties_next` (written by redvote 0.1, or switched by a
-- 0.2..0.5 configure and not reindexed since) ranks by competition until
-- reindexed: its stored rule is the pending one.
local function board_settings(ns, board)
  check_name(board)
  local key = ns .. 'board:' .. board
  local s = rcall('HMGET', key, 'periods', 'ties', 'decimals', 'carry',
    'keep_hour', 'keep_day', 'keep_week', 'keep_month', 'indexed', 'order_gen', 'ties_next', 'remove_gen')
  if not s[1] then fail('UNKNOWN_BOARD', 'board "' .. board .. '" is not configured') end
  local keeps, periods = {}, {}
  for p in s[1]:gmatch('[^,]+') do
    if keeps[p] or (p ~= 'hour' and p ~= 'day' and p ~= 'week' and p ~= 'month' and p ~= 'total') then break end
    keeps[p] = true
    periods[#periods + 1] = p
  end
  if #periods == 0 or table.concat(periods, ',') ~= s[1] then
    fail('INVALID_CONFIG', key .. ' periods is corrupt: "' .. s[1]:sub(1, 40) .. '"')
  end
  local ties = stored_ties(s[2], key, 'ties') or 'competition'
  local pending = stored_ties(s[11], key, 'ties_next')
  if s[9] and s[9] ~= '0' and s[9] ~= '1' then
    fail('INVALID_CONFIG', key .. ' indexed is corrupt: "' .. s[9]:sub(1, 40) .. '"')
  end
  local indexed = s[9] == '1'
  if ORDERED_RULES[ties] and not indexed and not pending then
    -- side keys not complete, no earlier rule known: competition until
    -- reindexed
    ties, pending = 'competition', ties
  end
  if pending == ties then fail('INVALID_CONFIG', key .. ' ties_next is corrupt: "' .. pending .. '" is the rule in effect') end
  local sides = {}
  if ORDERED_RULES[ties] then sides[#sides + 1] = ties end
  if pending and ORDERED_RULES[pending] then sides[#sides + 1] = pending end
  local carry = s[4] or '0'
  if #carry > 8 or not (carry == '0' or carry == '1' or carry:find('^0%.%d+$') or carry:find('^1%.0+$')) then
    fail('INVALID_CONFIG', key .. ' carry is corrupt: "' .. carry:sub(1, 40) .. '"')
  end
  return {
    name = board, keeps = keeps, periods = periods,
    ties = ties, pending = pending, sides = sides,
    -- the rule a writer gives "first" sequence numbers for (<ns>f:...)
    first = ties == 'first' or pending == 'first',
    -- the stored rule fields as they are (configure rewrites them)
    stored_ties = s[2], stored_next = s[11], indexed = indexed,
    order_gen = s[10] and stored_int(s[10], 0, 999999999999999, key, 'order_gen') or 0,
    -- counts the board's removals (campaign_configure): a vote records it,
    -- a void compares it (lib/void)
    remove_gen = s[12] and stored_int(s[12], 0, 999999999999999, key, 'remove_gen') or 0,
    decimals = s[3] and stored_int(s[3], 0, 6, key, 'decimals') or 2,
    carry_millionths = math.floor(tonumber(carry) * 1000000 + 0.5),
    keep = {
      hour = s[5] and stored_int(s[5], 0, 315360000, key, 'keep_hour') or 0,
      day = s[6] and stored_int(s[6], 0, 315360000, key, 'keep_day') or 0,
      week = s[7] and stored_int(s[7], 0, 315360000, key, 'keep_week') or 0,
      month = s[8] and stored_int(s[8], 0, 315360000, key, 'keep_month') or 0,
    },
  }
end

-- When a period board of `kind` whose period ends at `finish` expires (b:
-- board_settings): `finish` plus the board's retention for the kind; nil
-- when it is kept forever (total, or no retention).
local function expire_at(b, kind, finish)
  local keep = b.keep[kind] or 0
  return (finish and keep > 0) and (finish + keep) or nil
end
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
-- stats_buckets: the statistics buckets a vote counts in (lib/stats):
-- its hour and its day in the campaign's offset. Needs period
-- (lib/periods).

local STATS_KINDS = { 'hour', 'day' }

-- The hour and day buckets of a vote at `now`: { hour = { name, end },
-- day = { name, end } }, from `periods_at` when it holds them (the vote's
-- own cache of period names, lib/apply).
local function stats_buckets(now, offset, periods_at)
  local names = {}
  for _, kind in ipairs(STATS_KINDS) do
    local known = periods_at and periods_at[kind]
    if known then
      names[kind] = known -- { name, end, ... }
    else
      local name, _, finish = period(kind, now, offset)
      names[kind] = { name, finish }
    end
  end
  return names
end
-- stats: the statistics counters the vote writes in O(1) a pair, and
-- campaign_stats reads (docs/statistics.md). Per board B and per hour and
-- day bucket P (hour:2026-03-17T12, day:2026-03-17, in the campaign's
-- offset):
--   <ns>st:B:P   hash: votes (pairs voted on B), amount (their weights
--                summed), ch:C / dev:D (pairs by channel / device, the
--                first 32 distinct values a bucket; later ones count in
--                ch:* / dev:*, a field no name can take), nch / ndev (how
--                many ch: / dev: fields there are), voided / voided_amount
--                (pairs voided later, by campaign_void*, counted in the
--                bucket of the vote)
--   <ns>sp:P     HyperLogLog: the campaign's participants of the bucket
--   <ns>sn:P     string: its PFCOUNT, cached by the vote that changed it
--                (so that campaign_stats needs no PFCOUNT, a write for
--                Redis, and runs no-writes on a replica)
-- A board's buckets expire at their end plus the longest retention of the
-- board's hour/day/week/month boards (never, when one of them is kept
-- forever or the board keeps only its total); a campaign bucket at its end
-- plus the longest of its boards' (the root's stats_keep, written by
-- campaign_configure; -1: kept), as of its first vote.
-- Needs rcall, fail (lib/prologue), stored_int (lib/stored), period
-- (lib/periods).

-- Distinct channel (and device) fields a bucket keeps; later values count
-- in ch:* (dev:*).
local STATS_FIELDS = 32

-- The retention of board `b`'s statistics: seconds after a bucket's end;
-- false: kept (cached in b).
local function stats_keep(b)
  if b.stats_keep ~= nil then return b.stats_keep end
  local longest = false
  for _, kind in ipairs(b.periods) do
    if kind ~= 'total' then
      local k = b.keep[kind] or 0
      if k == 0 then longest = false; break end
      if not longest or k > longest then longest = k end
    end
  end
  b.stats_keep = longest
  return longest
end

-- A stored counter of a statistics hash (nil: 0).
local function stats_int(v, key, field)
  return v and stored_int(v, 0, 9007199254740991, key, field) or 0
end

-- A count as the text HSET stores (a Lua number would go as %.14g).
local function stats_text(n)
  return string.format('%.0f', n)
end

-- Add to `set` (HSET's field, value list) the new count of a channel (or
-- device) field `field` of bucket `key`, `votes` more: its own while it is
-- kept (`have`, its stored count) or while the bucket has fewer than
-- STATS_FIELDS of them (`n`, written to `nfield`), else the catch-all
-- field's (`other`, its count so far, which the caller writes). Returns n
-- and other as they are after it.
local function stats_count(set, key, votes, field, have, n, nfield, other)
  if have then
    set[#set + 1] = field; set[#set + 1] = stats_text(stats_int(have, key, field) + votes)
  elseif n < STATS_FIELDS then
    set[#set + 1] = field; set[#set + 1] = stats_text(votes)
    n = n + 1
    set[#set + 1] = nfield; set[#set + 1] = stats_text(n)
  else
    other = other + votes
  end
  return n, other
end

-- Before the first write: the statistics that `votes` (each { now,
-- channel, device, user (or users: a fold's like votes), pairs = { {
-- board, weight, count (like votes; nil: 1) }, ... }, periods_at })
-- add on `boards` (v: ns, offset, stats_keep, and `gone`, a server time
-- at or before which an expiring bucket is already gone: a fold's buckets
-- past their retention are not made again), every key read and checked (a
-- wrong type, a corrupt counter). The counts of many votes add up as if
-- they came one by one: a bucket's new channel (device) fields take their
-- places in the order the votes first name them. Returns the plan
-- stats_write takes, and the first vote's bucket names { hour = P, day = P }.
local function stats_plan(v, boards, votes)
  local ns = v.ns
  local plan = { buckets = {}, people = {} }
  local by_key, people_by = {}, {}
  local longest, forever = 0, false
  -- the campaign's retention (configure's stats_keep: -1 kept); a
  -- campaign not configured since it was introduced: the voted boards'
  local fixed = v.stats_keep
  local first
  for _, vote in ipairs(votes) do
    local names = stats_buckets(vote.now, v.offset, vote.periods_at)
    first = first or names
    vote.buckets = names
    local chf = vote.channel ~= '' and 'ch:' .. vote.channel or nil
    local devf = vote.device ~= '' and 'dev:' .. vote.device or nil
    for _, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      local keep = stats_keep(b)
      if keep then
        if keep > longest then longest = keep end
      else
        forever = true
      end
      for _, kind in ipairs(STATS_KINDS) do
        local name, finish = names[kind][1], names[kind][2]
        local expiry = keep and finish + keep or false
        if not (v.gone and expiry and expiry <= v.gone) then
          local key = ns .. 'st:' .. b.name .. ':' .. name
          local s = by_key[key]
          if not s then
            -- (new and set, below, made here: a field added later rehashes)
            s = { key = key, votes = 0, amount = 0, expiry = expiry, new = false, set = false, ch = {}, dev = {} }
            by_key[key] = s
            plan.buckets[#plan.buckets + 1] = s
          end
          local n = pair.count or 1
          s.votes = s.votes + n
          s.amount = s.amount + pair.weight * n
          if chf then
            if not s.ch[chf] then s.ch[chf] = 0; s.ch[#s.ch + 1] = chf end
            s.ch[chf] = s.ch[chf] + n
          end
          if devf then
            if not s.dev[devf] then s.dev[devf] = 0; s.dev[#s.dev + 1] = devf end
            s.dev[devf] = s.dev[devf] + n
          end
        end
      end
    end
  end
  for _, s in ipairs(plan.buckets) do
    -- every field the votes change is read (and checked) here, and
    -- written at once by one HSET of the new values (stats_write)
    local key = s.key
    local fields = { 'votes', 'amount', 'nch', 'ndev', 'ch:*', 'dev:*' }
    for _, f in ipairs(s.ch) do fields[#fields + 1] = f end
    for _, f in ipairs(s.dev) do fields[#fields + 1] = f end
    local h = rcall('HMGET', key, unpack(fields))
    s.new = not h[1]
    local set = { 'votes', stats_text(stats_int(h[1], key, 'votes') + s.votes),
      'amount', stats_text(stats_int(h[2], key, 'amount') + s.amount) }
    local at, other = 7, stats_int(h[5], key, 'ch:*')
    local n = stats_int(h[3], key, 'nch')
    for _, f in ipairs(s.ch) do
      n, other = stats_count(set, key, s.ch[f], f, h[at], n, 'nch', other)
      at = at + 1
    end
    if other > 0 and #s.ch > 0 then set[#set + 1] = 'ch:*'; set[#set + 1] = stats_text(other) end
    other, n = stats_int(h[6], key, 'dev:*'), stats_int(h[4], key, 'ndev')
    for _, f in ipairs(s.dev) do
      n, other = stats_count(set, key, s.dev[f], f, h[at], n, 'ndev', other)
      at = at + 1
    end
    if other > 0 and #s.dev > 0 then set[#set + 1] = 'dev:*'; set[#set + 1] = stats_text(other) end
    s.set = set
  end
  if fixed then
    forever, longest = fixed == -1, fixed
  end
  for _, vote in ipairs(votes) do
    for _, kind in ipairs(STATS_KINDS) do
      local name, finish = vote.buckets[kind][1], vote.buckets[kind][2]
      local p = people_by[name]
      if not p then
        local expiry = (not forever) and finish + longest or nil
        if v.gone and expiry and expiry <= v.gone then
          p = false
        else
          p = { hll = ns .. 'sp:' .. name, count = ns .. 'sn:' .. name, expiry = expiry, users = {}, seen = {} }
          local magic = rcall('GETRANGE', p.hll, '0', '3')
          if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', p.hll .. ' is not a HyperLogLog') end
          p.new = magic == '' -- (the count needs no check: SET replaces a key of any type)
          plan.people[#plan.people + 1] = p
        end
        people_by[name] = p
      end
      if p then
        for _, user in ipairs(vote.users or { vote.user }) do
          if not p.seen[user] then
            p.seen[user] = true
            p.users[#p.users + 1] = user
          end
        end
      end
    end
  end
  return plan, { hour = first.hour[1], day = first.day[1] }
end

-- The writes of a plan from stats_plan (validated: nothing here refuses).
local function stats_write(plan)
  for _, s in ipairs(plan.buckets) do
    rcall('HSET', s.key, unpack(s.set))
    if s.new and s.expiry then rcall('EXPIREAT', s.key, s.expiry) end
  end
  for _, p in ipairs(plan.people) do
    if rcall('PFADD', p.hll, unpack(p.users)) == 1 then
      -- the count is new with its HyperLogLog, and expires with it
      local n = rcall('PFCOUNT', p.hll)
      if not p.new then
        rcall('SET', p.count, n, 'KEEPTTL')
      elseif p.expiry then
        rcall('EXPIREAT', p.hll, p.expiry)
        rcall('SET', p.count, n, 'EXAT', p.expiry)
      else
        rcall('SET', p.count, n)
      end
    end
  end
end

-- The most buckets one call reads: two weeks of hours, a year of days,
-- which keeps a call within the 5 ms bound (a month of hours does not).
local STATS_SPAN = { hour = { 3600, 336 }, day = { 86400, 366 } }

local function main()
  local root, ns = campaign_key('campaign_stats')
  argc('campaign_stats', 4, 4, 'board, granularity (hour or day), from, to')
  check_name(ARGV[1])
  local kind = ARGV[2]
  local span = STATS_SPAN[kind]
  if not span then fail('INVALID_PERIOD', 'granularity must be hour or day, got "' .. kind:sub(1, 40) .. '"') end
  local from = integer_arg(ARGV[3], 'from', 0, 253402300799)
  local to = integer_arg(ARGV[4], 'to', 0, 253402300799)
  if to <= from then fail('INVALID_NUMBER', 'to must be after from') end
  local offset = campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  local _, first = period(kind, from, offset)
  local n = math.ceil((to - first) / span[1])
  if n > span[2] then
    fail('INVALID_NUMBER', 'at most ' .. span[2] .. ' ' .. kind .. ' buckets a call, the range holds ' .. n)
  end
  -- The buckets' names, then their participant counts in one MGET (a
  -- call each would cost more than the rest of a bucket), then each
  -- bucket's hash; a field's kind by its first bytes, without a
  -- substring made (up to 336 buckets a call).
  local names, counts = {}, {}
  for i = 1, n do
    local name = period(kind, first + (i - 1) * span[1], offset)
    names[i], counts[i] = name, ns .. 'sn:' .. name
  end
  local people = n > 0 and rcall('MGET', unpack(counts)) or {}
  local prefix = ns .. 'st:' .. b.name .. ':'
  local reply = {}
  for i = 1, n do
    local name = names[i]
    local key = prefix .. name
    local h = rcall('HGETALL', key)
    local votes, amount, voided, voided_amount = 0, 0, 0, 0
    local channels, devices = {}, {}
    for j = 1, #h, 2 do
      local field = h[j]
      local value = stats_int(h[j + 1], key, field)
      local c = field:byte(1)
      if c == 99 and field:find('ch:', 1, true) == 1 then -- "ch:"
        channels[#channels + 1] = field:sub(4); channels[#channels + 1] = value
      elseif c == 100 and field:find('dev:', 1, true) == 1 then -- "dev:"
        devices[#devices + 1] = field:sub(5); devices[#devices + 1] = value
      elseif field == 'votes' then
        votes = value
      elseif field == 'amount' then
        amount = value
      elseif field == 'voided' then
        voided = value
      elseif field == 'voided_amount' then
        voided_amount = value
      end
    end
    reply[i] = { name, first + (i - 1) * span[1], votes, amount, voided, voided_amount,
      stats_int(people[i], counts[i], 'value'), channels, devices }
  end
  return reply
end

-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- is still answered as a stable code, never as a raw Lua error: a key of the
-- wrong type (scripts read or first write every key they use before any
-- other write) as REDVOTE_INVALID_CONFIG, a Redis error or a Lua bug as
-- REDVOTE_INTERNAL.
-- Redis Cluster, a slot being resharded (MIGRATING on the source node,
-- IMPORTING on the target; Redis 7.0's key-by-key MIGRATE): a script's keys
-- may be split between the two nodes, and Redis checks each command inside
-- the script, so a call could fail after its first writes or create keys
-- the source still holds. When KEYS[1] has a hash tag, the script first
-- asks EXISTS of KEYS[1] and KEYS[1]..'#slot-probe', a key of the same slot
-- (and the same ACL key pattern) that is never written: on a node where the
-- slot is stable that is a plain count, and while the slot migrates Redis
-- refuses it (a missing key there is "not local"). The call then answers
-- TRYAGAIN before any read or write, and every client (redis-rs, redvote's
-- Retry) sends it again until the migration ends. An untagged KEYS[1] is
-- for a single Redis (the cluster rule).
do
  local key = KEYS[1] or ''
  local open = key:find('{', 1, true)
  local close = open and key:find('}', open + 1, true)
  if close and close > open + 1 then
    local probe = redis.pcall('EXISTS', key, key .. '#slot-probe')
    if type(probe) == 'table' and probe.err then
      local err = tostring(probe.err)
      if err:find('non local key', 1, true) or err:find('cluster is down', 1, true) then
        return redis.error_reply('TRYAGAIN redvote: the slot of ' .. key ..
          ' is being migrated (or the cluster is down); nothing was written, send the call again')
      end
      return redis.error_reply('REDVOTE_INTERNAL the slot probe (EXISTS) failed: ' .. err)
    end
  end
end
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if res:find('^WRONGTYPE') then
  res = 'REDVOTE_INVALID_CONFIG a key of the wrong type: ' .. res
elseif not res:find('^REDVOTE_') then
  res = 'REDVOTE_INTERNAL ' .. res
end
-- An error reply is a line that clients read as UTF-8 (redis-rs cannot read
-- one that is not, and loses the connection): a detail quoting an argument
-- (binary, or cut at 80 bytes inside a character) keeps its valid UTF-8
-- sequences, and every other byte becomes '?'.
if res:find('[\128-\255]') then
  local out, i, n = {}, 1, #res
  while i <= n do
    local j = res:find('[\128-\255]', i)
    if not j then out[#out + 1] = res:sub(i); break end
    out[#out + 1] = res:sub(i, j - 1)
    -- the sequence starting at j: its length and the range of its second byte
    local c, len, lo, hi = res:byte(j), 0, 0x80, 0xBF
    if c >= 0xC2 and c <= 0xDF then
      len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
    end
    local valid = len > 0 and j + len - 1 <= n
    for k = j + 1, valid and j + len - 1 or j do
      local b = res:byte(k)
      if b < (k == j + 1 and lo or 0x80) or b > (k == j + 1 and hi or 0xBF) then valid = false break end
    end
    if valid then
      out[#out + 1] = res:sub(j, j + len - 1)
      i = j + len
    else
      out[#out + 1] = '?'
      i = j + 1
    end
  end
  res = table.concat(out)
end
return redis.error_reply(res)
