#!lua
-- GENERATED from lua/src/campaign/upgrade.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_upgrade: move a campaign's data layout forward to the last this
  version writes (lib/layout, docs/versions.md), in bounded steps.

  A campaign configured by redvote 0.5 or before has no `layout` field:
  layout 1. These scripts read and write it as it is, beside redvote 0.5's
  (the rolling deploy), but refuse what 0.5's writers would break: a vote
  log, and a tie switch on a board with votes. Once no client runs 0.5,
  the upgrade records the last layout, and from then on every script of a
  later version checks it. From 1 to 2 no stored value changes form. Layout 3 keeps the per-user counters of fixed-window rate limits
  in bucketed hashes <ns>rlb:RULE:WINDOW:N instead of the voters' hashes
  <ns>rlu:USER (lib/limits); nothing is moved: the call records
  `rlu_until`, 32 days after the server's clock (past the end of every
  window in flight, a month included), and until then (on the explicit
  clock of the test and import path: always) every vote, peek and reset
  also reads (and a reset deletes) the voter's former counter of the same
  window in its hash, so a voter at a limit before the upgrade stays
  refused after it (docs/versions.md). One call does it too; later layouts
  may need several: call with cursor "0", then again with the cursor each
  call returns, until it returns "0". Each call does at most `count` units
  of work. Upgrading a campaign already at the last layout writes nothing
  and answers done.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  cursor  <cursor>  "0" to start; else the cursor the previous call
             returned
    ARGV[2]  count  <integer 1..5000>  units of work in this call, 1..5000

  Writes: HSET <ns>campaign layout (the call that finishes) and, from
    layout 1 or 2, rlu_until (Unix seconds).

  Output: { the layout before this call, the layout after it, next cursor
    ("0": done) }

  Keys: <ns>campaign

  Reply: {from: integer, to: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor), REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_LAYOUT_VERSION, REDVOTE_INVALID_CONFIG.
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

local function main()
  local root, _, from = campaign_key('campaign_upgrade')
  argc('campaign_upgrade', 2, 2, 'cursor, count')
  if ARGV[1] ~= '0' then
    fail('USAGE', 'cursor must be "0" or one campaign_upgrade returned, got "' .. ARGV[1]:sub(1, 80) .. '"')
  end
  integer_arg(ARGV[2], 'count', 1, 5000)
  if rcall('EXISTS', root) == 0 then unknown_campaign(root) end
  local to = math.max(from, CAMPAIGN_LAYOUT_IMMEDIATE)

  -- validated: the writes start here
  if from < to then
    -- the voters' hashes' fixed counters count until every window in
    -- flight has ended (a month is at most 31 days, plus the offset)
    local rlu_until = tonumber(rcall('TIME')[1]) + 32 * 86400
    rcall('HSET', root, 'layout', to, 'rlu_until', rlu_until)
  end
  return { from, to, '0' }
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
