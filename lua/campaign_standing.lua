#!lua flags=no-writes
-- GENERATED from lua/src/campaign/standing.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_standing: for several members of one board, in one call: rank
  (1-based, by the board's tie rule), score, the member just ahead in the
  board's order and the gap to it, and the same member's rank and score in
  the previous period. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  kind  <enum(real|shown)>  "real" | "shown"
    ARGV[3]  period  <period>  "hour" | "day" | "week" | "month" (the current
             one), "total", or a name such as day:2026-03-17
    ARGV[4]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[5..]  members  <name, repeat 1..100>  1..100

  Output: per member: { member, rank, score, ahead, gap, previous rank,
    previous score [, folded] }; scores and gaps are strings with the
    board's decimals; nil where there is none (not on the board, the leader
    has no one ahead, "total" has no previous period). On a buffered
    campaign (docs/hot-campaigns.md) `folded` is the Unix ms (string) before
    which every accepted vote is on the board (lib/folded); votes accepted
    since may still wait in its buffer. An option pending removal
    (campaign_configure's `remove`, cleaned by campaign_remove.lua) is not
    on the board, nor counted in anyone's rank: lib/ranks, O(R) more
    a period board read for R of them on it, at most 1000.

  Keys: <ns>campaign, <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>removing:B

  Reply: list({member: string, rank: integer|nil, score: string|nil, ahead:
    string|nil, gap: string|nil, previous_rank: integer|nil, previous_score:
    string|nil, folded: string|nil})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG (a corrupt stored setting), REDVOTE_LAYOUT_VERSION.
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
-- clock: the `time` argument of campaign scripts. Needs rcall (lib/prologue)
-- and integer_arg (lib/args).

-- "" (or nil) for the server's clock, or explicit integer Unix seconds
-- (test path; REDVOTE_INVALID_NUMBER otherwise). Returns the second, then
-- the microsecond within it (the server's; 0 on the explicit clock), for
-- rolling rate limits.
local function clock(at)
  if at == nil or at == '' then
    local t = rcall('TIME')
    return tonumber(t[1]), tonumber(t[2])
  end
  local now = integer_arg(at, 'time', 0, 999999999999, '"" or integer Unix seconds')
  return now, 0
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
-- board_key: the keys of one period board of a board, from a period
-- selector. Needs fail (lib/prologue) and period, parse_period
-- (lib/periods); `b` is what board_settings (lib/board) returns.

-- The board key <ns>b:B:KIND:P (its side keys: lib/order) and the period
-- name P for kind "real" or "shown" and a period selector: "hour",
-- "day", "week", "month" (the one holding `now`), "total", or a named
-- period such as "day:2026-03-17". shift = -1 gives the period before it
-- (nil for total). Refuses, as REDVOTE_INVALID_PERIOD, another kind, a
-- malformed name and periods the board does not keep.
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
    fail('INVALID_PERIOD', 'board "' .. b.name .. '" keeps no ' .. ptype:sub(1, 40) .. ' boards')
  end
  local name, start = period(ptype, t, offset)
  if shift == -1 then
    if not start then return nil end
    name = period(ptype, start - 1, offset)
  end
  return ns .. 'b:' .. b.name .. ':' .. kind .. ':' .. name, name
end
-- order: the side zsets that make the "dense" and "first" tie rules cost
-- what "competition" costs (a rank O(log N), a page O(log N + page)). For a
-- period board <ns>b:B:KIND:P:
--   <ns>d:B:KIND:P  ties "dense": one member per distinct score of the
--                   board, the score as %.17g (score = that score); a
--                   dense rank is 1 + ZCOUNT of the scores above
--   <ns>o:B:KIND:P  ties "first": one member per member M of the board,
--                   score = M's board score, member = 15 digits of
--                   (10^15 - 1 - seq) .. M, where seq is M's entry in the
--                   "first" side key <ns>f:B:KIND:P (the vote that brought M
--                   to its score; none: 10^15 - 1). Redis orders equal
--                   scores by member, descending: here, by seq ascending,
--                   then M descending, the display order of "first"; a
--                   position is a ZREVRANK, a page a ZREVRANGE
-- Every writer keeps them for the rules of the board's `sides` (lib/board:
-- the rule in effect and a pending one), in the same call as the board's
-- own write: order_read before its first write, order_write /
-- order_remove after it. The reads use those of the rule in effect, which
-- are complete; campaign_reindex.lua builds those of a pending rule. Needs
-- rcall (lib/prologue).

local ORDER_SEQ_NONE = 999999999999999

-- The side key <ns>X:B:KIND:P of board key <ns>b:B:KIND:P.
local function side_key(ns, letter, key)
  return ns .. letter .. key:sub(#ns + 2)
end

-- The o:... member of `member` whose "first" sequence number is `seq`.
-- (%d: sequence numbers are whole, below 10^15; 2.5x as fast as %.0f, and
-- a vote writes two of these a board)
local function order_member(seq, member)
  return string.format('%015d%s', ORDER_SEQ_NONE - (seq or ORDER_SEQ_NONE), member)
end

-- The d:... member of a score (any text of it).
local function dense_member(score)
  return string.format('%.17g', tonumber(score))
end

-- Before the first write to `key` for `member` (board settings `b`): read
-- (and so type-check) the side keys the write will touch, for every rule
-- of b.sides. Returns the state order_write takes, one array: [1] the d:
-- key (dense; false: not kept), [2] whether it is new (order_write then
-- gives it the board's expiry), [3] the o: key (first; false: not kept),
-- [4] whether it is new, [5] for a first board (b.first) its "first" side
-- key f: (false: none), [6] the member's current sequence number there
-- (false: none). Each side key is named once, the board key's tail cut
-- once for all of them, the state made by one constructor (an array of
-- slots made at once: named fields added one by one rehash the table as
-- it grows) and the sequence sent as text: a first-ties vote reads and
-- writes these for every board entry.
local function order_read(ns, b, key, member)
  local tail, d, o, f = key:sub(#ns + 2), false, false, false
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then d = ns .. 'd' .. tail else o = ns .. 'o' .. tail end
  end
  if b.first then f = ns .. 'f' .. tail end
  return { d, d and rcall('ZCARD', d) == 0, o, o and rcall('ZCARD', o) == 0, f,
    f and tonumber(rcall('ZSCORE', f, member)) or false }
end

-- After `member` of `key` moved from score `old` (nil: absent) to `new`
-- (text): record, for every rule of b.sides, the new score (dense) or
-- position (first: its new sequence number `seq` in the "first" side key,
-- and its position with it, replacing the one order_read read, st.seq).
-- An order key order_read found new expires at `expiry` (nil: kept), as
-- its board, and so does the "first" side key (new too, or written
-- without an expiry since the board switched to first). `fresh` false:
-- the caller already wrote this member's keys in this call (import), so
-- no key is new. (`seq` goes to ZADD as text: Redis 7.0 formats a number
-- argument with %.17g.)
local function order_write(ns, b, key, member, old, new, st, seq, expiry, fresh)
  local expire = expiry and fresh ~= false
  local d, o, f = st[1], st[3], st[5]
  if d then
    rcall('ZADD', d, new, dense_member(new))
    if old and tonumber(old) ~= tonumber(new) and rcall('ZCOUNT', key, old, old) == 0 then
      rcall('ZREMRANGEBYSCORE', d, old, old)
    end
    if expire and st[2] then rcall('EXPIREAT', d, expiry) end
  end
  if o then
    -- add first: a key emptied by the ZREM would be deleted, its expiry
    -- with it (seq always changes, so the two entries differ)
    rcall('ZADD', o, new, order_member(seq, member))
    rcall('ZREM', o, order_member(st[6], member))
    if expire and st[4] then rcall('EXPIREAT', o, expiry) end
  end
  if f then
    rcall('ZADD', f, string.format('%d', seq), member)
    if expire and st[4] then rcall('EXPIREAT', f, expiry) end
  end
end

-- Remove `member` from `key` and the side keys of the rules of b.sides
-- (and its "first" sequence number). Reads first what it needs: call it
-- only once every check has passed.
local function order_remove(ns, b, key, member)
  local old = rcall('ZSCORE', key, member)
  if not old then return end
  rcall('ZREM', key, member)
  local f = side_key(ns, 'f', key)
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then
      if rcall('ZCOUNT', key, old, old) == 0 then rcall('ZREMRANGEBYSCORE', side_key(ns, 'd', key), old, old) end
    else
      rcall('ZREM', side_key(ns, 'o', key), order_member(tonumber(rcall('ZSCORE', f, member)), member))
    end
  end
  rcall('ZREM', f, member)
end

-- The side keys of `rule` (dense: d:, first: o: and the "first" sequence
-- numbers f:, which only a first board keeps up to date; none for the
-- others) of every period board listed in <ns>periods:B, unlinked: a rule
-- no longer kept (a switch made, or a pending one replaced) leaves nothing
-- behind to go stale. O(period boards of the board), not O(members):
-- UNLINK frees large keys off the main thread.
local function order_drop(ns, board, rule)
  local letters = (rule == 'dense' and { 'd:' }) or (rule == 'first' and { 'o:', 'f:' })
  if not letters then return end
  local index = rcall('ZRANGE', ns .. 'periods:' .. board, 0, -1)
  for i = 1, #index, 250 do
    local keys = {}
    for j = i, math.min(i + 249, #index) do
      for _, letter in ipairs(letters) do keys[#keys + 1] = ns .. letter .. board .. ':' .. index[j] end
    end
    rcall('UNLINK', unpack(keys))
  end
end
-- ranks: a window of a board in display order under its tie rule, and the
-- score format of replies. Needs rcall (lib/prologue) and the side keys of
-- lib/order. Tie rules:
--   name         Redis' order: equal scores by member, descending; rank = position
--   competition  equal scores share the rank, the next one skips (1, 2, 2, 4)
--   dense        equal scores share the rank, no gap (1, 2, 2, 3)
--   first        equal scores ordered by who reached the score first: the
--                side zset f:... holds, per member, the sequence number of
--                the vote that brought it to its current score
-- A read ranks by the rule in effect (lib/board: a switched rule takes
-- effect only once campaign_reindex.lua has built its side keys), whose
-- side keys are complete: dense and first cost O(log N) a rank and
-- O(log N + page) a window, as competition does. There is no slower path.

-- A score as replies show it: a string with `decimals` decimals.
local function fmt(score, decimals)
  return string.format('%.' .. decimals .. 'f', tonumber(score))
end

-- Options whose removal is pending (campaign_configure's `remove` lists
-- them in <ns>removing:B; campaign_remove.lua takes them off the period
-- boards in bounded steps) are "ghosts": still on a board not yet
-- cleaned, never shown. A read skips them and ranks the others as if they
-- were gone: ranked() finds those on the board read (one SMEMBERS, one
-- ZMSCORE, and under "first" one ZMSCORE of their sequence numbers), and
-- every count below subtracts them, deciding in Lua which ghosts come
-- before a member in the board's order (score, then the tie-break Redis
-- orders by): O(R) for R pending, at most 1000 a board, with no call a
-- ghost (a window reads R entries more; a dense rank one ZCOUNT a
-- distinct ghost score above). No removal pending: one SMEMBERS of an
-- absent key, nothing else.

-- The view of board key `key` (of board settings `b`) the reads take:
-- the ghosts on it ({ m, raw score, score, seq (first) }) and `gone`, the
-- set of their names.
local function ranked(ns, b, key)
  local r = { ns = ns, key = key, ties = b.ties, ghosts = {}, gone = {} }
  local removing = rcall('SMEMBERS', ns .. 'removing:' .. b.name)
  if #removing == 0 then return r end
  local scores = rcall('ZMSCORE', key, unpack(removing))
  local seqs = r.ties == 'first' and rcall('ZMSCORE', side_key(ns, 'f', key), unpack(removing)) or {}
  for i, m in ipairs(removing) do
    if scores[i] then
      r.ghosts[#r.ghosts + 1] = { m = m, raw = scores[i], score = tonumber(scores[i]), seq = tonumber(seqs[i]) }
      r.gone[m] = true
    end
  end
  return r
end

-- Whether byte string a sorts after b (memcmp, then length: Redis' order
-- of equal scores, never the locale's).
local function bytes_after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

-- How many ghosts of `r` come before the member m of score s (a number)
-- and "first" sequence number seq (nil: none) in the board's display
-- order: a higher score; an equal one with, under first, a lower sequence
-- number (none: after every one); then, as Redis orders equal scores, a
-- name after m's.
local function ghosts_ahead(r, s, m, seq)
  local n, first = 0, r.ties == 'first'
  seq = seq or ORDER_SEQ_NONE
  for _, g in ipairs(r.ghosts) do
    local ahead
    if g.score ~= s then
      ahead = g.score > s
    elseif first and (g.seq or ORDER_SEQ_NONE) ~= seq then
      ahead = (g.seq or ORDER_SEQ_NONE) < seq
    else
      ahead = bytes_after(g.m, m)
    end
    if ahead then n = n + 1 end
  end
  return n
end

-- The members of ranked board `r` a read shows (ghosts left out).
local function live_size(r)
  return rcall('ZCARD', r.key) - #r.ghosts
end

-- How many ghosts of `r` score strictly above (`dir` 1) or below (-1) s.
local function ghosts_beyond(r, s, dir)
  local n, v = 0, tonumber(s) * dir
  for _, g in ipairs(r.ghosts) do
    if g.score * dir > v then n = n + 1 end
  end
  return n
end

-- How many distinct scores are strictly above s on a dense board (a score
-- only ghosts hold does not count).
local function dense_above(r, s)
  local n = rcall('ZCOUNT', side_key(r.ns, 'd', r.key), '(' .. s, '+inf')
  if #r.ghosts == 0 then return n end
  local at, v = {}, tonumber(s)
  for _, g in ipairs(r.ghosts) do
    if g.score > v then at[g.raw] = (at[g.raw] or 0) + 1 end
  end
  for raw, c in pairs(at) do
    if rcall('ZCOUNT', r.key, raw, raw) == c then n = n - 1 end
  end
  return n
end

-- Positions start..stop (0-based, as the read shows them: ghosts left
-- out) of ranked board `r` in display order:
-- { { member, score, rank }, ... }.
local function ordered_window(r, start, stop)
  local key, ties = r.key, r.ties
  local first = ties == 'first'
  -- with ghosts: raw positions start..stop + R hold the window (at most R
  -- ghosts come before it or inside it)
  local raw = rcall('ZREVRANGE', first and side_key(r.ns, 'o', key) or key, start, stop + #r.ghosts, 'WITHSCORES')
  local out, want = {}, stop - start + 1
  local rank, live
  for i = 1, #raw, 2 do
    local m, s = raw[i], raw[i + 1]
    if first then m = m:sub(16) end
    if not r.gone[m] then
      if not live then
        -- the first live member fetched: its position among the live
        -- ones (the fetched entries before it are ghosts)
        live = start + (i - 1) / 2
        if #r.ghosts > 0 then
          local seq = first and ORDER_SEQ_NONE - tonumber(raw[i]:sub(1, 15)) or nil
          live = live - ghosts_ahead(r, tonumber(s), m, seq)
        end
      else
        live = live + 1
      end
      if live >= start then
        if ties == 'name' or first then
          rank = live + 1
        elseif #out == 0 then
          rank = ties == 'competition' and rcall('ZCOUNT', key, '(' .. s, '+inf') - ghosts_beyond(r, s, 1) + 1
            or dense_above(r, s) + 1
        elseif s ~= out[#out][2] then
          rank = ties == 'competition' and live + 1 or rank + 1
        end
        out[#out + 1] = { m, s, rank }
        if #out == want then break end
      end
    end
  end
  return out
end
-- board_view: the period boards a read (top, standing, around) looks at.
-- Needs clock (lib/clock), campaign_offset (lib/offset), board_settings
-- (lib/board) and board_key (lib/board_key).

-- The moment a read looks at: its `time` argument (checked first), then
-- the campaign's UTC offset (REDVOTE_UNKNOWN_CAMPAIGN). Returns both.
local function read_time(root, at)
  local now = clock(at)
  return now, campaign_offset(root)
end

-- Board `board`, kind "real" | "shown", period `selector` at `now` in the
-- campaign's UTC `offset`, checked in that order (see board_settings and
-- board_key): { b = settings, r (the board as lib/ranks reads it), name
-- (period name), decimals (scores are shown with; 0 on real boards) }.
local function board_view(ns, board, kind, selector, now, offset)
  local b = board_settings(ns, board)
  local key, name = board_key(ns, b, kind, selector, now, offset)
  return { b = b, r = ranked(ns, b, key), name = name, decimals = kind == 'real' and 0 or b.decimals }
end
-- position: where one member stands on a board under its tie rule. Needs
-- rcall (lib/prologue), side_key, order_member (lib/order) and
-- dense_above, ghosts_ahead, ghosts_beyond (lib/ranks).

-- A member's 0-based display position, rank and score on ranked board `r`
-- (lib/ranks); nil when absent or pending removal (a ghost). O(log N)
-- under every rule, plus O(R) Lua for R ghosts on the board.
local function position(r, member)
  local key, ties = r.key, r.ties
  if r.gone[member] then return nil end
  local s = rcall('ZSCORE', key, member)
  if not s then return nil end
  if ties == 'first' then
    local seq = tonumber(rcall('ZSCORE', side_key(r.ns, 'f', key), member))
    local pos = rcall('ZREVRANK', side_key(r.ns, 'o', key), order_member(seq, member))
    -- (the side key lacks it: a corrupt data set, which campaign check
    -- reports; answer its place among equal scores by name, never a scan)
    pos = (pos or rcall('ZREVRANK', key, member)) - ghosts_ahead(r, tonumber(s), member, seq)
    return pos, pos + 1, s
  end
  local pos = rcall('ZREVRANK', key, member) - ghosts_ahead(r, tonumber(s), member)
  if ties == 'name' then return pos, pos + 1, s end
  if ties == 'competition' then return pos, rcall('ZCOUNT', key, '(' .. s, '+inf') - ghosts_beyond(r, s, 1) + 1, s end
  return pos, dense_above(r, s) + 1, s
end
-- folded: how far a buffered campaign's boards are folded (lib/fold), as
-- the reads answer it. Needs rcall (lib/prologue), stored_int (lib/stored).

-- nil on an immediate campaign; else the Unix ms (text) before which every
-- vote the campaign `root` accepted is on its boards: the server's time
-- when nothing is buffered, else the stored `folded` of the last fold.
local function folded_until(root)
  local c = rcall('HMGET', root, 'mode', 'fold_due', 'folded')
  if c[1] ~= 'buffered' then return nil end
  if not c[2] then
    local t = rcall('TIME')
    return string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  end
  return string.format('%.0f', c[3] and stored_int(c[3], 0, 999999999999999, root, 'folded') or 0)
end

local function main()
  local root, ns = campaign_key('campaign_standing')
  argc('campaign_standing', 5, 104, 'board, kind, period, time, then 1..100 members')
  local now, offset = read_time(root, ARGV[4])
  local v = board_view(ns, ARGV[1], ARGV[2], ARGV[3], now, offset)
  local decimals = v.decimals
  local prev_key = board_key(ns, v.b, ARGV[2], ARGV[3], now, offset, -1)
  local prev = prev_key and ranked(ns, v.b, prev_key)
  local folded = folded_until(root)
  local reply = {}
  for i = 5, #ARGV do
    local member = ARGV[i]
    check_name(member)
    local entry = { member, false, false, false, false, false, false, folded }
    local pos, rank, score = position(v.r, member)
    if pos then
      entry[2], entry[3] = rank, fmt(score, decimals)
      if pos > 0 then
        local ahead = ordered_window(v.r, pos - 1, pos - 1)[1]
        entry[4], entry[5] = ahead[1], fmt(tonumber(ahead[2]) - tonumber(score), decimals)
      end
    end
    if prev then
      local _, prev_rank, prev_score = position(prev, member)
      if prev_rank then entry[6], entry[7] = prev_rank, fmt(prev_score, decimals) end
    end
    reply[#reply + 1] = entry
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
