#!lua
-- GENERATED from lua/src/campaign/register.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  campaign_register: add campaign names to the campaign registry, the
  sorted set that lists the campaigns of a namespace family, so that the
  list (campaign_registry, the admin page, `redvote campaigns`) never scans
  the keyspace. campaign_configure cannot write it (on Redis Cluster the
  registry is in another slot than the campaign): the service and the CLI
  call this script after a successful configure; `redvote campaigns
  register --scan` registers the campaigns made before the registry.
  Idempotent: yes. A name already registered keeps its score (ZADD NX). It
  does not check that the campaign exists.

  Input:
    KEYS[1]  the registry "<family>campaigns": "{c}:campaigns" for the
             campaigns of the namespaces {c:NAME}: (its hash tag, c,
             is no campaign's)
    ARGV[1..]  names  <name, repeat 1..1000>  1..1000 campaign names, each
             1..64 bytes, none of : { } * ? [ ] \ , spaces or control
             characters

  Writes: ZADD NX on the registry: member the name, score the time of its first
    registration (server TIME, Unix milliseconds).

  Output: the number of names newly registered (0: all were already).

  Cost: O(k log N) for k names and N registered.

  Keys: none (the registry is the only key)

  Reply: integer

  Errors: REDVOTE_USAGE (another key, no name or more than 1000),
    REDVOTE_INVALID_NAME, REDVOTE_INVALID_CONFIG (a registry of the wrong
    type).
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

-- One call registers at most this many names.
local MAX_NAMES = 1000

local function main()
  local key = one_key('campaign_register', 'campaigns', 'campaign registry "<family>campaigns"')
  argc('campaign_register', 1, MAX_NAMES, '1..' .. MAX_NAMES .. ' campaign names')
  for i = 1, #ARGV do
    if not name_ok(ARGV[i]) then
      fail('INVALID_NAME', '"' .. ARGV[i]:sub(1, 80) .. '" is not a campaign name (1..64 bytes, none of colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters)')
    end
  end
  local t = rcall('TIME')
  local ms = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  local args = { 'ZADD', key, 'NX' }
  for i = 1, #ARGV do
    args[#args + 1] = ms
    args[#args + 1] = ARGV[i]
  end
  -- validated: the one write (a registry of the wrong type fails it whole)
  return rcall(unpack(args))
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
