#!lua flags=no-writes
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
--- @include "lib/args"
--- @include "lib/integer_arg"

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

--- @include "lib/epilogue"
