#!lua flags=no-writes
--[[
  page: the articles on page N of the site, best first: the first of a
  page's two round trips (the seeds pay 1 + 25). The driver then reads the
  members' hashes in one MULTI / HGETALL <prefix>article:ID ... / EXEC
  (ZMSCORE <prefix>score: first when it wants scores): reading 25 hashes
  inside a script cost the server several times the seeds' flow, because
  Redis converts every value a script reads or answers between RESP and
  Lua.
  Read-only (also runs as EVALSHA_RO on a replica).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  order  <enum(score|time|hot|best)>  "score" | "time" | "hot" |
             "best": the sorted set <prefix><order>: to page through, highest
             first
    ARGV[2]  page  <integer 1..1000000>  1-based page number, 1..1000000
    ARGV[3]  per_page  <integer 1..100, optional, default page_size>  1..100
             (default: the site's page_size, 25)

  Output: { total (members of the order set), per_page, members, n }
          members: the page's n members, highest first, joined by spaces
          in one string ("article:9 article:4 ...", no prefix; "" past the
          end). One string, not n: cheaper for Redis and the client.

  Keys: <prefix>redvote:config, <prefix><order>:

  Reply: {total: integer, per_page: integer, members: string, n: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ORDER, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/site_args"

--- @include "lib/site_page"

local function main()
  local _, prefix = site_root('page', 2, 3, 'order, page [, per_page]')
  local order = ARGV[1]
  local page, per_page = page_args(prefix, order, ARGV[2], ARGV[3])
  return read_page(prefix .. order .. ':', page, per_page)
end

--- @include "lib/epilogue"
