#!lua
-- GENERATED from lua/src/campaign/vote.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
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
    ARGV[1]  user  <user>  1..256 bytes, no control characters
    ARGV[2]  time  <time, "" = server clock>  "" for the server's TIME; integer
             Unix seconds only on the test/import path (the driver's
             Campaign::at), at most 9999-12-31T23:59:59 in the campaign's UTC
             offset (later ones have no period names: REDVOTE_INVALID_NUMBER);
             a time in a period whose boards are past their retention by the
             server's clock is refused (REDVOTE_INVALID_PERIOD), as by
             campaign_import
    ARGV[3]  channel  <name, "" = none>  traffic source for rate limits (""
             none), a name
    ARGV[4]  device  <name, "" = none>  device type for rate limits ("" none),
             e.g. pc, mobile
    ARGV[5]  cost  <integer 1..1000, "" = 1>  what the vote spends of each rate
             limit, 1..1000 ("" = 1)
    ARGV[6]  id  <vote_id, "" = none>  "" none; else the vote id, 1..128 bytes
             without control characters: the call's idempotency key (see
             Exactly once)
    ARGV[7..]  pairs  <name/name, repeat 1..50>  board, option, board, option,
             ...: 1..50 pairs

  Keys written (P = a period name such as day:2026-03-17, or total):
    <ns>b:B:real:P, <ns>b:B:shown:P   zsets, member O (EXPIREAT end of P +
                                      the board's retention for P, if any);
                                      real: ZINCRBY, shown: ZADD of the exact
                                      decimal
    <ns>f:B:real:P, <ns>f:B:shown:P   zsets, boards with ties "first" only:
                                      O -> the sequence number of the vote that
                                      brought O to its current score (same TTL)
    <ns>o:B:KIND:P, <ns>d:B:KIND:P    zsets, boards with ties "first" / "dense"
                                      in effect or pending (a switch not yet
                                      reindexed): the order kept for O(log N)
                                      ranks (see lua/src/lib/order.lua; same TTL)
    <ns>periods:B                     zset: every board written, as "real:P" /
                                      "shown:P" -> its expiry (0: kept forever);
                                      a board gets its EXPIREAT when first seen,
                                      and whenever the vote makes it anew
                                      (listed, but gone: expired, evicted or
                                      deleted; EXPIREAT NX)
    <ns>seq                           the vote sequence counter ("first" ties)
    <ns>hll:B:O, <ns>hll              participant HyperLogLogs
    <ns>vid:ID                        string: the applied vote with id ID, its
                                      arguments, reply and what it added
                                      (lib/void) as JSON (EX the campaign's
                                      vote_id_ttl, default 86400)
    <ns>st:B:P, <ns>sp:P, <ns>sn:P    statistics of the hour and day buckets P
                                      (hour:2026-03-17T12, day:2026-03-17):
                                      the board's counters (hash), the
                                      campaign's participants (HyperLogLog)
                                      and their count (lib/stats)
    <ns>log                           stream, campaigns with vote_log N > 0
                                      only: XADD MAXLEN ~ N of u (user), c
                                      (channel), d (device), i (vote id), a
                                      (what it added, lib/void)
    <ns>rlu:USER                      hash: the user's rate-limit counters of
                                      rules that count by user (layout 3:
                                      rolling rules only), field RULE or
                                      RULE|SUBJECT, value END:COUNT:WINDOW or a
                                      rolling TAT, "@" its expiry (the latest
                                      END; see lua/src/lib/limits.lua)
    <ns>rlb:RULE:WINDOW:N             hash, layout 3: a bucket of the counts of
                                      a fixed-window rule that counts by user,
                                      field the subject (the user's included),
                                      value the count (EXPIREAT the window's
                                      end)
    <ns>rl:RULE:WINDOW:SUBJECT         other rate-limit counters (expire with
                                      their window)
    <ns>rl:RULE:campaign              hash: campaign-window counters, field
                                      SUBJECT (expires a week after the
                                      campaign's end)

  Precision: shown scores are kept as exact decimals with the board's
  `decimals` (a carried share is rounded half up to them), so 0.1 + 0.2 is
  stored as 0.3. The exact range is 2^53 units (of 10^-decimals) for
  decimals 0 and 2^51 units otherwise; a write beyond it is refused.

  Rate limits: the campaign's rules (see campaign_configure.lua and
  lua/src/lib/limits.lua) and deny lists are checked after every argument and
  before the first write; a refusal spends nothing and answers
  REDVOTE_RATE_LIMITED {"rule": ..., "retry_after": seconds (-1: not in this
  campaign), "remaining": {rule: votes left, ...}} or REDVOTE_DENIED. Batch
  pairs count against the limits pair by pair, all or nothing.

  Exactly once: a vote with an id is recorded with its reply, in the same
  call as its writes, for the campaign's vote_id_ttl seconds (server clock).
  A call with an id already recorded writes nothing and answers the recorded
  reply, each entry marked "replay"; with the same id but other arguments it
  is refused (REDVOTE_VOTE_ID_REUSED). A refused vote records nothing: its
  retry is judged afresh.

  Bounded work: a batch does at most 600 units of work (lib/board's
  CALL_WORK: 8 a pair, for each board entry it writes 2 plus its side
  keys', 4 a rate-limit rule a pair); a batch over it is refused
  (REDVOTE_USAGE, naming how many pairs of these boards fit a call) before
  anything is written. One pair always fits. On a board keeping one
  period, 50 pairs fit with competition or name ties, 30 with dense ties,
  25 with first ties; on one keeping five periods with carry, 16 with
  competition ties, 5 with first ties.

  Buffered campaigns (settings "mode": "buffered", docs/hot-campaigns.md):
  the vote is accepted exactly as above (every check, the rate limits
  spent, the vote id recorded, the vote log), then appended to its
  options' buffers <ns>buf:B:O (lib/fold) instead of written to the
  boards; the call folds (lib/fold) when the oldest buffered vote is
  fold_ms old or 1000 pairs wait. A buffered vote's record keeps its
  folded, not its reply, and what plans its entries again, not the
  entries (lib/vote_id, lib/vote_added).

  Output: one entry per pair, in order: { board, option, { P, shown score
    (string, fixed decimals), ... } } for every period the board keeps; on a
    replay each entry has a fourth element, "replay". On a buffered campaign
    (docs/hot-campaigns.md) the vote is not on the boards yet: each entry is
    { board, option, {}, "" or "replay", folded }, folded the Unix ms (a
    string) before which every accepted vote is on the boards.

  Keys: <ns>board:B, <ns>weights:B, <ns>deny:users, <ns>deny:channels,
    <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P, <ns>o:B:KIND:P,
    <ns>d:B:KIND:P, <ns>seq, <ns>hll:B:O, <ns>hll, <ns>vid:ID, <ns>st:B:P,
    <ns>sp:P, <ns>sn:P, <ns>log, <ns>rlu:USER, <ns>rlb:RULE:WINDOW:N,
    <ns>rl:RULE:WINDOW:SUBJECT, <ns>rl:RULE:rolling:SUBJECT,
    <ns>rl:RULE:campaign, <ns>buf:B:O, <ns>bufs, <ns>campaign

  Reply: list({board: string, option: string, scores: pairs(string, string),
    replay: string|nil, folded: string|nil})
  Idempotent: with vote id

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_VOTE_ID,
    REDVOTE_VOTE_ID_REUSED, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION, REDVOTE_CAMPAIGN_CLOSED,
    REDVOTE_OUT_OF_RANGE,
    REDVOTE_INVALID_CONFIG, REDVOTE_RATE_LIMITED, REDVOTE_DENIED,
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
-- user: a user id is an opaque string of 1..256 bytes without control
-- characters.
local function check_user(user)
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
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
-- fold_settings: a buffered campaign's stored settings a fold reads, and
-- the order of its buffers (lib/fold). Needs stored_int (lib/stored).

-- The default fold_ms (campaign settings): how old a buffered vote may grow
-- before the next vote folds it.
local FOLD_MS_DEFAULT = 200

-- The campaign `root`'s fold settings from its stored fields (offset,
-- stats_keep, fold_ms: c[1..3]), parsed strictly (INVALID_CONFIG).
local function fold_settings(root, c)
  return {
    offset = c[1] and stored_int(c[1], -50400, 50400, root, 'offset') or 0,
    stats_keep = c[2] and stored_int(c[2], -1, 315360000, root, 'stats_keep'),
    fold_ms = c[3] and stored_int(c[3], 1, 3600000, root, 'fold_ms') or FOLD_MS_DEFAULT,
  }
end

-- The order of the options with votes buffered (<ns>bufs, lib/fold): a
-- line's arrival (server Unix ms) x 64 + its pair's place in its vote.
local function buffer_score(arrived, place)
  return string.format('%.0f', arrived * 64 + place)
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
-- entries: the board entries that accepted campaign votes add, planned
-- without a read: lib/apply reads and writes them, a buffered vote's
-- intake records them (lib/vote_added). ctx and the votes as lib/apply
-- takes them. Needs expire_at (lib/board), period (lib/periods).

-- The entries `votes` add (a pair's `count`, when set, the like votes it
-- stands for), each (board period key, option) once with the
-- votes' amounts summed, in the order the votes first name them (`order`),
-- and grouped by key (`groups`); each vote's `shown_at` (ctx.reply: every
-- pair's period names and shown entries) and `periods_at`. An entry is an
-- array (cheaper to make than named fields): [1] key, [2] board settings,
-- [3] option, [4] scale (false: a real board), [5] units after the votes
-- (lib/apply), [6] the key's expiry (false: none), [7] the score before
-- (lib/apply; false: none), [8] which (real:P or shown:P), [9] units
-- added, [10] the side keys' state (lib/apply), [11] the score written
-- (lib/apply), [12] true: beyond the exact range (lib/apply).
local function planned_entries(ctx, votes)
  local ns, boards = ctx.ns, ctx.boards
  local p = { order = {}, groups = {} }
  local joined, order, groups, by_key = {}, p.order, p.groups, {}
  -- a key and an option meet twice only in a batch or a fold
  local join = #votes > 1 or #votes[1].pairs > 1
  -- An entry planned, its amount added; read later, by key (read_entries).
  local function add(b, which, name, key, option, units, scale, expiry)
    local id = join and key .. '\0' .. option
    local e = id and joined[id]
    if not e then
      e = { key, b, option, scale or false, 0, expiry or false, false, which .. name, 0, false, false, false }
      if id then joined[id] = e end
      order[#order + 1] = e
      local g = by_key[key]
      if not g then
        g = { e }
        by_key[key] = g
        groups[#groups + 1] = g
      else
        g[#g + 1] = e
      end
    end
    e[9] = e[9] + units
    return e
  end
  local gone, by_time = ctx.gone, {}
  for _, vote in ipairs(votes) do
    -- each period kind's current period (and the next one, for the carry)
    -- once a vote time: every pair of a vote votes at the same second
    local periods_at = vote.periods_at or by_time[vote.now]
    if not periods_at then periods_at = {}; by_time[vote.now] = periods_at end
    vote.periods_at = periods_at
    local shown_at = ctx.reply and {}
    vote.shown_at = shown_at
    for n, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      local scale, unit = b.decimals, 10 ^ b.decimals
      -- a fold's pair stands for `count` like votes (lib/fold): each adds the
      -- same, the carried share rounded a vote
      local like = pair.count or 1
      local carried = b.carry_millionths > 0 and math.floor(pair.weight * b.carry_millionths * unit / 1000000 + 0.5) * like or 0
      local board_keys = ns .. 'b:' .. b.name
      local shown = shown_at and {}
      if shown_at then shown_at[n] = shown end
      for _, kind in ipairs(b.periods) do
        local pa = periods_at[kind]
        if not pa then
          local name, _, finish = period(kind, vote.now, ctx.offset)
          pa = { name, finish }
          periods_at[kind] = pa
        end
        local name, finish = pa[1], pa[2]
        local expiry = expire_at(b, kind, finish)
        if ctx.refuse then ctx.refuse(b, name, expiry) end
        if not (gone and expiry and expiry <= gone) then
          add(b, 'real:', name, board_keys .. ':real:' .. name, pair.option, like, nil, expiry)
          local e = add(b, 'shown:', name, board_keys .. ':shown:' .. name, pair.option, pair.weight * unit * like, scale,
            expiry)
          if shown then
            shown[#shown + 1] = name
            shown[#shown + 1] = e
          end
        end
        if finish and carried > 0 then
          if not pa[3] then
            local next_name, _, next_finish = period(kind, finish, ctx.offset)
            pa[3], pa[4] = next_name, next_finish
          end
          local next_expiry = expire_at(b, kind, pa[4])
          if not (gone and next_expiry and next_expiry <= gone) then
            add(b, 'shown:', pa[3], board_keys .. ':shown:' .. pa[3], pair.option, carried, scale, next_expiry)
          end
        end
      end
    end
  end

  return p
end
-- board_stamp: needs nothing.

-- What decides the entries a vote writes on board `b` (lib/entries): its
-- periods, carry and decimals, and the campaign's UTC `offset` (seconds),
-- as text: a buffered vote's record keeps it (lib/vote_added), and a void
-- plans the vote's entries again only while it still holds (lib/void).
local function board_stamp(b, offset)
  return table.concat(b.periods, ',') .. '|' .. b.carry_millionths .. '|' .. b.decimals .. '|' .. offset
end
-- vote_added: what a campaign vote added (lib/void's object: its vote-id
-- record keeps it, and the vote log), from the entries lib/apply planned,
-- or for a buffered vote what plans them again. Needs rcall
-- (lib/prologue), decimal_text (lib/exact), board_stamp (lib/board_stamp).

-- lib/void's object of `vote` (lib/apply's form) whose planned entries are
-- `order`, its pairs on `boards`, in the statistics buckets `buckets`
-- ({ hour = P, day = P }): every board entry with its amount, the pairs
-- with their weights and the boards' remove_gen.
local function vote_added(order, pairs_, boards, vote, buckets)
  local e, s = {}, {}
  for i, w in ipairs(order) do
    e[i] = { w[2].name, w[8], w[3], w[4] and decimal_text(w[9], w[4]) or string.format('%.0f', w[9]) }
  end
  for i, pair in ipairs(pairs_) do
    local gen = boards[pair.board].remove_gen
    s[i] = { pair.board, tostring(pair.weight), gen > 0 and tostring(gen) or nil }
  end
  return { t = tostring(vote.now), u = vote.user, c = vote.channel, d = vote.device, h = buckets.hour,
    dy = buckets.day, e = e, s = s }
end

-- lib/void's compact object of a buffered `vote` (its pairs on `boards`,
-- the campaign's `offset`): instead of every entry with its amount (e),
-- each pair's option and board stamp (x, lib/board_stamp), from which a
-- void plans the entries again and names the statistics buckets (lib/void's
-- void_expand); no voter (the request has it, and a void reads none). A
-- fraction of the bytes, and neither entries nor period names computed
-- when the vote is accepted.
local function vote_recorded(vote, boards, offset)
  local s, x = {}, {}
  for i, pair in ipairs(vote.pairs) do
    local b = boards[pair.board]
    s[i] = { pair.board, tostring(pair.weight), b.remove_gen > 0 and tostring(b.remove_gen) or nil }
    x[i] = { pair.option, board_stamp(b, offset) }
  end
  return { t = tostring(vote.now), s = s, x = x }
end

-- Append `vote` (with id `id`, "" none, and what it added, `info`) to the
-- capped vote log <ns>log (at most about `max` entries); returns its entry.
local function log_vote(ns, max, vote, id, info)
  return rcall('XADD', ns .. 'log', 'MAXLEN', '~', max, '*', 'u', vote.user, 'c', vote.channel, 'd', vote.device,
    'i', id, 'a', cjson.encode(info))
end
-- intake: campaign_vote on a buffered campaign. The vote is accepted
-- exactly as an immediate one (every check, the rate limits spent, its id
-- recorded, the vote log), and appended to its options' buffers
-- (lib/fold) instead of written to the boards; the call folds when its
-- oldest buffered vote is fold_ms old or FOLD_AUTO pairs wait. Needs rcall (lib/prologue),
-- stored_int (lib/stored), fold_settings, buffer_score
-- (lib/fold_settings), planned_entries (lib/entries), vote_recorded,
-- log_vote (lib/vote_added); the fold
-- (lib/fold) comes from o.writers(), made only when the vote folds.
-- A vote that folds does so before its own writes: the fold takes the
-- votes before it, and this one waits for the next.

-- A vote that finds this many pairs buffered (its own included) folds.
local FOLD_AUTO = 1000

-- Accept `vote` (lib/apply's form; ctx: lib/apply's) into the buffer of the
-- campaign `root` (<ns>; c: its stored fields as campaign_vote read them,
-- c[1] offset, c[9] stats_keep, c[13] fold_ms, c[14] fold_due, c[15]
-- folded). o: `writers`, the vote's checks to spend and `spend`, its id,
-- request, `record`, id_ttl, vote_log, and `server_ms` (the server's Unix
-- ms).
-- Answers each pair as { board, option, {}, "", folded } (campaign_vote's
-- header).
local function buffer_vote(root, ns, c, ctx, vote, o)
  local s = fold_settings(root, { c[1], c[9], c[13] })
  local due = c[14] and stored_int(c[14], 0, 999999999999999, root, 'fold_due')
  local folded = c[15] and stored_int(c[15], 0, 999999999999999, root, 'folded') or 0
  local buffered = c[16] and stored_int(c[16], 0, 999999999999999, root, 'buffered') or 0
  -- what its record and the log keep: what plans its entries again
  -- (lib/vote_added's vote_recorded)
  local info
  -- the explicit clock's retention check plans the entries
  if ctx.refuse then planned_entries(ctx, { vote }) end
  if o.request or o.vote_log > 0 then info = vote_recorded(vote, ctx.boards, ctx.offset) end

  -- the fold this vote makes, before its own writes: a fold refuses only
  -- before its first write (a corrupt buffer: INVALID_CONFIG), so a
  -- refused call writes nothing; the vote waits for the next fold
  if buffered + #vote.pairs >= FOLD_AUTO or (due and o.server_ms >= due) then
    local _, _, at = o.writers().fold_buffer(root, ns, s, 1000, false, o.server_ms)
    folded = at or folded
  end

  -- validated: the writes start here
  if o.checks then o.spend(o.checks) end
  -- a line a pair, in its option's buffer (lib/fold's header)
  local ms = string.format('%.0f', o.server_ms)
  local tail = '\t' .. string.format('%.0f', vote.now) .. '\t' .. vote.user .. '\t' .. vote.channel .. '\t'
    .. vote.device .. '\t'
  for i, pair in ipairs(vote.pairs) do
    local head = pair.board .. ':' .. pair.option
    if rcall('RPUSH', ns .. 'buf:' .. head, '1\t' .. ms .. '\t' .. (i - 1) .. tail .. pair.weight) == 1 then
      rcall('ZADD', ns .. 'bufs', buffer_score(o.server_ms, i - 1), head)
    end
  end
  if rcall('HINCRBY', root, 'buffered', #vote.pairs) == #vote.pairs then
    rcall('HSET', root, 'fold_due', string.format('%.0f', o.server_ms + s.fold_ms))
  end
  if o.vote_log > 0 then info.l = log_vote(ns, o.vote_log, vote, o.id, info) end
  local text = string.format('%.0f', folded)
  local reply = {}
  for i, pair in ipairs(vote.pairs) do reply[i] = { pair.board, pair.option, {}, '', text } end
  -- its id's record keeps `folded`, not the reply: a replay answers the
  -- call's own pairs with it (lib/vote_id)
  if o.request then o.record(ns, o.id, o.request, text, o.id_ttl, info) end
  return reply
end

-- The code that writes boards (lib/apply, lib/fold), made only by a call
-- that needs it: every function a
-- script defines at its top is a closure made on each call, and a
-- buffered vote's intake needs none of these.
local function writers()
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
-- apply: the writes of accepted campaign votes, one immediate vote's and a
-- fold's many (lib/fold) by the same code, so that both modes give the
-- same boards. apply_plan reads and checks every key first, apply_write
-- writes. Many votes write one entry per (board period, option): their
-- amounts summed, their participants in one PFADD a HyperLogLog, their
-- statistics in one HSET a bucket.
--
-- ctx: ns, boards (board name -> lib/board's settings), offset, stats_keep
-- (the root's, or nil), sided (a board keeps side keys, lib/order),
-- first_ties (one has ties "first"), reply (keep each pair's shown
-- entries for the vote's reply), refuse (the explicit clock's retention
-- check, lib/retention's refuse_expired bound to the server's time, or
-- nil), gone (a fold: the server's time; a board or bucket whose expiry
-- is at or before it is gone already, and is not made again).
-- A vote: { user (or users, a fold's like votes), channel, device, now
-- (its Unix second), pairs = { { board, option, weight, count (the like
-- votes it stands for; nil: 1) }, ... }, periods_at (the vote's period names
-- cache: kind -> { name, end, next name, next end }; made when absent) }.
-- Needs rcall, fail (lib/prologue), expire_at (lib/board), period
-- (lib/periods), exact_limit, units_of, decimal_text (lib/exact),
-- stats_plan, stats_write (lib/stats).

-- Before the first write: the entries `votes` write (lib/entries), every
-- key read and checked. An entry that would leave the exact range
-- (lib/exact) is refused by ctx.out_of_range (the vote's refusal), or
-- without one (a fold, whose votes are accepted) not written and counted
-- in the plan's `overflow`. Returns the plan apply_write takes.
local function apply_plan(ctx, votes)
  local order_read_
  if ctx.sided then
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
    ctx.order_read, ctx.order_write = order_read, order_write
    order_read_ = order_read
  end
  local p = planned_entries(ctx, votes)
  p.overflow = 0
  local ns, boards, groups, gone = ctx.ns, ctx.boards, p.groups, ctx.gone

  -- Every board key read once (ZMSCORE of its options: a wrong type is
  -- refused here), each entry's units after the votes checked against the
  -- exact range, and the side keys read (lib/order); a key that does not
  -- exist is looked up in the period index (below).
  local unseen = {}
  for _, g in ipairs(groups) do
    local first = g[1]
    local key, b, scale = first[1], first[2], first[4]
    local members = {}
    for i, e in ipairs(g) do members[i] = e[3] end
    local scores = rcall('ZMSCORE', key, unpack(members))
    local known = false
    local limit = scale and exact_limit(scale)
    for i, e in ipairs(g) do
      local old = scores[i]
      if old then
        known = true
        e[7] = old
        e[5] = (scale and units_of(old, scale) or tonumber(old)) + e[9]
      else
        e[5] = e[9]
      end
      local u = e[5]
      if scale and (u >= limit or -u >= limit) then
        if ctx.out_of_range then ctx.out_of_range(b, e[3], e[8], limit, scale) end
        if not e[12] then p.overflow = p.overflow + 1 end
        e[12] = true
      end
      if b.sides[1] then e[10] = order_read_(ns, b, key, e[3]) end
    end
    if not known and rcall('EXISTS', key) == 0 then
      local t = unseen[b.name]
      if not t then t = { seen = {} }; unseen[b.name] = t end
      if not t.seen[first[8]] then
        t.seen[first[8]] = true
        t[#t + 1] = { first[8], first[6] }
      end
    end
  end

  -- The other keys written, read (and checked: a wrong type, a corrupt
  -- sequence counter, a key that is not a HyperLogLog) before the first
  -- write: the period index (for boards that do not exist: the index
  -- members to add by board, lib/board_write, made only then), the
  -- sequence counter, the participant HyperLogLogs.
  if next(unseen) then
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
    p.fresh, p.listed, p.track = {}, {}, track_periods
    for board in pairs(boards) do
      local t = unseen[board]
      if t then
        p.fresh[board], p.listed[board] = new_periods(ns, board, t)
      else
        rcall('ZCARD', ns .. 'periods:' .. board) -- its type only: one of the wrong type is refused
      end
    end
  else
    for board in pairs(boards) do
      rcall('ZCARD', ns .. 'periods:' .. board) -- its type only: one of the wrong type is refused
    end
  end
  if ctx.first_ties then stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value') end
  local hlls, by_hll = {}, {}
  local function participant(hll, user)
    local h = by_hll[hll]
    if not h then h = { key = hll, seen = {} }; by_hll[hll] = h; hlls[#hlls + 1] = h end
    if not h.seen[user] then h.seen[user] = true; h[#h + 1] = user end
  end
  for _, vote in ipairs(votes) do
    for _, user in ipairs(vote.users or { vote.user }) do
      participant(ns .. 'hll', user)
      for _, pair in ipairs(vote.pairs) do participant(ns .. 'hll:' .. pair.board .. ':' .. pair.option, user) end
    end
  end
  for _, h in ipairs(hlls) do
    local magic = rcall('GETRANGE', h.key, '0', '3')
    if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', h.key .. ' is not a HyperLogLog') end
  end
  p.hlls = hlls
  p.stats, p.buckets = stats_plan({ ns = ns, offset = ctx.offset, stats_keep = ctx.stats_keep, gone = gone }, boards,
    votes)
  return p
end

-- The writes of a plan (validated: nothing here refuses). The sequence
-- numbers, the boards and their side keys, the period index, the
-- participant HyperLogLogs, the statistics; each entry's score text.
local function apply_write(ctx, p)
  local ns, order = ctx.ns, p.order
  local seq = 0
  if ctx.first_ties then seq = rcall('INCRBY', ns .. 'seq', #order) - #order end
  -- each board key in one ZADD of its entries' new scores (exact text:
  -- counts on real boards, decimals on shown ones)
  for _, g in ipairs(p.groups) do
    local args = {}
    for _, e in ipairs(g) do
      if not e[12] then
        local text = e[4] and decimal_text(e[5], e[4]) or string.format('%.0f', e[5])
        e[11] = text
        args[#args + 1] = text
        args[#args + 1] = e[3]
      end
    end
    if args[1] then rcall('ZADD', g[1][1], unpack(args)) end
  end
  -- the side keys, entry by entry, once every board is written
  if ctx.sided then
    for i, e in ipairs(order) do
      if e[10] and not e[12] then ctx.order_write(ns, e[2], e[1], e[3], e[7] or nil, e[11], e[10], seq + i, e[6]) end
    end
  end
  if p.fresh then
    for board, f in pairs(p.fresh) do p.track(ns, board, f, p.listed[board]) end
  end
  for _, h in ipairs(p.hlls) do rcall('PFADD', h.key, unpack(h)) end
  stats_write(p.stats)
end
-- fold: a buffered campaign's votes (campaign settings `mode` "buffered")
-- are accepted by campaign_vote into buffers, and written to the boards
-- here, many at once (lib/apply), in one call: a fold is atomic, and what
-- it folds leaves the buffers in the same call.
--
-- Each voted (board B, option O) has its buffer <ns>buf:B:O, a list,
-- oldest first, of one line a pair voted, fields separated by a tab (no
-- name, user or number holds one):
--   1, arrived (server Unix ms), the pair's place in its vote (0..49),
--   time (the vote's Unix second), user, channel, device, weight.
-- <ns>bufs is the zset of the options with votes buffered, "B:O" scored by
-- its oldest line's arrival (arrived x 64 + place: a vote's pairs in
-- order). A fold takes whole options, oldest first, so that all the votes
-- of an option buffered since the last fold make one write a board period
-- (the seed's star boards: many fans, few stars).
-- The root <ns>campaign keeps `fold_ms` (how old the oldest buffered vote
-- may grow before a vote folds), `fold_due` (Unix ms: when the oldest
-- buffered vote is fold_ms old; absent: nothing buffered) and `folded`
-- (Unix ms: every vote accepted before it is on the boards).
-- A buffered vote counts with the settings in force when it was accepted
-- (its weight is in its line; every call that changes settings or takes
-- votes back folds every buffer first, in the same call: lib/fold_all),
-- so a buffered campaign's boards equal an immediate one's, except that
-- "first" ties reached within one fold rank by the arrival of the
-- options' oldest votes in it. Needs rcall, fail (lib/prologue),
-- stored_int (lib/stored), board_settings, entry_work, CALL_WORK (lib/board),
-- apply_plan, apply_write (lib/apply).

-- The most pairs one fold takes. Its work is bounded as every writer's
-- (lib/board's CALL_WORK): an option's entries (fold_option_work) and 3
-- units every 2 lines (parsing, participants, statistics). On 100-member
-- boards, where the update of a fractional score walks the listpack, that
-- keeps a fold near 2 ms (docs/benchmark.md, Hot campaigns).
local FOLD_VOTES = 1000

-- A line of a buffer (lib/fold's header): arrived, place, time, user,
-- channel, device, weight (all text), or nil when it is not one.
local function buffered_line(line)
  return line:match('^1\t(%d+)\t(%d%d?)\t(%d+)\t([^\t]+)\t([^\t]*)\t([^\t]*)\t([1-9]%d*)$')
end

-- The lines of a buffer of `board`, `option` as lib/apply's votes: the
-- like ones (same second, channel, device and weight) one vote with their
-- users and count, so that a fold plans each board entry once a second,
-- not once a vote. Appended to `votes`; refuses a line that is not one
-- (INVALID_CONFIG naming `key`).
local function buffered_votes(lines, key, board, option, votes)
  local like = {}
  for i, line in ipairs(lines) do
    local _, _, now, user, channel, device, weight = buffered_line(line)
    if not now then fail('INVALID_CONFIG', key .. ' entry ' .. (i - 1) .. ' is not a buffered vote') end
    local id = now .. '\t' .. weight .. '\t' .. channel .. '\t' .. device
    local vote = like[id]
    if vote then
      vote.users[#vote.users + 1] = user
      vote.pairs[1].count = vote.pairs[1].count + 1
    else
      vote = { now = tonumber(now), channel = channel, device = device, users = { user },
        pairs = { { board = board, option = option, weight = tonumber(weight), count = 1 } } }
      like[id] = vote
      votes[#votes + 1] = vote
    end
  end
end

-- The units of work of one option's entries on board `b` (lib/board).
local function fold_option_work(b)
  local n = #b.periods
  local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
  return entries * entry_work(b)
end

-- Fold the buffered votes of the campaign `root` (<ns>; s: its fold
-- settings, lib/fold_settings), whole options, oldest first, while they fit
-- `max` votes and CALL_WORK; `all`: every buffered vote, or nothing
-- (before any write, answering nil) when they do not fit one call.
-- `now_ms`: the server's time. Returns how many votes it folded, how many
-- are left, the `folded` time, and how many entries it left out, beyond
-- the exact range (lib/apply).
local function fold_buffer(root, ns, s, max, all, now_ms)
  local bufs = ns .. 'bufs'
  local buffered = stored_int(rcall('HGET', root, 'buffered') or '0', 0, 999999999999999, root, 'buffered')
  if all and buffered > FOLD_VOTES then return nil end
  local heads = rcall('ZRANGE', bufs, 0, all and -1 or 99)
  local votes, boards, taken, work, pairs_n = {}, {}, {}, 0, 0
  local sided, first_ties = false, false
  for _, head in ipairs(heads) do
    local board, option = head:match('^([^:]+):([^:]+)$')
    if not board then fail('INVALID_CONFIG', bufs .. ' holds "' .. head:sub(1, 80) .. '", not a board:option') end
    local b = boards[board]
    if not b then
      b = board_settings(ns, board)
      boards[board] = b
    end
    local cost = fold_option_work(b)
    local room = math.min(max - pairs_n, math.floor((CALL_WORK - work - cost) * 2 / 3))
    if room < 1 and pairs_n > 0 then
      if all then return nil end
      break
    end
    local key = ns .. 'buf:' .. head
    local n = rcall('LLEN', key)
    local k = math.min(n, math.max(room, 1))
    if all and k < n then return nil end
    buffered_votes(rcall('LRANGE', key, 0, k - 1), key, board, option, votes)
    pairs_n = pairs_n + k
    sided = sided or b.sides[1] ~= nil
    first_ties = first_ties or b.first
    work = work + cost + math.ceil(k * 3 / 2)
    taken[#taken + 1] = { head, key, k, n }
  end
  if pairs_n == 0 then
    return 0, buffered, buffered == 0 and now_ms or nil, 0
  end
  local ctx = { ns = ns, boards = boards, offset = s.offset, stats_keep = s.stats_keep, sided = sided,
    first_ties = first_ties, gone = math.floor(now_ms / 1000) }
  local p = apply_plan(ctx, votes)

  -- validated: the writes start here
  apply_write(ctx, p)
  for _, t in ipairs(taken) do
    local head, key, k, n = t[1], t[2], t[3], t[4]
    if k == n then
      rcall('DEL', key)
      rcall('ZREM', bufs, head)
    else
      rcall('LTRIM', key, k, -1)
      local arrived, place = buffered_line(rcall('LINDEX', key, 0) or '')
      if arrived then rcall('ZADD', bufs, buffer_score(tonumber(arrived), tonumber(place)), head) end
    end
  end
  local left = math.max(buffered - pairs_n, 0)
  local folded = now_ms
  local oldest = rcall('ZRANGE', bufs, 0, 0, 'WITHSCORES')
  if oldest[1] then
    folded = math.min(math.floor(tonumber(oldest[2]) / 64), now_ms)
    rcall('HSET', root, 'buffered', string.format('%.0f', left), 'folded', string.format('%.0f', folded),
      'fold_due', string.format('%.0f', folded + s.fold_ms))
  else
    left = 0
    rcall('HSET', root, 'buffered', '0', 'folded', string.format('%.0f', folded))
    rcall('HDEL', root, 'fold_due')
  end
  return pairs_n, left, folded, p.overflow
end
  return { apply_plan = apply_plan, apply_write = apply_write, fold_buffer = fold_buffer }
end

-- The vote is the campaign's hottest call, and each function a script
-- defines is a closure made on every call (docs/benchmark.md, Hot
-- campaigns: where the cost is). So the vote's
-- phases are written out in main, in order, rather than as functions,
-- calling the shared helper for each step other scripts take (lib/campaign,
-- lib/clock, lib/voter, lib/name_arg, lib/pair_args, lib/last_second,
-- lib/board's expire_at); and the libs of the rarer paths are included
-- inside the branch that needs them, so that only that branch makes their
-- closures: lib/vote_id with a vote id, lib/limits and lib/limit_spend
-- when the campaign has rules, lib/order with a board keeping dense or
-- first side keys, lib/board_write when a period board is new. (An
-- included file is emitted once a script: each of those is included in
-- one branch only.) tests/suite/campaign/vote_diff.rs and limits::diff
-- hold it to the vote before.
local function main()
  -- Phase 1, the arguments: the campaign's key, the argument count, the
  -- voter (user, channel, device), the cost, the clock and the vote id (all
  -- checked: REDVOTE_USAGE, INVALID_USER, INVALID_NAME, INVALID_NUMBER,
  -- INVALID_VOTE_ID); a vote id already recorded answers its recorded reply
  -- at once (nothing else read or written).
  -- The campaign root and its hash, with the settings the vote reads
  -- (lib/campaign: the layout checked).
  local root, ns, layout, c = campaign_key('campaign_vote', 'offset', 'start', 'end', 'limits', 'denying', 'updated',
    'vote_id_ttl', 'vote_log', 'stats_keep', 'rlu_until', 'limits_checked', 'mode', 'fold_ms', 'fold_due', 'folded', 'buffered')
  pair_argc('campaign_vote', 6, 1, 50, 'user, time, channel, device, cost, vote id, then board, option pairs',
    'at most 50 (board, option) pairs a call')
  local user, at, channel, device, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[6]
  check_voter(user, channel, device)
  -- the cost ("" is 1) and the clock ("": the server's; lib/clock)
  local cost = ARGV[5] == '' and 1 or integer_arg(ARGV[5], 'cost', 1, 1000)
  local now, usec = clock(at)
  -- on an explicit clock, the server's too: a period whose boards are past
  -- their retention by it is refused (lib/retention), as by the import
  local server_now, refuse_expired_
  local server_ms = now * 1000 + math.floor(usec / 1000)
  if at ~= '' then
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
    local t = rcall('TIME')
    server_now, refuse_expired_ = tonumber(t[1]), refuse_expired
    server_ms = server_now * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  -- the vote id (lib/vote_id); request: the call's record, to write
  local request, record_vote
  if id ~= '' then
-- vote_id: idempotency keys of campaign votes. A vote with an id is recorded
-- at <ns>vid:ID, in the same call as its writes, as the JSON text
-- [request, reply, added]: request is itself JSON text, the list of every ARGV of
-- the call but the id (ARGV[6]), the time argument as sent ("" for the
-- server's clock, so a retry matches whenever it is sent); reply is the
-- vote's reply, or for a buffered vote its `folded` (text: each pair's
-- entry is { board, option, {}, "", folded }, the pairs the request's, so
-- the same call's); added is what the vote added (lib/void's object, which
-- campaign_void takes back, marked there once voided; records of redvote
-- 0.5 and before have none). Needs rcall and fail (lib/prologue).

-- The id's record. The caller passes a non-empty `id` only (campaign_vote
-- reads "" as "no id" and never looks it up; the driver refuses an empty
-- id before sending). Returns the recorded reply, each entry marked
-- "replay" as its fourth element, when `id` was applied with the same
-- arguments (the caller answers it and writes nothing: the record keeps
-- its expiry); otherwise nil and the request to record. Refuses with
-- REDVOTE_INVALID_VOTE_ID an id longer than 128 bytes or holding control
-- characters (before any read), REDVOTE_VOTE_ID_REUSED an id recorded with
-- other arguments, REDVOTE_INVALID_CONFIG a record that is not such JSON
-- (and, through lib/epilogue, a key of another type).
local function vote_id_lookup(ns, id)
  if #id > 128 or id:find('%c') then
    fail('INVALID_VOTE_ID', 'a vote id is 1..128 bytes without control characters')
  end
  local args = {}
  for i = 1, #ARGV do
    if i ~= 6 then args[#args + 1] = ARGV[i] end
  end
  local request = cjson.encode(args)
  local key = ns .. 'vid:' .. id
  local stored = rcall('GET', key)
  if not stored then return nil, request end
  local ok, record = pcall(cjson.decode, stored)
  if not ok or type(record) ~= 'table' or type(record[1]) ~= 'string'
    or not (type(record[2]) == 'table' or (type(record[2]) == 'string' and record[2]:find('^%d+$'))) then
    fail('INVALID_CONFIG', key .. ' is not a vote record')
  end
  if record[1] ~= request then
    fail('VOTE_ID_REUSED', 'vote id ' .. id .. ' was applied to another vote (user, pairs or context differ)')
  end
  if type(record[2]) == 'string' then
    local entries = {}
    for i = 7, #ARGV, 2 do entries[#entries + 1] = { ARGV[i], ARGV[i + 1], {}, 'replay', record[2] } end
    return entries
  end
  for _, entry in ipairs(record[2]) do
    if type(entry) ~= 'table' then fail('INVALID_CONFIG', key .. ' is not a vote record') end
    entry[4] = 'replay'
  end
  return record[2]
end

-- Record an applied vote: its request and reply, and what it added
-- (lib/void: what campaign_void takes back), for `ttl` seconds.
local function vote_id_record(ns, id, request, reply, ttl, info)
  rcall('SET', ns .. 'vid:' .. id, cjson.encode({ request, reply, info }), 'EX', ttl)
end
    local record
    record, request = vote_id_lookup(ns, id)
    if record then return record end
    record_vote = vote_id_record
  end
  -- periods_at: each period kind's current period (name, end) and next
  -- one, computed once a call (by the rate limits, the plan or the
  -- statistics, whichever needs it first)
  local periods_at = {}

  -- Phase 2a, the campaign's stored settings (UNKNOWN_CAMPAIGN; parsed
  -- strictly by lib/stored: INVALID_CONFIG naming the key and field) and
  -- its window (CAMPAIGN_CLOSED).
  if not c[6] then unknown_campaign(root) end
  local offset = c[1] and stored_int(c[1], -50400, 50400, root, 'offset') or 0
  if offset % 60 ~= 0 then fail('INVALID_CONFIG', root .. ' offset is corrupt: "' .. c[1]:sub(1, 40) .. '"') end
  check_last_second(now, offset, at)
  local start_at = c[2] and stored_int(c[2], 0, LAST_SECOND, root, 'start')
  local end_at = c[3] and stored_int(c[3], 0, LAST_SECOND, root, 'end') or nil
  -- The rate limits (lib/limits, lib/limit_spend), made here only when the
  -- campaign has rules: the rules (false: none), and the functions the
  -- later phases call (plan and evaluate in phase 3, spend in phase 5).
  local rules, limit_plan_, limit_evaluate_, limit_spend_ = c[4] and c[4] ~= '[]'
  if rules then
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
-- limit_spend: spending what limit_plan (lib/limits) planned and
-- limit_evaluate passed, in campaign_vote after its other writes. Needs
-- rcall (lib/prologue) and COUNTER_GRACE (lib/counter_grace).

-- Spend: only after every check passed; one write a counter (a new counter
-- is created with its expiry, an existing one already has it; a
-- campaign-window hash gets the campaign's end + COUNTER_GRACE when a
-- subject is new), and one HSET for every counter of the voter's
-- hash (lib/limits), with an EXPIREAT when its expiry grows; a voter's
-- bucket (layout 3) gets HINCRBY, and its window's end as expiry when the
-- voter's field is new (the bucket may be new).
local function limit_spend(checks)
  local format = string.format
  local mine, expiry, n = nil, checks.voter_expiry, 0
  -- the numbers redis.call is given, as their decimal text (what it would
  -- write with %.17g: the same digits for these integers): a vote's need is
  -- the same for every counter but in a batch (formatted once a value),
  -- a window's end once a window
  local need_text, text_of, finish_text, text_for = nil, nil, nil, nil
  for i = 1, #checks do
    local c = checks[i]
    -- the check's slots (lib/limits, limit_plan)
    local rule, key, field, need, finish = c[1], c[2], c[3], c[4], c[6]
    if need ~= text_of then need_text, text_of = format('%d', need), need end
    if c[8] then
      -- the voter's hash: every field in one HSET below
      mine = mine or {}
      mine[n + 1] = field
      if rule.rolling then
        mine[n + 2] = c[16] -- the new TAT
        if c[17] > expiry then expiry = c[17] end
      else
        mine[n + 2] = finish .. ':' .. (c[12] + need) .. ':' .. rule.window -- used + need
        if finish > expiry then expiry = finish end
      end
      n = n + 2
    elseif c[9] then
      -- a bucket of voters (campaign layout 3): a new field may be the
      -- bucket's first, which expires with its window
      if rcall('HINCRBY', key, field, need_text) == need then
        if finish ~= text_for then finish_text, text_for = format('%d', finish), finish end
        rcall('EXPIREAT', key, finish_text)
      end
    elseif field then
      -- a campaign-window hash: a new subject (re)sets the hash's expiry
      if rcall('HINCRBY', key, field, need_text) == need and finish then
        rcall('EXPIREAT', key, format('%d', finish + COUNTER_GRACE))
      end
    elseif rule.rolling then
      rcall('SET', key, c[16], 'EXAT', format('%d', c[17]))
    elseif c[11] then -- existed
      rcall('INCRBY', key, need_text)
    elseif finish then
      if finish ~= text_for then finish_text, text_for = format('%d', finish), finish end
      rcall('SET', key, need_text, 'EXAT', finish_text)
    else
      rcall('SET', key, need_text)
    end
  end
  if n > 0 then
    -- The hash lives as long as its latest counter: its expiry is only
    -- raised (recorded in "@", read with the counters: no TTL call).
    local raise = expiry > checks.voter_expiry
    if raise then
      mine[n + 1] = '@'
      mine[n + 2] = format('%d', expiry)
    end
    rcall('HSET', checks.voter_key, unpack(mine))
    if raise then rcall('EXPIREAT', checks.voter_key, mine[n + 2]) end
  end
end
    rules = limit_rules(root, c[4], c[11])
    limit_plan_, limit_evaluate_, limit_spend_ = limit_plan, limit_evaluate, limit_spend
  end
  -- layout 3 upgraded from 2: the voters' hashes' fixed counters of the
  -- windows in flight still count (lib/limits, campaign_upgrade); on the
  -- explicit clock, whose windows may lie anywhere, always
  local legacy = c[10] and (now < stored_int(c[10], 0, LAST_SECOND, root, 'rlu_until') or at ~= '')
  local id_ttl = request and (c[7] and stored_int(c[7], 1, 31536000, root, 'vote_id_ttl') or 86400)
  local vote_log = c[8] and stored_int(c[8], 0, 1000000, root, 'vote_log') or 0
  local stats_keep = c[9] and stored_int(c[9], -1, 315360000, root, 'stats_keep')
  local buffered = c[12] == 'buffered'
  if start_at and now < start_at then fail('CAMPAIGN_CLOSED', 'the campaign starts at ' .. c[2]) end
  if end_at and now >= end_at then fail('CAMPAIGN_CLOSED', 'the campaign ended at ' .. c[3]) end

  -- Phase 2b, the pairs: every board's settings once (UNKNOWN_BOARD,
  -- INVALID_CONFIG), every option's weight (INVALID_NAME, UNKNOWN_OPTION).
  -- boards: board name -> settings; pairs_: { board, option, weight } in
  -- argument order; sided: a board keeps side keys (lib/order), first_ties:
  -- one has ties "first".
  local boards, pairs_, sided, first_ties = {}, {}, false, false
  for i = 7, #ARGV, 2 do
    local board, option = ARGV[i], ARGV[i + 1]
    check_name(option)
    local b = boards[board]
    if not b then
      b = board_settings(ns, board)
      boards[board] = b
      sided = sided or b.sides[1] ~= nil
      first_ties = first_ties or b.first
    end
    local weight = rcall('HGET', ns .. 'weights:' .. board, option)
    if not weight then fail('UNKNOWN_OPTION', 'board "' .. board .. '" has no option "' .. option .. '"') end
    weight = stored_int(weight, 1, 1000000, ns .. 'weights:' .. board, option)
    pairs_[#pairs_ + 1] = { board = board, option = option, weight = weight }
  end
  if #pairs_ > 1 then
    -- Bounded work (header): a batch's units, refused over CALL_WORK
    local work, nrules = 0, rules and #rules or 0
    for _, pair in ipairs(pairs_) do
      local b = boards[pair.board]
      local n = #b.periods
      -- real and shown of each period, and the carry into each next one
      local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
      work = work + 8 + entries * entry_work(b) + 4 * nrules
    end
    if work > CALL_WORK then
      fail('USAGE', 'campaign_vote: these ' .. #pairs_ .. ' pairs are ' .. work .. ' units of work, more than one call may do ('
        .. CALL_WORK .. '): send at most ' .. math.floor(CALL_WORK * #pairs_ / work) .. ' pairs of these boards a call')
    end
  end

  -- Phase 3, deny lists and rate limits (DENIED, RATE_LIMITED): before the
  -- first write, so a refused vote changes nothing and two concurrent votes
  -- cannot both take the last slot. checks: the limit checks to spend (nil
  -- without rules).
  if c[5] == '1' then
    if rcall('SISMEMBER', ns .. 'deny:users', user) == 1 then fail('DENIED', 'user "' .. user .. '" may not vote') end
    if channel ~= '' and rcall('SISMEMBER', ns .. 'deny:channels', channel) == 1 then
      fail('DENIED', 'channel "' .. channel .. '" may not vote')
    end
  end
  if vote_log > 0 then
    local t = rcall('TYPE', ns .. 'log').ok
    if t ~= 'none' and t ~= 'stream' then fail('INVALID_CONFIG', ns .. 'log is not a stream') end
  end
  local checks
  if rules then
    checks = limit_plan_(ns, rules, { user = user, channel = channel, device = device, legacy = legacy, layout = layout,
      periods_at = periods_at }, pairs_, cost, now, usec, offset, end_at)
    local refusal = limit_evaluate_(checks)
    if refusal then fail('RATE_LIMITED', cjson.encode(refusal)) end
  end

  local vote = { user = user, channel = channel, device = device, now = now, pairs = pairs_, periods_at = periods_at }
  local ctx = { ns = ns, boards = boards, offset = offset, stats_keep = stats_keep, sided = sided,
    first_ties = first_ties }
  if server_now then ctx.refuse = function(b, name, expiry) refuse_expired_(b, name, expiry, server_now) end end
  if buffered then
    return buffer_vote(root, ns, c, ctx, vote, { writers = writers, checks = checks, spend = limit_spend_, id = id,
      request = request,
      record = record_vote, id_ttl = id_ttl, vote_log = vote_log, server_ms = server_ms })
  end

  -- Phase 4, the writes planned (OUT_OF_RANGE) and every key they touch
  -- read and checked (lib/apply), before the first write.
  ctx.reply = true
  ctx.out_of_range = function(b, option, which, limit, scale)
    fail('OUT_OF_RANGE', 'option "' .. option .. '" of board "' .. b.name .. '" would leave the exact range (' .. which
      .. ': ' .. limit .. ' units of 10^-' .. scale .. ')')
  end
  local w = writers()
  local plan = w.apply_plan(ctx, { vote })

  -- Phase 5, validated: the writes start here (lib/apply), and the rate
  -- limits spent.
  w.apply_write(ctx, plan)
  if checks then limit_spend_(checks) end

  -- What the vote added (lib/void's object), for its vote-id record and
  -- the vote log.
  local info = (request or vote_log > 0) and vote_added(plan.order, pairs_, boards, vote, plan.buckets)
  if vote_log > 0 then info.l = log_vote(ns, vote_log, vote, id, info) end
  local reply = {}
  for n, pair in ipairs(pairs_) do
    local shown = vote.shown_at[n] -- period name, entry, ...: the entries' scores
    for i = 2, #shown, 2 do shown[i] = shown[i][11] end
    reply[n] = { pair.board, pair.option, shown }
  end
  if request then record_vote(ns, id, request, reply, id_ttl, info) end
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
