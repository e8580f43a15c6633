#!lua flags=no-writes
-- GENERATED from lua/src/campaign/limits.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_limits: look at one voter's rate-limit counters, spending
  nothing: how many votes each rule leaves the voter now and when its
  window resets. Read-only (flagged no-writes: it runs on a replica, and a
  client that WAITs for replicas after writes does not wait for it). The
  admin reset of the same counters is campaign_limits_reset.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  user  <user>
    ARGV[2]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[3]  channel  <name, "" = none>  "" none
    ARGV[4]  device  <name, "" = none>  "" none
    ARGV[5..]  pairs  <name/name, repeat 0..50>  board, option pairs (at most
             50): the options to look at for rules that count per option
             (without pairs those rules are left out)

  Output: { { rule, remaining, reset_in (seconds, -1: never) }, ... },
          one entry per counter, in rule order

  Cost: O(rules x pairs) counters, read in one MGET, one HMGET and one
    HGET per campaign-window or bucketed counter (at most 32 rules, 50
    pairs).

  Keys: <ns>rlu:USER, <ns>rlb:RULE:WINDOW:N, <ns>rl:RULE:WINDOW:SUBJECT,
    <ns>rl:RULE:rolling:SUBJECT, <ns>rl:RULE:campaign

  Reply: list({rule: string, remaining: integer, reset_in: integer})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG,
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
-- limits: rate limits, checked inside the vote before its first write
-- (campaign_vote) or looked at without spending (campaign_limits): the
-- voter's arguments, the rules, and what a call would spend of each
-- counter (lib/limit_spend spends it). Needs rcall, fail (lib/prologue),
-- name_ok (lib/names), stored_int (lib/stored) and period (lib/periods).
--
-- A rule (stored as JSON in the campaign hash, field `limits`, validated by
-- campaign_configure) counts votes per combination of dimensions `by`
-- (user, option, channel, device) over one window:
--   fixed windows  second, minute, hour, day, week, month: calendar-aligned
--                  in the campaign's UTC offset; a counter per window that
--                  expires when the window ends (a burst at a window edge can
--                  reach twice the limit over a short span);
--   campaign       one counter for the whole campaign (expires at its end);
--                  a refusal by it, or by a window that ends after the
--                  campaign does, has retry_after -1 (not within the campaign);
--   rolling        GCRA (as redis-cell and go-redis/redis_rate): `limit`
--                  votes per `per` seconds spaced evenly, `burst` at once;
--                  no edge bursts; one key per subject holding the
--                  theoretical arrival time (TAT), exactly: the emission
--                  interval per * 10^6 / limit microseconds is kept as the
--                  rational iq + ir / limit (integer microseconds and a
--                  remainder), so burst and remaining are exact for every
--                  limit and per (7 per 60 s: 8571428 + 4/7 us). Stored as
--                  "SECONDS.MICROSECONDS", followed by "+R/L" when the TAT
--                  lies R/L of a microsecond later (L: the rule's limit),
--                  e.g. "2215484417.142857+1/7"; the key expires one second
--                  after the TAT has passed.
-- Where the counters live (docs/rate-limits.md#counters; one key with an
-- expiry costs ~120-150 B in Redis 7, so no key per user can get under
-- the 100 B a rate-limited user docs/benchmark.md measures):
--   buckets        campaign layout 3, a fixed-window rule that counts by
--                  user: <ns>rlb:RULE:WINDOW:N (limit_plan),
--                  N the user's bucket, field the subject (the user's
--                  included), value the count; the bucket EXPIREATs its
--                  window's end, so every window keeps its own counts until
--                  it ends (a vote dated in an earlier window counts there).
--                  One HGET a counter, one HINCRBY (and an EXPIREAT for a
--                  new field) to spend. A campaign upgraded from layout 2
--                  (root field rlu_until) also counts the voter's former
--                  field of the same window in <ns>rlu:USER (a check's legacy, limit_plan).
--   per voter      a rule that counts by user (layouts 1 and 2: fixed or
--                  rolling; layout 3: rolling only), not the campaign
--                  window: one hash per user and campaign,
--                  <ns>rlu:USER, field RULE (RULE|REST when the rule counts
--                  by more than the user: REST is the subject of its other
--                  dimensions), value "END:COUNT:WINDOW" (END: the first
--                  second after the counter's window, WINDOW its kind:
--                  a value of another kind, after the rule changed under
--                  its name, counts as 0) or a rolling rule's TAT; the
--                  field "@" holds the hash's expiry, the latest END (or
--                  TAT expiry) written, raised only. A field of an earlier
--                  window counts as 0 and is overwritten; one vote reads
--                  every field in one HMGET and writes them in one HSET.
--                  A vote dated in a window before the one a field holds
--                  (explicit clock, or a server clock that went back) is
--                  refused with retry_after -1: that count is gone, and
--                  the limit fails closed.
--   campaign       one hash per rule, <ns>rl:RULE:campaign, field SUBJECT;
--                  it expires with the campaign (configure moves it).
--   other          (option, channel, device rules) a string key per rule,
--                  window and subject, <ns>rl:RULE:WINDOW:SUBJECT (rolling:
--                  <ns>rl:RULE:rolling:SUBJECT), expiring with the window.
-- `extra` maps a channel to extra allowance (a partner channel: +5).
-- A vote passes only if every rule passes; nothing is spent unless all do.

-- The rules, as limit_rules_checked returns them. Rules stamped by
-- campaign_configure are decoded and trusted as they are: `checked`, the
-- root's `limits_checked`, is the copy configure wrote of the rules it
-- validated, and comparing it costs nothing (Lua strings are interned:
-- two equal texts are one object), where validating the rules, or a
-- SHA1 of them, would cost every vote. Rules without
-- the stamp, or that differ from it (changed by hand, or configured by an
-- earlier redvote), go through limit_rules_checked, which fails with the
-- error text (lib/limit_rules_check, included here: each function is a
-- closure made on every call, and a vote with rules stamped needs none).
-- The tables are cjson's as they are: where a rule counts (limit_plan) is
-- not written into them, since a field added to a decoded table rehashes it
-- (about 2k a rule).
local function limit_rules(root, json, checked)
  local ok, rules
  if json == checked then ok, rules = pcall(cjson.decode, json) end
  if not (ok and type(rules) == 'table') then
-- limit_rules_check: the checks of stored rate-limit rules that limit_rules
-- (lib/limits) runs only when the rules are not stamped by
-- campaign_configure (`limits_checked`), included inside it so that a vote
-- whose rules are stamped does not make its closure. Needs fail (lib/prologue),
-- name_ok (lib/names) and stored_int (lib/stored).

-- The rules, from the campaign's `limits` field (JSON), checked to be
-- exactly what campaign_configure writes: a list of at most 32 rules, each
-- { name, by (1..4 distinct dimensions), extra (channel -> 0..10^9)? } and
-- either { window, limit 1..10^9 } or { rolling = true, limit 1..10^6,
-- per 1..315360000, burst 1..10^6 }; REDVOTE_INVALID_CONFIG naming the key
-- and field otherwise.
local function limit_rules_checked(root, json)
  local ok, rules = pcall(cjson.decode, json)
  local bad = not ok or type(rules) ~= 'table' or not json:find('^%s*%[') or #rules > 32
  local n = 0
  for _ in pairs(bad and {} or rules) do n = n + 1 end
  bad = bad or n ~= #rules
  for i = 1, bad and 0 or #rules do
    local r = rules[i]
    local what = 'limits rule ' .. i
    -- "@" is the voter hash's expiry field: no rule has that name
    bad = type(r) ~= 'table' or not name_ok(r.name) or r.name == '@' or type(r.by) ~= 'table' or #r.by == 0 or #r.by > 4
      or (r.extra ~= nil and (type(r.extra) ~= 'table' or (#r.extra > 0)))
    if not bad then
      local seen = {}
      for j, d in pairs(r.by) do
        if type(j) ~= 'number' or seen[d] or (d ~= 'user' and d ~= 'option' and d ~= 'channel' and d ~= 'device') then bad = true end
        seen[d] = true
      end
      for channel, x in pairs(r.extra or {}) do
        if not name_ok(channel) then bad = true else stored_int(x, 0, 1000000000, root, what .. ' extra') end
      end
      if r.rolling == true then
        stored_int(r.limit, 1, 1000000, root, what .. ' limit')
        stored_int(r.per, 1, 315360000, root, what .. ' per')
        stored_int(r.burst, 1, 1000000, root, what .. ' burst')
      elseif r.rolling ~= nil or (r.window ~= 'second' and r.window ~= 'minute' and r.window ~= 'hour' and r.window ~= 'day'
          and r.window ~= 'week' and r.window ~= 'month' and r.window ~= 'campaign') then
        bad = true
      else
        stored_int(r.limit, 1, 1000000000, root, what .. ' limit')
      end
    end
    if bad then fail('INVALID_CONFIG', root .. ' limits is corrupt: ' .. what .. ' is malformed') end
  end
  if bad then fail('INVALID_CONFIG', root .. ' limits is corrupt: not a list of rules') end
  return rules
end
    return limit_rules_checked(root, json)
  end
  return rules
end

-- Buckets a fixed-window rule that counts by user spreads its voters over
-- on campaign layout 3 (<ns>rlb:RULE:WINDOW:N, N in 0..LIMIT_BUCKETS-1): a
-- bucket stays a listpack (Redis' default hash-max-listpack-entries, 512)
-- while a window sees at most 512 x 256 = 131,072 voters of a rule; beyond
-- that the buckets turn into hash tables (more memory a voter, counts still
-- exact). Fewer buckets cost less for a small campaign (each bucket key is
-- ~130 B), more keep a large window compact: docs/rate-limits.md#counters.
-- crates/redvote-check knows this number (LIMIT_BUCKETS there).
local LIMIT_BUCKETS = 256

-- The bucket of a user (limit_plan, written out there: one closure less a
-- call): the first 32 bits of the SHA1 of its id, modulo LIMIT_BUCKETS
-- (stable across versions and cheaper than a hash loop in Lua for ids
-- longer than a few bytes), as the decimal text keys name it. 256 divides
-- 2^32: the bucket is the 4th byte, hex digits 7 and 8.

-- Whether a rule counts by dimension `dim`.
local function counts_by(rule, dim)
  local by = rule.by
  for j = 1, #by do
    if by[j] == dim then return true end
  end
  return false
end

-- Every counter this call touches, with what it would spend: a list of
-- checks (rolling rules: the key holds the theoretical arrival time). A
-- check is an array, not a table of named fields (made at once, where
-- named fields added one by one rehash the table as it grows),
--   [1] rule   [2] key   [3] field (false: a string counter)
--   [4] need (what the call spends)   [5] allowance (the rule's limit, or
--       burst, and the channel's extra)   [6] finish (the first second
--       after the window; false: none)   [7] never (the window outlives
--       the campaign: no reset within it)   [8] voter   [9] bucket (where
--       it counts, below)   [10] legacy (the field in the voter's hash
--       before layout 3, or false)
--   and what limit_evaluate finds (made here, so that no slot is added):
--   [11] existed   [12] used   [13] left   [14] reset_in   [15] behind
--   [16] new TAT and [17] its expiry (rolling rules).
-- Where a rule counts (see above) follows from the rule and the campaign's
-- data layout `ctx.layout` (lib/layout): in the voter's hash (voter) a rule
-- that counts by user, not over the campaign window, but for a fixed-window
-- one on layout 3, which counts in the buckets (bucket). Whom a rule counts a vote
-- for one option against (its subject): the values of its dimensions `by`,
-- each prefixed by its length, joined by "|" (the user left out of a rule
-- counted in the voter's hash); each value's part is formatted once a
-- call, a rule's window and key (but for a string counter's) once a rule.
local function limit_plan(ns, rules, ctx, pairs, cost, now, usec, offset, campaign_end)
  local format = string.format
  -- the time every rule is evaluated at (limit_evaluate), one for the plan
  -- and the evaluation: the vote and the peek agree to the microsecond
  local checks, n = { now = now, usec = usec }, 0
  local user, channel, device, legacy, bucketed = ctx.user, ctx.channel, ctx.device, ctx.legacy, ctx.layout >= 3
  local npairs = #pairs
  -- a batch meets a counter again for another pair: checks joined by key
  -- and field (one pair: a scan, see below)
  local by_key = npairs > 1 and {} or nil
  local user_part, channel_part, device_part, option_part, option_parts
  local voter_key, bucket, last_window, last_id, last_finish
  for ri = 1, #rules do
    local rule = rules[ri]
    local rolling, name, by, window = rule.rolling, rule.name, rule.by, rule.window
    local voter, bucket_rule = window ~= 'campaign' and counts_by(rule, 'user'), false
    if voter and bucketed and not rolling then voter, bucket_rule = false, true end
    local extra = rule.extra
    local allowance = (rolling and rule.burst or rule.limit) + (extra and extra[channel] or 0)
    local id, finish = 'rolling', nil
    if not rolling then
      if window ~= last_window then
        -- The window holding `now`: id and end (first second after; nil:
        -- none). Numbers are written with %d (what tostring writes for
        -- these integers, for less). A calendar window's name and end come
        -- from, or go to, `periods_at` (the vote's memo of its periods, at
        -- the same `now` and offset: { name, end } by kind; nil: none).
        -- (Written out here, not a function: one closure less a call.)
        last_window = window
        if window == 'second' then
          last_id, last_finish = format('%d', now), now + 1
        elseif window == 'minute' then
          local m = (now - now % 60) / 60
          last_id, last_finish = format('m%d', m), (m + 1) * 60
        elseif window == 'campaign' then
          last_id, last_finish = 'campaign', campaign_end
        else
          local periods_at = ctx.periods_at
          local p = periods_at and periods_at[window]
          if p then
            last_id, last_finish = p[1], p[2]
          else
            local _
            last_id, _, last_finish = period(window, now, offset)
            if periods_at then periods_at[window] = { last_id, last_finish } end
          end
        end
      end
      id, finish = last_id, last_finish
    end
    -- A window that outlives the campaign never resets within it.
    local never = window == 'campaign' or (campaign_end ~= nil and finish ~= nil and finish >= campaign_end)
    local key -- the rule's key (a string counter's depends on the subject)
    if voter then
      voter_key = voter_key or (ns .. 'rlu:' .. user)
      key = voter_key
    elseif bucket_rule then
      -- the user's bucket (above)
      bucket = bucket or format('%d', tonumber(redis.sha1hex(user):sub(7, 8), 16) % LIMIT_BUCKETS)
      key = ns .. 'rlb:' .. name .. ':' .. id .. ':' .. bucket
    elseif window == 'campaign' then
      key = ns .. 'rl:' .. name .. ':campaign'
    end
    local nby = #by
    for k = 1, npairs do
      local subject, rest -- rest: without the user's part (legacy, below)
      for j = 1, nby do
        local dim, part = by[j], nil
        if dim == 'user' then
          if not voter then
            user_part = user_part or format('%d:%s', #user, user)
            part = user_part
          end
        elseif dim == 'option' then
          if npairs == 1 then
            if not option_part then
              local board, option = pairs[1].board, pairs[1].option
              option_part = format('%d:%s%d:%s', #board, board, #option, option)
            end
            part = option_part
          else
            option_parts = option_parts or {}
            part = option_parts[k]
            if not part then
              local board, option = pairs[k].board, pairs[k].option
              part = format('%d:%s%d:%s', #board, board, #option, option)
              option_parts[k] = part
            end
          end
        elseif dim == 'channel' then
          channel_part = channel_part or format('%d:%s', #channel, channel)
          part = channel_part
        else
          device_part = device_part or format('%d:%s', #device, device)
          part = device_part
        end
        if part then
          subject = subject and (subject .. '|' .. part) or part
          if legacy and dim ~= 'user' then rest = rest and (rest .. '|' .. part) or part end
        end
      end
      subject = subject or ''
      local counter, field, was = key, false, false
      if voter then
        field = subject == '' and name or (name .. '|' .. subject)
      elseif bucket_rule then
        field = subject
        if legacy then
          -- the field this counter had in the voter's hash before the
          -- upgrade to layout 3: the user's own subject left out
          was = rest and (name .. '|' .. rest) or name
        end
      elseif window == 'campaign' then
        field = subject
      else
        counter = ns .. 'rl:' .. name .. ':' .. id .. ':' .. subject
      end
      local check, id_of
      if by_key then
        id_of = field and (counter .. '\0' .. field) or counter
        check = by_key[id_of]
      else
        -- one pair: two rules meet on a counter only by their names (one
        -- repeated, or a voter field RULE|SUBJECT another rule's name)
        for x = 1, n do
          local c = checks[x]
          if c[2] == counter and c[3] == field then
            check = c
            break
          end
        end
      end
      if not check then
        check = { rule, counter, field, 0, allowance, finish or false, never, voter, bucket_rule, was,
          false, 0, 0, 0, false, false, false }
        if by_key then by_key[id_of] = check end
        if was then checks.legacy_key = ns .. 'rlu:' .. user end
        n = n + 1
        checks[n] = check
      end
      check[4] = check[4] + cost
    end
  end
  return checks
end

-- Evaluate every check without writing (each check gets its slots 11..17,
-- limit_plan). Returns the refusal (nil when all pass) as
-- { rule, retry_after, remaining = { rule name -> votes left } }, the
-- remaining table made only then (a vote that passes has no use for it).
-- The time is the plan's: second `now` and `usec`, the microsecond within
-- it (lib/clock's pair: the server's, or 0 on the explicit clock), which
-- rolling rules count from. All rolling arithmetic is on integers:
-- durations from now as (whole microseconds, remainder / limit).
local function limit_evaluate(checks)
  local now, usec = checks.now, checks.usec
  local refused, retry = nil, 0
  -- n emission intervals (iq + ir / l microseconds each) as whole
  -- microseconds and a remainder in 0..l-1 (units of 1/l microsecond):
  -- made for a rolling rule only (a closure costs every call that makes it)
  local intervals
  local n, fields, nfields, voter = #checks, nil, 0, checks.legacy_key
  -- the reads' positions follow the checks' order (counted again below)
  for i = 1, n do
    local c = checks[i]
    if c[8] then -- voter
      voter = c[2]
      fields = fields or {}
      nfields = nfields + 1
      fields[nfields] = c[3]
    end
    if c[10] then -- legacy
      fields = fields or {}
      nfields = nfields + 1
      fields[nfields] = c[10]
    end
  end
  local mine
  if voter then
    -- one read for every counter in the voter's hash, and its expiry
    fields = fields or {}
    fields[nfields + 1] = '@'
    mine = rcall('HMGET', voter, unpack(fields))
    local at_ = mine[nfields + 1]
    checks.voter_key = voter
    checks.voter_expiry = at_ and stored_int(at_, 1, 253402300800, voter, '@') or 0
  end
  local at_field = 0
  for i = 1, n do
    local c = checks[i]
    local rule, key, field, need, allowance, ends, never, in_voter, legacy = c[1], c[2], c[3], c[4], c[5], c[6], c[7],
      c[8], c[10]
    local value -- false when absent
    if in_voter then
      at_field = at_field + 1
      value = mine[at_field]
      if value and not rule.rolling then
        -- "END:COUNT:WINDOW": a count of this window, or of an earlier one
        -- (0); of another WINDOW (the rule changed under its name) or a
        -- rolling TAT (it was rolling): 0 too. "END:COUNT" (redvote 0.3)
        -- is of this window.
        local finish, count, kind = value:match('^(%d+):(%d+):?(%a*)$')
        if not finish and value:match('^%d+%.%d') then
          value = false
        else
          if not finish or #finish > 12 or #count > 16 or #kind > 8 then
            fail('INVALID_CONFIG', voter .. ' ' .. field .. ' is corrupt: "' .. value:sub(1, 40) .. '"')
          end
          finish = tonumber(finish)
          local same = kind == '' or kind == rule.window
          value = same and finish == ends and count or false
          -- a vote dated before the window its counter holds (the
          -- explicit clock, or a server clock that went back): that
          -- window's count is gone, so the vote is refused rather than
          -- counted afresh
          c[15] = same and finish > ends -- behind
        end
      end
    elseif field then
      value = rcall('HGET', key, field)
    else
      -- a string counter: a GET each (a key of another type is refused,
      -- REDVOTE_INVALID_CONFIG, as every key the vote writes: MGET would
      -- read it as absent and the spend overwrite it; and a vote has one
      -- or two of them, where MGET's reply table costs more than a GET)
      value = rcall('GET', key)
    end
    local old -- a bucketed counter's field in the voter's hash (legacy)
    if legacy then
      at_field = at_field + 1
      old = mine[at_field]
    end
    c[11] = value and true or false -- existed
    local left, wait
    if rule.rolling then
      intervals = intervals or function(n, iq, ir, l)
        local r = n * ir
        return n * iq + math.floor(r / l), r % l
      end
      local l = rule.limit
      local iq, ir = math.floor(rule.per * 1000000 / l), (rule.per * 1000000) % l
      -- d = TAT - now (dq us + dr / l us), from the stored TAT
      local dq, dr = 0, 0
      if value then
        local s, u, r, den = value:match('^(%d+)%.(%d%d%d%d%d%d)%+(%d+)/(%d+)$')
        if not s then s, u = value:match('^(%d+)%.(%d+)$') end
        -- a TAT, or (in the voter's hash) a fixed window's count of a rule
        -- that was fixed under this name: no state; anything else is corrupt
        if (not s and not (in_voter and value:match('^%d+:%d+:?%a*$'))) or (s and (#s > 12
            or (r and (#r > 16 or #den > 16)))) then
          fail('INVALID_CONFIG', key .. ' ' .. (field or 'value') .. ' is corrupt: "' .. value:sub(1, 40) .. '"')
        end
        if s then
          dq = (tonumber(s) - now) * 1000000 + tonumber(u:sub(1, 6) .. string.rep('0', 6 - #u)) - usec
          -- a remainder stored under another limit: rounded down to 1/l
          if r and tonumber(den) > 0 then dr = math.floor(tonumber(r) * l / tonumber(den)) % l end
        end
      end
      c[14] = 0 -- reset_in
      if dq > 0 or (dq == 0 and dr > 0) then
        c[14] = math.ceil((dq + (dr > 0 and 1 or 0)) / 1000000)
      else
        dq, dr = 0, 0 -- max(TAT, now)
      end
      -- remaining: allowance - ceil(d / interval)
      local k = math.ceil((dq + dr / l) / (iq + ir / l))
      local kq, kr = intervals(k, iq, ir, l)
      while kq < dq or (kq == dq and kr < dr) do
        k = k + 1
        kq, kr = intervals(k, iq, ir, l)
      end
      while k > 0 do
        kq, kr = intervals(k - 1, iq, ir, l)
        if kq < dq or (kq == dq and kr < dr) then break end
        k = k - 1
      end
      left = allowance - k
      -- passes when d + need * interval <= allowance * interval
      if need > allowance then
        wait = -1
      else
        local mq, mr = intervals(allowance - need, iq, ir, l)
        if dq > mq or (dq == mq and dr > mr) then
          local wq, wr = dq - mq, dr - mr -- how long until it would pass
          if wr < 0 then wq, wr = wq - 1, wr + l end
          wait = math.ceil((wq + (wr > 0 and 1 or 0)) / 1000000)
        end
      end
      -- the new TAT: now + d + need * interval
      local nq, nr = intervals(need, iq, ir, l)
      nq, nr = dq + nq, dr + nr
      if nr >= l then nq, nr = nq + 1, nr - l end
      local total = usec + nq
      local secs = now + math.floor(total / 1000000)
      local micros = total % 1000000
      c[16] = string.format('%d.%06d', secs, micros) .. (nr > 0 and ('+' .. nr .. '/' .. l) or '') -- the TAT
      c[17] = secs + ((micros > 0 or nr > 0) and 1 or 0) + 1 -- its expiry
    else
      local used = value and stored_int(value, 0, 9007199254740991, key, field or 'value') or 0
      if old then
        -- a bucketed counter of a campaign upgraded to layout 3 also counts
        -- what the voter's hash held for this very window before the
        -- upgrade (until that window ends: nothing writes it any more);
        -- a value of another window, kind or a rolling TAT counts 0
        local finish, count, kind = old:match('^(%d+):(%d+):?(%a*)$')
        if finish and #count <= 16 and tonumber(finish) == ends and (kind == '' or kind == rule.window) then
          used = used + tonumber(count)
        end
      end
      c[12] = used
      local behind = c[15]
      left = allowance - used
      if behind then
        left, wait = 0, -1
      elseif used + need > allowance then
        -- More than a whole window allows can never pass: -1 as well.
        wait = (never or not ends or need > allowance) and -1 or (ends - now)
      end
      c[14] = (never or behind or not ends) and -1 or (ends - now) -- reset_in
    end
    if not (left > 0) then left = 0 end -- math.max(0, left)
    c[13] = left
    if wait then
      refused = refused or rule.name
      if wait < 0 or retry < 0 then retry = -1 elseif wait > retry then retry = wait end
    end
  end
  if not refused then return nil end
  -- a rule's votes left: the least of its counters'
  local remaining = {}
  for i = 1, n do
    local c = checks[i]
    local name, left = c[1].name, c[13]
    local least = remaining[name]
    if least == nil or left < least then remaining[name] = left end
  end
  return { rule = refused, retry_after = retry, remaining = remaining }
end
-- user: a user id is an opaque string of 1..256 bytes without control
-- characters.
local function check_user(user)
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
end
-- name_arg: a board, option, channel or device name given as an argument.
-- Needs fail (lib/prologue) and name_ok (lib/names).

-- Refuses what name_ok does not accept, as REDVOTE_INVALID_NAME.
local function check_name(s)
  if not name_ok(s) then
    fail('INVALID_NAME', '"' .. s:sub(1, 80) .. '" is not a board or option name (1..64 bytes, none of colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters)')
  end
end
-- voter: who casts a campaign vote, as campaign_vote, campaign_limits and
-- campaign_limits_reset take it. Needs check_user (lib/user) and
-- check_name (lib/name_arg).

-- The voter: a user id, and the channel and device rules may count by ("":
-- none), names.
local function check_voter(user, channel, device)
  check_user(user)
  if channel ~= '' then check_name(channel) end
  if device ~= '' then check_name(device) end
end
-- limit_voter: what campaign_limits (the peek, read-only) and
-- campaign_limits_reset (the admin reset, a writer) share: their arguments
-- (KEYS[1] the campaign root; ARGV user, time, channel, device, then up to
-- 50 board, option pairs), checked in this order, and the counters of one
-- voter they look at. Needs campaign_key (lib/campaign), pair_argc
-- (lib/pair_args), clock (lib/clock), campaign_offset (lib/offset),
-- lib/limits (limit_plan, counts_by) and check_voter (lib/voter).

-- The checks (lib/limits' limit_plan, spending 0) of the voter the
-- arguments name, for the rules `wanted(rule, with_pairs)` keeps
-- (`with_pairs`: the call gave board, option pairs), planned at the time
-- lib/clock gives (the second and microsecond limit_evaluate counts from,
-- as the vote's).
local function voter_checks(op, wanted)
  local root, ns, layout = campaign_key(op)
  pair_argc(op, 4, 0, 50, 'user, time, channel, device, then board, option pairs')
  local user, channel, device = ARGV[1], ARGV[3], ARGV[4]
  check_voter(user, channel, device)
  local now, usec = clock(ARGV[2])
  local offset = campaign_offset(root)
  local c = rcall('HMGET', root, 'limits', 'end', 'rlu_until', 'limits_checked')
  local rules = limit_rules(root, c[1] or '[]', c[4])
  local end_at = c[2] and stored_int(c[2], 0, 253402300799, root, 'end') or nil
  -- layout 3 upgraded from 2: the voters' hashes' fixed counters still
  -- count (campaign_vote: until rlu_until, always on the explicit clock)
  local legacy = c[3] and (now < stored_int(c[3], 0, 253402300799, root, 'rlu_until') or ARGV[2] ~= '')
  local pairs_ = {}
  for i = 5, #ARGV, 2 do
    check_name(ARGV[i])
    check_name(ARGV[i + 1])
    pairs_[#pairs_ + 1] = { board = ARGV[i], option = ARGV[i + 1] }
  end
  local kept = {}
  for _, rule in ipairs(rules) do
    if wanted(rule, #pairs_ > 0) then kept[#kept + 1] = rule end
  end
  local subjects = #pairs_ > 0 and pairs_ or { { board = '', option = '' } }
  local ctx = { user = user, channel = channel, device = device, legacy = legacy, layout = layout }
  return limit_plan(ns, kept, ctx, subjects, 0, now, usec, offset, end_at)
end

local function main()
  -- every rule, but those that count per option only for the given pairs
  local checks = voter_checks('campaign_limits', function(rule, with_pairs)
    return with_pairs or not counts_by(rule, 'option')
  end)
  limit_evaluate(checks)
  local reply = {}
  for _, check in ipairs(checks) do
    -- the check's rule, left and reset_in (lib/limits, limit_plan)
    reply[#reply + 1] = { check[1].name, check[13], check[14] }
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
