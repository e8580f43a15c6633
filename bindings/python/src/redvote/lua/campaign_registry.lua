#!lua flags=no-writes
-- GENERATED from lua/src/campaign/registry.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_registry: one page of the campaign registry (campaign_register),
  oldest registration first: the campaigns of a namespace family listed in
  O(log N + count), whatever else the database holds. Read-only (flagged
  no-writes: it runs on a replica).

  The cursor is the rank of the page's first name. Names are only ever
  added, each with the time of its registration, so a name registered
  while a listing runs sorts after every name already there: a listing
  from "0" to the end sees every name registered before it started, once
  (a server clock stepping back, e.g. after a failover, may make a name
  registered meanwhile show twice, never one skipped). A name removed by
  hand (ZREM) while a listing runs may make it skip one.

  Input:
    KEYS[1]  the registry "<family>campaigns" ("{c}:campaigns")
    ARGV[1]  cursor  <cursor>  "0" first, then the previous page's next
             (0..999999999999)
    ARGV[2]  count  <integer 1..1000>  names a page, 1..1000

  Output: { next, total, name, ... }: next the cursor of the next page (0:
    this page is the last), total the number of names registered, then the
    page's names in registration order.

  Cost: O(log N + count): ZCARD, ZRANGE by rank.

  Keys: none (the registry is the only key)

  Reply: {next: integer, total: integer, string...}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG
    (a registry of the wrong type).
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

local function main()
  local key = one_key('campaign_registry', 'campaigns', 'campaign registry "<family>campaigns"')
  argc('campaign_registry', 2, 2, 'cursor, count')
  local cursor = integer_arg(ARGV[1], 'cursor', 0, 999999999999, 'an integer >= 0 (0 first, then next)')
  local count = integer_arg(ARGV[2], 'count', 1, 1000)
  local total = rcall('ZCARD', key)
  local names = rcall('ZRANGE', key, cursor, cursor + count - 1)
  local next = cursor + #names
  if #names < count or next >= total then next = 0 end
  local reply = { next, total }
  for i = 1, #names do reply[#reply + 1] = names[i] end
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
