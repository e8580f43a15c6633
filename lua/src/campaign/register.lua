#!lua
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
--- @include "lib/args"
--- @include "lib/names"

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

--- @include "lib/epilogue"
