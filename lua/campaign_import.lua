#!lua
-- GENERATED from lua/src/campaign/import.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_import: set the starting (imported) shown votes of options of one
  board. Idempotent: the imported amount of each option is remembered in
  <ns>initial:B, and a run adds only the difference to what was imported
  before, so running an import twice gives the same state.

  The difference goes to the board's shown "total" board (when kept) and to
  the shown board of every other period it keeps that holds `time` (the
  current ones): imported votes then rank from the start; real boards are
  never touched.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path, at most 9999-12-31T23:59:59 in the
             campaign's UTC offset
    ARGV[3..]  pairs  <name/decimal, repeat 1..500>  option, votes, option,
             votes, ...: 1..500 pairs; votes a non-negative decimal with at
             most the board's decimals

  Writes: ZADD on those shown boards (and their side keys: the "first"
    sequence, lib/order's dense and first order), HSET
    <ns>initial:B, <ns>periods:B entries (with the boards' expiry, as a vote).
    A board written that has a retention gets its expiry whenever it had
    none (one that had expired is made anew with it). An import into a
    period whose board is past its retention (its expiry, by the server's
    clock, has come) is refused (REDVOTE_INVALID_PERIOD): that board is
    gone, and writing it would make it anew.

  Reads, checked before the first write: <ns>initial:B's amounts (exact
    decimals as written, else REDVOTE_INVALID_CONFIG), the boards' scores,
    <ns>seq, <ns>periods:B.

  Bounded work: one call does at most 600 units of work (lib/board's
  CALL_WORK), a unit being about one command it sends: 3 a pair (its
  option, its amount before, its amount after) plus, for each shown board it
  writes, 2 (read and write) and the side keys' (lib/order: 4 a dense or
  first rule kept, 2 more for "first"'s sequence numbers). It takes the pairs in order while
  they fit (always the first one) and answers how many it left: send those
  last `rest` pairs again (the import is idempotent, so a call sent twice
  changes nothing more). Measured on 1M-option boards (docs/benchmark.md,
  Bounded work): about 2.5 microseconds a unit, so a call stays near 1.5-2
  ms whatever the board's periods and tie rule: 110-120 pairs a call on a
  board that keeps one period with competition ties, 50-54 with first
  ties, 12-13 on a first board keeping five periods (the options sent are checked
  in one read: a unit for ten of them). Every pair's option name, amount
  and option are checked in every call (INVALID_NAME, INVALID_NUMBER,
  USAGE for an option twice, UNKNOWN_OPTION), so an import sent whole is
  refused before its first call writes; the exact range (OUT_OF_RANGE)
  only for the pairs the call takes.

  Output: { options whose imported amount changed, options unchanged,
    pairs left for the next call (0: all done) }

  Keys: <ns>board:B, <ns>weights:B, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>initial:B, <ns>seq

  Reply: {changed: integer, unchanged: integer, rest: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION,
    REDVOTE_INVALID_PERIOD, REDVOTE_OUT_OF_RANGE, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
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
-- pair_args: the argument count of a script that takes a few fixed
-- arguments, then pairs (board, option / option, votes). Needs fail
-- (lib/prologue).

-- ARGV must hold `fixed` arguments, then lo..hi pairs (REDVOTE_USAGE:
-- "<op> takes <usage>"; beyond hi pairs `too_many` instead, when given).
local function pair_argc(op, fixed, lo, hi, usage, too_many)
  local n = #ARGV - fixed
  if n < 2 * lo or n % 2 ~= 0 or (n > 2 * hi and not too_many) then fail('USAGE', op .. ' takes ' .. usage) end
  if n > 2 * hi then fail('USAGE', too_many) end
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
-- last_second: the last moment a campaign write may take (a vote's or an
-- import's explicit time). Needs fail (lib/prologue).

-- The last second whose calendar names four-digit years (9999-12-31T23:59:59
-- UTC): the bound of every stored time (a campaign's start and end).
local LAST_SECOND = 253402300799

-- A moment a write may take (`now`, from `at`, in the campaign's UTC
-- `offset`): at most LAST_SECOND, in UTC and in the offset, since no
-- period name addresses a later one (REDVOTE_INVALID_NUMBER otherwise).
local function check_last_second(now, offset, at)
  if now > LAST_SECOND or now + offset > LAST_SECOND then
    fail('INVALID_NUMBER', 'time must be at most 9999-12-31T23:59:59 in the campaign\'s UTC offset, got "' .. tostring(at):sub(1, 40) .. '"')
  end
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
-- board_write: for writes to period boards (vote, import): the index of
-- the boards written (their expiry: lib/board's expire_at). Needs rcall
-- (lib/prologue); `b` is what board_settings (lib/board) returns.

-- Which of the period boards a write touches are new to <ns>periods:B
-- (the index of the boards written, members "real:P" / "shown:P" ->
-- expiry, 0: kept): a read, done before the first write (an index of the
-- wrong type is refused here; campaign_vote asks only about the boards it
-- did not see to exist). `touched` is a list of { member, expire_at or
-- false }; returns the list of the new ones, then that of the listed ones.
local function new_periods(ns, board, touched)
  local members = {}
  for i, t in ipairs(touched) do members[i] = t[1] end
  local known = rcall('ZMSCORE', ns .. 'periods:' .. board, unpack(members))
  local fresh, listed = {}, {}
  for i, t in ipairs(touched) do
    if known[i] then listed[#listed + 1] = t else fresh[#fresh + 1] = t end
  end
  return fresh, listed
end

-- After the write: record the new period boards (from new_periods) in
-- <ns>periods:B, so that removing an option can find every board, and give
-- each its expiry; and give a listed board written its expiry if it has
-- none (EXPIREAT NX: a board the index knew but that was gone, expired,
-- evicted or deleted, is made anew by the write; one that exists keeps its
-- own). Side keys get theirs when order_write creates them (lib/order).
local function track_periods(ns, board, fresh, listed)
  for _, t in ipairs(fresh) do
    rcall('ZADD', ns .. 'periods:' .. board, t[2] or 0, t[1])
    if t[2] then rcall('EXPIREAT', ns .. 'b:' .. board .. ':' .. t[1], t[2]) end
  end
  for _, t in ipairs(listed) do
    if t[2] then rcall('EXPIREAT', ns .. 'b:' .. board .. ':' .. t[1], t[2], 'NX') end
  end
end
-- exact: shown scores kept as exact decimals, in integer units of
-- 10^-decimals. Needs nothing.

-- The exact range of such a score: a double holds every integer below
-- 2^53, but a decimal fraction stays exact (its nearest double rounds back
-- to it with a step below one unit) only below 2^51 units.
local function exact_limit(decimals)
  return decimals == 0 and 9007199254740992 or 2251799813685248
end

-- A stored decimal (a score, an imported amount; nil: 0) in units.
local function units_of(text, decimals)
  return math.floor(tonumber(text or '0') * 10 ^ decimals + 0.5)
end

-- The format of each `decimals` (0..6): no number to text on the vote's path.
local DECIMAL_FORMATS = { [0] = '%.0f', '%.1f', '%.2f', '%.3f', '%.4f', '%.5f', '%.6f' }

-- Units back to the decimal that is stored and shown.
local function decimal_text(units, decimals)
  return string.format(DECIMAL_FORMATS[decimals] or ('%.' .. decimals .. 'f'), units / 10 ^ decimals)
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
-- retention: writes at an explicit time (campaign_vote's and
-- campaign_import's `time`) into a period whose boards are past their
-- retention. Needs fail (lib/prologue).

-- Refuses (REDVOTE_INVALID_PERIOD) a write into the period board `what`
-- ("shown:P", or the period P for both kinds) of board b whose expiry
-- (lib/board's expire_at; nil: kept) has come by the server's clock
-- `server_now`: that board is gone, and writing it would make it anew,
-- either expiring at once or, once its period is listed in <ns>periods:B,
-- with no expiry at all.
local function refuse_expired(b, what, expiry, server_now)
  if expiry and expiry <= server_now then
    fail('INVALID_PERIOD', what .. ' of board "' .. b.name .. '" is past its retention (it expired at ' .. expiry .. ')')
  end
end

-- An amount stored in <ns>initial:B (nil: none, 0) in units of the board's
-- `decimals`: only a decimal as decimal_text writes it (digits, optionally
-- a point and digits, at most 16 digits in all) is one; anything else
-- (nan, inf, 1e5, -3) is refused as corrupt, as stored_int refuses it.
local function stored_units(v, decimals, key, field)
  if not v then return 0 end
  local int, frac = v:match('^(%d+)%.?(%d*)$')
  if not int or #int + #frac > 16 or (#frac == 0 and v:find('%.')) then stored_int(v, 0, 0, key, field) end
  return units_of(v, decimals)
end

local function main()
  local root, ns = campaign_key('campaign_import')
  pair_argc('campaign_import', 2, 1, 500, 'board, time, then 1..500 option, votes pairs')
  local offset = campaign_offset(root)
  local now = clock(ARGV[2])
  check_last_second(now, offset, ARGV[2])
  local b = board_settings(ns, ARGV[1])
  local decimals = b.decimals
  local limit = exact_limit(decimals)
  -- keys[j] and touched[j] = { its index member, its expiry or false }
  local keys, touched = {}, {}
  local server_now
  for _, p in ipairs(b.periods) do
    local key, name = board_key(ns, b, 'shown', p, now, offset)
    local _, _, finish = period(p, now, offset)
    local expiry = expire_at(b, p, finish)
    if expiry then
      server_now = server_now or tonumber(rcall('TIME')[1])
      refuse_expired(b, 'shown:' .. name, expiry, server_now)
    end
    keys[#keys + 1] = key
    touched[#touched + 1] = { 'shown:' .. name, expiry or false }
  end
  local initial = ns .. 'initial:' .. b.name
  -- The work a pair costs (see Bounded work), and how many pairs fit.
  local per_pair = 3 + #keys * entry_work(b)
  local changes, unchanged, seen, units_of_pair = {}, 0, {}, {}
  for i = 3, #ARGV, 2 do
    local option, votes = ARGV[i], ARGV[i + 1]
    check_name(option)
    if seen[option] then fail('USAGE', 'option "' .. option .. '" is imported twice in one call') end
    seen[option] = true
    local int, frac = votes:match('^(%d+)%.?(%d*)$')
    if not int or #votes > 20 or #frac > decimals or (votes:find('%.') and #frac == 0) then
      fail('INVALID_NUMBER', 'option "' .. option .. '": votes must be a non-negative decimal with at most ' .. decimals .. ' decimals, got "' .. votes:sub(1, 80) .. '"')
    end
    units_of_pair[option] = tonumber(int .. frac .. string.rep('0', decimals - #frac))
  end
  local pairs_given = (#ARGV - 2) / 2
  -- Every option sent is one of the board's, in one read (a unit of work
  -- for ten options): an unknown one refuses the call, so an import sent
  -- whole (the CLI's batches, the service, the packages) is refused before
  -- its first call writes.
  local weights, sent = ns .. 'weights:' .. b.name, {}
  for i = 3, #ARGV, 2 do sent[#sent + 1] = ARGV[i] end
  local known = rcall('HMGET', weights, unpack(sent))
  for i = 1, #sent do
    if not known[i] then fail('UNKNOWN_OPTION', 'board "' .. b.name .. '" has no option "' .. sent[i] .. '"') end
  end
  local take = math.max(1, math.min(math.floor((CALL_WORK - math.ceil(pairs_given / 10)) / per_pair), pairs_given))
  for i = 3, 2 * take + 1, 2 do
    local option = ARGV[i]
    local units = units_of_pair[option]
    local delta = units - stored_units(rcall('HGET', initial, option), decimals, initial, option)
    if delta == 0 then
      unchanged = unchanged + 1
    else
      local old = {}
      for j, k in ipairs(keys) do
        old[j] = rcall('ZSCORE', k, option)
        if math.abs(units_of(old[j], decimals) + delta) >= limit or units >= limit then
          fail('OUT_OF_RANGE', 'option "' .. option .. '" of board "' .. b.name .. '" would leave the exact range ('
            .. touched[j][1] .. ')')
        end
      end
      changes[#changes + 1] = { option, units, delta, old }
    end
  end

  -- Every key written is read first: one of the wrong type, or a sequence
  -- counter that is not one, is refused before the first write.
  stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value')
  local fresh, listed
  if #changes > 0 then fresh, listed = new_periods(ns, b.name, touched) end
  for _, c in ipairs(changes) do
    c[5] = {}
    for j, k in ipairs(keys) do c[5][j] = order_read(ns, b, k, c[1]) end
  end

  -- validated: the writes start here
  local seq = rcall('INCRBY', ns .. 'seq', #changes) - #changes
  for n, c in ipairs(changes) do
    local option, units, delta, old, st = c[1], c[2], c[3], c[4], c[5]
    rcall('HSET', initial, option, decimal_text(units, decimals))
    for j, k in ipairs(keys) do
      local new = decimal_text(units_of(old[j], decimals) + delta, decimals)
      rcall('ZADD', k, new, option)
      -- (a side key new for the first change is not for the next ones)
      order_write(ns, b, k, option, old[j], new, st[j], seq + n, touched[j][2], n == 1)
    end
  end
  -- (a board the index knew but that had expired is made anew by ZADD:
  -- it gets its expiry too, one that has it keeps it)
  if #changes > 0 then track_periods(ns, b.name, fresh, listed) end
  return { #changes, unchanged, pairs_given - take }
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
