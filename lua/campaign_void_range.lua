#!lua
-- GENERATED from lua/src/campaign/void_range.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_void_range: an admin voids the votes of one user or one channel
  logged in a time range, in bounded steps: each call reads at most `count`
  entries of the capped vote log <ns>log (campaigns with vote_log > 0;
  see campaign_configure) from the cursor on, voids those of the user or
  channel, and answers the cursor to call again with ("0": done). Voiding
  is campaign_void's (lib/void): what each vote added is subtracted from
  every period board it wrote, atomically per call, and counted as voided
  in the statistics. A voided vote's entry leaves the log (XDEL), so no
  vote is voided twice: a vote voided by its id (campaign_void) left it
  then, and one voided here marks its vote-id record voided when the
  record still lives. The range is the time each vote was logged, the
  entry's id (the server's clock, milliseconds): a vote's own time but on
  the test/import path (an explicit time). Rate limits are not given back.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  by  <enum(user|channel)>  user or channel
    ARGV[2]  value  <text 1..256>  the user (1..256 bytes) or the channel (a
             name)
    ARGV[3]  from  <integer 0..253402300799>  Unix seconds: entries logged from
             then on
    ARGV[4]  to  <integer 0..253402300799>  Unix seconds, after from: entries
             logged before then
    ARGV[5]  cursor  <cursor>  "0" to start, then the cursor the last call
             answered
    ARGV[6]  count  <integer 1..1000>  entries read a call, 1..1000; bounded
             work: at most 100 a call (each voids a vote), more is taken as 100

  Keys written: as campaign_void, for each vote voided; <ns>log (XDEL).

  Output: { votes voided, entries read that were not the user's or
    channel's, the next cursor ("0": the range is done) }.

  Keys: <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>seq, <ns>vid:ID, <ns>st:B:P,
    <ns>sp:P, <ns>sn:P, <ns>log, <ns>removed:B, <ns>initial:B

  Reply: {voided: integer, skipped: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION, REDVOTE_UNFOLDED,
    REDVOTE_UNKNOWN_BOARD.
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
-- void: taking back what votes added (campaign_void, campaign_void_range).
-- A vote with an id (in <ns>vid:ID, as the record's third element) and a
-- vote in the capped vote log (<ns>log, field a) keep what they added, as
-- the JSON object
--   { t = time, u = user, c = channel, d = device,
--     h = its hour bucket, dy = its day bucket (lib/stats),
--     e = { { board, "real:P" / "shown:P", option, amount }, ... }: every
--         period board entry the vote wrote (carry included), the amount
--         a decimal text ("1" on real boards, the board's decimals on
--         shown ones),
--     s = { { board, weight [, gen] }, ... }: its pairs, for the
--         statistics, gen the board's remove_gen when the vote was cast
--         (absent: 0),
--     l = its entry in <ns>log (a vote logged), i = its vote id (in the
--         log), v = when it was voided (set by the void) }
-- or, for a buffered vote, the compact object: t, s and x = { { option,
-- board stamp }, ... } for each pair of s, from which void_expand plans
-- its entries again and names its buckets (with the stamp's offset); no
-- e, and no u, c, d, h or dy (records of 0.6's first buffered votes have
-- them).
-- every number as text. Voiding subtracts each amount from its board,
-- restoring the score the member would have without the vote: a real
-- count brought to 0 leaves the board (only votes write real boards); a
-- shown score leaves it only at 0 and when nothing but votes can have
-- made it (the option has no imported votes: votes and carries only add),
-- else it keeps the score, 0 or below included (an import may have
-- lowered it); a member that leaves takes its side keys along, as option
-- removal does, and a board so emptied leaves <ns>periods:B. It keeps the
-- tie rules' side keys (lib/order: the member's new score counts as
-- reached at the void's sequence number, as a vote's would), and counts
-- the pairs in their buckets' `voided` and `voided_amount` (lib/stats).
-- Boards, members and buckets gone since (expired, removed) are skipped,
-- and so is an option removed since the vote and configured again: the
-- board's remove_gen then is above the vote's gen, and <ns>removed:B
-- (campaign_configure) records, for each option removed, the remove_gen
-- of its last removal. Participants (HyperLogLogs) and rate limits are
-- not taken back. Needs rcall, fail (lib/prologue), name_ok (lib/names),
-- board_settings (lib/board), stored_int (lib/stored), units_of,
-- decimal_text (lib/exact), order_read, order_write, order_remove
-- (lib/order), stats_int, stats_buckets (lib/stats).

-- The longest text of a record that is not a name (a time, a bucket, a
-- period board's member, an amount, a log entry id): names are name_ok's.
local VOID_TEXT_MAX = 64

local function void_text(v, pattern)
  return type(v) == 'string' and #v <= VOID_TEXT_MAX and v:find(pattern) ~= nil
end

-- Whether `info` is such an object (what the vote wrote: no entry can
-- address a key outside the board's keys).
local function void_info_ok(info)
  if type(info) ~= 'table' or type(info.s) ~= 'table' or #info.s == 0 or #info.s > 50 then return false end
  if info.x ~= nil then
    -- a buffered vote's compact object: each pair's option and board stamp
    if type(info.x) ~= 'table' or #info.x ~= #info.s or info.e ~= nil then return false end
    for _, x in ipairs(info.x) do
      if type(x) ~= 'table' or not name_ok(x[1]) or type(x[2]) ~= 'string' or #x[2] > 200 then return false end
    end
    info.e = {}
  elseif type(info.e) ~= 'table' or #info.e == 0 or #info.e > 1000 then
    return false
  end
  -- a compact object may name no buckets, nor the voter: void_expand
  -- names the buckets (a voided record keeps them), and nothing reads the
  -- voter
  local compact = info.x ~= nil
  local function absent_or(ok, v) return (compact and v == nil) or ok end
  if not (absent_or(void_text(info.h, '^hour:%d%d%d%d%-%d%d%-%d%dT%d%d$'), info.h)
    and absent_or(void_text(info.dy, '^day:%d%d%d%d%-%d%d%-%d%d$'), info.dy)
    and absent_or(type(info.u) == 'string', info.u) and absent_or(type(info.c) == 'string', info.c)
    and absent_or(type(info.d) == 'string', info.d)
    and void_text(info.t, '^%d+$') and (info.l == nil or void_text(info.l, '^%d+%-%d+$'))) then
    return false
  end
  if compact and (info.h == nil) ~= (info.dy == nil) then return false end
  -- the stamp's offset names the buckets (void_expand): a campaign's
  if compact then
    local offset = tonumber(info.x[1][2]:match('|(%-?%d+)$') or '')
    if not offset or offset < -50400 or offset > 50400 or offset % 60 ~= 0 then return false end
  end
  for _, e in ipairs(info.e) do
    if type(e) ~= 'table' or not name_ok(e[1]) or not name_ok(e[3])
      or not (void_text(e[2], '^real:[%w:%-]+$') or void_text(e[2], '^shown:[%w:%-]+$'))
      or not (void_text(e[4], '^%d+$') or void_text(e[4], '^%d+%.%d+$')) then
      return false
    end
  end
  for _, s in ipairs(info.s) do
    if type(s) ~= 'table' or not name_ok(s[1]) or not void_text(s[2], '^%d+$')
      or (s[3] ~= nil and not (void_text(s[3], '^%d+$') and #s[3] <= 15)) then
      return false
    end
  end
  return true
end

-- A buffered vote's compact object (void_info_ok) given its entries (e),
-- planned again (lib/entries) on the boards' settings now: a pair whose
-- board's periods, carry or decimals, or the campaign's offset, changed
-- since the vote (its stamp differs, lib/board_stamp) is left out. Names
-- its statistics buckets (h, dy) when it does not: in the offset of its
-- stamp, the campaign's when the vote was accepted. Returns how many pairs
-- it left out. Nothing to do for a full object.
local function void_expand(ns, info, offset)
  if not info.x then return 0 end
  if not info.h then
    local names = stats_buckets(tonumber(info.t), tonumber(info.x[1][2]:match('|(%-?%d+)$')))
    info.h, info.dy = names.hour[1], names.day[1]
  end
  local e, left_out = {}, 0
  for i, x in ipairs(info.x) do
    local board = info.s[i][1]
    local b = rcall('EXISTS', ns .. 'board:' .. board) == 1 and board_settings(ns, board)
    if b and board_stamp(b, offset) == x[2] then
      local vote = { now = tonumber(info.t), pairs = { { board = board, option = x[1], weight = tonumber(info.s[i][2]) } } }
      for _, en in ipairs(planned_entries({ ns = ns, boards = { [board] = b }, offset = offset }, { vote }).order) do
        e[#e + 1] = { board, en[8], x[1], en[4] and decimal_text(en[9], en[4]) or string.format('%.0f', en[9]) }
      end
    else
      left_out = left_out + 1
    end
  end
  info.e = e
  return left_out
end

-- The remove_gen each board had when the vote `info` was cast (0: none
-- recorded, a vote of before any removal, or of a redvote that kept none).
local function void_gens(info)
  local gens = {}
  for _, s in ipairs(info.s) do gens[s[1]] = tonumber(s[3] or '0') end
  return gens
end

-- Whether `option` of board `b` (board_settings) was removed after a vote
-- cast at the board's remove_gen `gen`: a re-configured option of that
-- name is another member than the one the vote counted. `removed` caches
-- the reads of <ns>removed:B (nothing is read while no removal came since).
local function void_removed_since(ns, b, option, gen, removed)
  if b.remove_gen <= gen then return false end
  local id = b.name .. '\0' .. option
  local at = removed[id]
  if at == nil then
    local key = ns .. 'removed:' .. b.name
    local v = rcall('HGET', key, option)
    at = v and stored_int(v, 1, 999999999999999, key, option) or 0
    removed[id] = at
  end
  return at > gen
end

-- Whether `option` of `board` has imported votes (a field of
-- <ns>initial:B, campaign_import): imports may lower a shown score, so a
-- 0 left on a shown board may be theirs. `imported` caches the reads.
local function void_imported(ns, board, option, imported)
  local id = board .. '\0' .. option
  if imported[id] == nil then imported[id] = rcall('HEXISTS', ns .. 'initial:' .. board, option) == 1 end
  return imported[id]
end

-- Before the first write: what voiding the votes `infos` (checked by
-- void_info_ok) changes, merged (two votes on one member are one
-- subtraction), every key read and checked. Returns the plan void_write
-- takes.
local function void_plan(ns, infos)
  local boards, plan, order, stats, stats_order, removed, imported = {}, {}, {}, {}, {}, {}, {}
  local skipped = 0
  for _, info in ipairs(infos) do
    local gens = void_gens(info)
    for _, e in ipairs(info.e) do
      local board, which, option = e[1], e[2], e[3]
      local b = boards[board]
      if b == nil then
        b = rcall('EXISTS', ns .. 'board:' .. board) == 1 and board_settings(ns, board) or false
        boards[board] = b
      end
      local p
      if b and not void_removed_since(ns, b, option, gens[board] or 0, removed) then
        local key = ns .. 'b:' .. board .. ':' .. which
        local id = key .. '\0' .. option
        p = plan[id]
        if not p then
          local scale = which:sub(1, 6) == 'shown:' and b.decimals or 0
          local old = rcall('ZSCORE', key, option)
          p = { key = key, b = b, option = option, old = old, scale = scale, sub = 0,
            real = which:sub(1, 5) == 'real:', which = which }
          if old then
            p.units = units_of(old, scale)
            if b.sides[1] then
              p.st = order_read(ns, b, key, option)
              local expiry = tonumber(rcall('ZSCORE', ns .. 'periods:' .. board, which))
              p.expiry = expiry and expiry > 0 and expiry or nil
            end
            order[#order + 1] = p
          end
          plan[id] = p
        end
        if p.old then
          p.sub = p.sub + units_of(e[4], p.scale)
        end
      end
      if not (p and p.old) then skipped = skipped + 1 end
    end
    for _, s in ipairs(info.s) do
      for _, bucket in ipairs({ info.h, info.dy }) do
        local key = ns .. 'st:' .. s[1] .. ':' .. bucket
        local t = stats[key]
        if not t then
          local h = rcall('HMGET', key, 'votes', 'voided', 'voided_amount')
          t = { key = key, live = h[1] ~= false and h[1] ~= nil, n = 0, amount = 0 }
          stats_int(h[2], key, 'voided'); stats_int(h[3], key, 'voided_amount')
          stats[key] = t
          stats_order[#stats_order + 1] = t
        end
        t.n = t.n + 1
        t.amount = t.amount + tonumber(s[2])
      end
    end
  end
  local first = false
  for _, p in ipairs(order) do
    first = first or p.b.first
    -- a shown score brought to 0: the option's imports may have made it
    if not p.real and p.units == p.sub then
      p.imported = void_imported(ns, p.b.name, p.option, imported)
    end
  end
  if first then stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value') end
  return { order = order, stats = stats_order, first = first, skipped = skipped }
end

-- The writes of a plan from void_plan. Returns how many board entries
-- changed.
local function void_write(ns, plan)
  local seq = 0
  local n = #plan.order
  if plan.first then seq = rcall('INCRBY', ns .. 'seq', n) - n end
  for i, p in ipairs(plan.order) do
    local left = p.units - p.sub
    -- gone without the vote: no count left on a real board; on a shown
    -- one nothing left that an import may have made (see above)
    if (p.real and left <= 0) or (not p.real and left == 0 and not p.imported) then
      order_remove(ns, p.b, p.key, p.option)
      -- a board emptied is gone: unlisted, as option removal does (a
      -- board that exists stays listed)
      if rcall('EXISTS', p.key) == 0 then rcall('ZREM', ns .. 'periods:' .. p.b.name, p.which) end
    else
      local text = p.real and string.format('%.0f', left) or decimal_text(left, p.scale)
      rcall('ZADD', p.key, text, p.option)
      if p.st then order_write(ns, p.b, p.key, p.option, p.old, text, p.st, seq + i, p.expiry) end
    end
  end
  for _, t in ipairs(plan.stats) do
    if t.live then
      rcall('HINCRBY', t.key, 'voided', t.n)
      rcall('HINCRBY', t.key, 'voided_amount', t.amount)
    end
  end
  return n
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
-- fold_all: the calls that change a campaign's settings or take votes back
-- (campaign_configure, campaign_void, campaign_void_range) fold a buffered
-- campaign's votes first, in the same call, so that each counts with the
-- settings it was accepted under and a void finds it on the boards.
-- Needs rcall, fail (lib/prologue), fold_buffer, fold_settings, FOLD_VOTES
-- (lib/fold).

-- Before a call that changes settings or takes votes back: fold every
-- vote a buffered campaign holds (nothing on an immediate one), or refuse
-- REDVOTE_UNFOLDED before any write when they are more than one call
-- folds. Call it after the caller's own checks and before its first
-- write. Returns whether it folded any vote (the caller's reads since are
-- then stale).
local function fold_all(root, ns)
  local c = rcall('HMGET', root, 'mode', 'offset', 'stats_keep', 'fold_ms')
  if c[1] ~= 'buffered' then return false end
  table.remove(c, 1)
  local t = rcall('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local folded = fold_buffer(root, ns, fold_settings(root, c), FOLD_VOTES, true, now_ms)
  if not folded then
    fail('UNFOLDED', (rcall('HGET', root, 'buffered') or '?') .. ' buffered votes are more than one call folds: fold them first'
      .. ' (campaign_fold), then send this again')
  end
  return folded > 0
end

local function main()
  local root, ns = campaign_key('campaign_void_range')
  argc('campaign_void_range', 6, 6, 'by (user or channel), value, from, to, cursor, count')
  local by, value, cursor = ARGV[1], ARGV[2], ARGV[5]
  local field
  if by == 'user' then
    check_user(value)
    field = 'u'
  elseif by == 'channel' then
    check_name(value)
    field = 'c'
  else
    fail('USAGE', 'campaign_void_range voids by user or channel, got "' .. by:sub(1, 40) .. '"')
  end
  local from = integer_arg(ARGV[3], 'from', 0, 253402300799)
  local to = integer_arg(ARGV[4], 'to', 0, 253402300799)
  if to <= from then fail('INVALID_NUMBER', 'to must be after from') end
  if cursor ~= '0' and not (#cursor <= 41 and cursor:find('^%d+%-%d+$')) then
    fail('INVALID_NUMBER', 'cursor must be "0" or the cursor a call answered, got "' .. cursor:sub(1, 80) .. '"')
  end
  local count = math.min(integer_arg(ARGV[6], 'count', 1, 1000), 100) -- bounded work
  local offset = campaign_offset(root)
  local log = ns .. 'log'
  local t = rcall('TYPE', log).ok
  if t == 'none' then return { 0, 0, '0' } end
  if t ~= 'stream' then fail('INVALID_CONFIG', log .. ' is not a stream') end
  local start = cursor == '0' and string.format('%.0f', from * 1000) or '(' .. cursor
  local entries = rcall('XRANGE', log, start, string.format('%.0f', to * 1000 - 1), 'COUNT', count)

  local infos, ids, records, others = {}, {}, {}, 0
  for _, entry in ipairs(entries) do
    local f = {}
    local fields = entry[2]
    for j = 1, #fields, 2 do f[fields[j]] = fields[j + 1] end
    if f[field] ~= value then
      others = others + 1
    else
      local ok, info = pcall(cjson.decode, f.a or '')
      if not ok or not void_info_ok(info) then fail('INVALID_CONFIG', log .. ' entry ' .. entry[1] .. ' is not a vote') end
      info.l = entry[1]
      void_expand(ns, info, offset)
      local voided = false
      local vid = f.i
      if vid and vid ~= '' and #vid <= 128 and not vid:find('%c') then
        -- the vote's id record, if it still lives and is this vote's (an id
        -- may be used again once its record expired)
        local key = ns .. 'vid:' .. vid
        local stored = rcall('GET', key)
        local rok, record = pcall(cjson.decode, stored or '')
        if rok and type(record) == 'table' and type(record[3]) == 'table' and record[3].l == entry[1] then
          voided = record[3].v ~= nil
          if not voided then records[#records + 1] = { key, record } end
        end
      end
      ids[#ids + 1] = entry[1]
      if not voided then infos[#infos + 1] = info end
    end
  end
  local plan = void_plan(ns, infos)
  -- a buffered campaign's votes on the boards first (lib/fold): one still
  -- buffered is then voided as a folded one. Planned (and so every stored
  -- value checked) before the fold's writes, and again after them.
  if fold_all(root, ns) then plan = void_plan(ns, infos) end

  -- validated: the writes start here
  local now = rcall('TIME')[1]
  if #infos > 0 then void_write(ns, plan) end
  for _, r in ipairs(records) do
    r[2][3].v = now
    rcall('SET', r[1], cjson.encode(r[2]), 'KEEPTTL')
  end
  for i = 1, #ids, 500 do rcall('XDEL', log, unpack(ids, i, math.min(i + 499, #ids))) end
  local next_cursor = #entries == count and entries[#entries][1] or '0'
  return { #infos, others, next_cursor }
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
