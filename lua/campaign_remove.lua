#!lua
-- GENERATED from lua/src/campaign/remove.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_remove: finish the removal of options from a board's period
  boards in bounded steps. campaign_configure's `remove` (campaign data
  layout 2) deletes an option's weight, display data, imported votes and
  participant counter at once (O(options)) and lists it in the board's
  pending set <ns>removing:B; its entries on the period boards listed in
  <ns>periods:B (real and shown) and their side keys (f:, o:, d: of
  lua/src/lib/order.lua) are what this script takes off. Until it is done,
  reads skip the pending options (lua/src/lib/ranks.lua) and configure
  refuses to add one of them again.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  cursor  <cursor>  "0" to start or go on; else the cursor the
             previous call returned
    ARGV[3]  count  <integer 1..10000>  units of work for this call (period
             boards x pending options), 1..10000; bounded work: at most 200
             a call, more is taken as 200

  Writes: ZREM of the pending options from <ns>b:B:KIND:P and their side
    keys <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P (lib/order's
    order_remove); ZREM from <ns>periods:B of expired boards and of boards
    the removal emptied; HSET <ns>board:B remove_cursor remove_prev; when
    done, DEL <ns>removing:B and HDEL of those two fields.

  Output: { entries removed by this call (option x period board), period
    boards finished by this call, next cursor ("0": the removal is done) }

  Keys: <ns>board:B, <ns>removing:B, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P

  Reply: {removed: integer, finished: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor), REDVOTE_INVALID_CURSOR (a
    cursor this removal did not hand out last), REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_BOARD, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.

  Batched, idempotent, safe under traffic: call with cursor "0", then again
  with the cursor each call returns, until it returns "0". Each call does
  at most `count` units of work: a unit is one (period board, pending
  option) pair (a ZSCORE, and for an option on the board its ZREM and its
  side keys'), or one expired period board left in the index; a board's
  options may span calls. The period boards are visited in the index's
  order. Votes may run meanwhile: they refuse the pending options
  (REDVOTE_UNKNOWN_OPTION), so no board visited gets one back, and a board
  created meanwhile never holds one. The call that visits the last listed
  board deletes <ns>removing:B: the removal is complete. The result equals
  what a one-call removal (redvote 0.5's, or layout 1's) leaves: the
  options gone from every period board and side key, index entries of
  expired boards and of boards the removal emptied gone. No removal
  pending: the first call answers done, writing nothing.

  The progress is kept in Redis, not trusted to the caller: each step
  that is not the last stores the cursor it hands out (`remove_cursor` of
  <ns>board:B) and the one it started from (`remove_prev`). A cursor is
  "0" or one of those two (the previous one: a resend of a step whose
  reply was lost); any other is refused, REDVOTE_INVALID_CURSOR, writing
  nothing, for a step from an unknown place could end the removal with
  the options still on boards. "0" goes on from the stored cursor (the
  beginning when there is none): a driver that crashed, or was refused,
  goes on with "0". A removal configured meanwhile counts up
  `remove_gen` of <ns>board:B: a cursor from before it (it carries the
  generation) starts from the beginning, as does one whose period board
  left the index. A step that empties a board goes on to the next: no
  state between two steps lists a board that does not exist, so `redvote
  campaign NAME check` finds every one of them clean.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
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

-- A cursor "GEN|P|AT" (gen: the remove_gen it was handed out under, P the
-- period board to go on with, AT its first option not visited): its parts,
-- or nil when it is not one.
local function cursor_parts(cursor)
  local gen, p, at = cursor:match('^(%d+)|([^|]+)|(%d+)$')
  if gen and (#gen > 15 or #at > 5) then gen = nil end
  if gen then return gen, p, tonumber(at) end
end

-- The cursor the step goes on from ("0": the beginning): "0" goes on from
-- the stored one (`handed`), any other must be it or the one its step
-- started from (`prev`: a resend of that step); anything else is refused
-- before the first write.
local function trusted_cursor(cursor, handed, prev, board_hash, board)
  for _, f in ipairs({ { 'remove_cursor', handed }, { 'remove_prev', prev } }) do
    local field, v = f[1], f[2]
    if v ~= '0' and not cursor_parts(v) then
      fail('INVALID_CONFIG', board_hash .. ' ' .. field .. ' is corrupt: "' .. v:sub(1, 40) .. '"')
    end
  end
  if cursor == '0' then return handed end
  if cursor ~= handed and cursor ~= prev then
    fail('INVALID_CURSOR', 'cursor "' .. cursor:sub(1, 80) .. '" is not one the removal from board "' .. board
      .. '" handed out last: send that one, or "0" to go on from where the removal stands')
  end
  return cursor
end

local function main()
  local _, ns = campaign_key('campaign_remove')
  argc('campaign_remove', 3, 3, 'board, cursor, count')
  local cursor = ARGV[2]
  local count = math.min(integer_arg(ARGV[3], 'count', 1, 10000), 200) -- bounded work (ARGV[3])
  if cursor ~= '0' and not cursor_parts(cursor) then
    fail('USAGE', 'cursor must be "0" or one campaign_remove returned, got "' .. cursor:sub(1, 80) .. '"')
  end
  local b = board_settings(ns, ARGV[1])
  local board_hash = ns .. 'board:' .. b.name
  local stored = rcall('HMGET', board_hash, 'remove_gen', 'remove_cursor', 'remove_prev')
  local remove_gen = stored[1] and stored_int(stored[1], 0, 999999999999999, board_hash, 'remove_gen') or 0
  local removing = ns .. 'removing:' .. b.name
  local options = rcall('SMEMBERS', removing)
  local index = ns .. 'periods:' .. b.name
  rcall('ZCARD', index) -- its type, before any write
  if #options == 0 then return { 0, 0, '0' } end
  table.sort(options)
  local start = trusted_cursor(cursor, stored[2] or '0', stored[3] or '0', board_hash, b.name)

  -- Where to go on: the period board and option of the cursor, unless a
  -- removal was configured since (remove_gen) or that board left the index.
  local gen, p, at
  if start ~= '0' then gen, p, at = cursor_parts(start) end
  local rank
  if gen and tonumber(gen) == remove_gen and at >= 1 and at <= #options then rank = rcall('ZRANK', index, p) end
  if not rank then rank, at, start = 0, 1, '0' end

  -- The boards this call may visit (each costs a unit at least: count + 1
  -- of them at most, the last one only as the next cursor), in one read of
  -- the index; then everything read (the boards' entries of the options,
  -- the side keys), then written.
  local listed = rcall('ZRANGE', index, rank, rank + count, 'WITHSCORES')
  local now = tonumber(rcall('TIME')[1])
  local dense, first = false, false
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then dense = true else first = true end
  end
  local steps, spent, finished, i = {}, 0, 0, 1
  p = listed[1]
  while p and spent < count do
    local step = { p = p, key = ns .. 'b:' .. b.name .. ':' .. p, present = {}, scores = {} }
    local expiry = tonumber(listed[i + 1])
    if expiry > 0 and expiry <= now then
      -- expired: it leaves the index (its keys are gone or going)
      step.expired = true
      spent = spent + 1
      step.last = true
    else
      local take = math.min(#options - at + 1, count - spent)
      local chunk = { unpack(options, at, at + take - 1) }
      local scores = rcall('ZMSCORE', step.key, unpack(chunk))
      for j, option in ipairs(chunk) do
        if scores[j] then
          step.present[#step.present + 1] = option
          step.scores[#step.scores + 1] = scores[j]
        end
      end
      if #step.present > 0 then
        local f = side_key(ns, 'f', step.key)
        if first then
          step.seqs = rcall('ZMSCORE', f, unpack(step.present))
          rcall('ZCARD', side_key(ns, 'o', step.key))
        else
          rcall('ZCARD', f)
        end
        if dense then rcall('ZCARD', side_key(ns, 'd', step.key)) end
      end
      spent = spent + take
      at = at + take
      step.last = at > #options
      -- a board this call empties holds none of the options left: it is
      -- done, and leaves the index now (never listed once gone)
      if not step.last and #step.present > 0 and rcall('ZCARD', step.key) == #step.present then step.last = true end
    end
    steps[#steps + 1] = step
    if step.last then
      finished = finished + 1
      i, at = i + 2, 1
      p = listed[i]
    end
  end

  -- validated: the writes start here; per board, what order_remove
  -- (lib/order) does for each option, in one command a key
  local removed = 0
  for _, s in ipairs(steps) do
    if #s.present > 0 then
      local key = s.key
      rcall('ZREM', key, unpack(s.present))
      if dense then
        local seen = {}
        for _, old in ipairs(s.scores) do
          if not seen[old] then
            seen[old] = true
            if rcall('ZCOUNT', key, old, old) == 0 then rcall('ZREMRANGEBYSCORE', side_key(ns, 'd', key), old, old) end
          end
        end
      end
      if first then
        local members = {}
        for j, option in ipairs(s.present) do members[j] = order_member(tonumber(s.seqs[j]), option) end
        rcall('ZREM', side_key(ns, 'o', key), unpack(members))
      end
      rcall('ZREM', side_key(ns, 'f', key), unpack(s.present))
      removed = removed + #s.present
    end
    -- a board expired, or emptied by the removal, leaves the index (as a
    -- one-call removal leaves it)
    if s.expired or (s.last and rcall('EXISTS', s.key) == 0) then rcall('ZREM', index, s.p) end
  end
  if not p then
    rcall('DEL', removing)
    rcall('HDEL', board_hash, 'remove_cursor', 'remove_prev')
    return { removed, finished, '0' }
  end
  local next_cursor = string.format('%d|%s|%d', remove_gen, p, at)
  rcall('HSET', board_hash, 'remove_cursor', next_cursor, 'remove_prev', start)
  return { removed, finished, next_cursor }
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
