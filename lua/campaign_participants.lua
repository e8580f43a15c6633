#!lua
-- GENERATED from lua/src/campaign/participants.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_participants: unique participants (HyperLogLog PFCOUNT, about
  0.81% standard error) of options of one board and of the whole campaign.
  Reads only, but is not flagged no-writes: Redis counts PFCOUNT as a write
  (it caches the cardinality inside the HyperLogLog).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2..]  options  <name, repeat 0..100>  (0..100)

  Output: { campaign participants, { option, participants }, ... }

  Keys: <ns>board:B, <ns>weights:B, <ns>hll:B:O, <ns>hll

  Reply: {campaign: integer, {option: string, participants: integer}...}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION, REDVOTE_INVALID_CONFIG,
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
-- option: whether a board has an option (a weight in <ns>weights:B). Needs
-- rcall and fail (lib/prologue).

-- Refuses an option the board has no weight for: REDVOTE_UNKNOWN_OPTION.
local function check_option(ns, board, option)
  if rcall('HEXISTS', ns .. 'weights:' .. board, option) == 0 then
    fail('UNKNOWN_OPTION', 'board "' .. board .. '" has no option "' .. option .. '"')
  end
end

local function main()
  local root, ns = campaign_key('campaign_participants')
  argc('campaign_participants', 1, 101, 'board, then 0..100 options')
  campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  for i = 2, #ARGV do
    check_name(ARGV[i])
    check_option(ns, b.name, ARGV[i])
  end
  -- PFCOUNT may write (it caches the count inside the HLL): every
  -- HyperLogLog is read first, so that a key of the wrong type or a string
  -- that is not one is refused before the first PFCOUNT.
  local hlls = { ns .. 'hll' }
  for i = 2, #ARGV do hlls[i] = ns .. 'hll:' .. b.name .. ':' .. ARGV[i] end
  for _, key in ipairs(hlls) do
    local magic = rcall('GETRANGE', key, '0', '3')
    if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', key .. ' is not a HyperLogLog') end
  end

  -- validated: PFCOUNT may write
  local reply = { rcall('PFCOUNT', hlls[1]) }
  for i = 2, #ARGV do
    reply[#reply + 1] = { ARGV[i], rcall('PFCOUNT', hlls[i]) }
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
