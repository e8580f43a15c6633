#!lua flags=no-writes
--[[
  page: page N of the site's articles, best first, with every article's
  hash, id and score, in one call (the seeds pay 1 + 25 round trips).
  Read-only (also runs as EVALSHA_RO on a replica).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  order     "score" | "time" | "hot" | "best": the sorted set
                       <prefix><order>: to page through, highest first
    ARGV[2]  page      1-based page number, 1..1000000
    ARGV[3]  per_page  optional, 1..100 (default: the site's page_size, 25)

  Output: { total (members of the order set), per_page,
            { id, score (string), { field, value, ... } }, ... }
          where score is the article's score: value whatever the order.

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ORDER, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/site_args"

--- @include "lib/site_page"

local function main()
  local _, prefix = site_root('page', 2, 3, 'order, page [, per_page]')
  local order = ARGV[1]
  local page, per_page = page_args(prefix, order, ARGV[2], ARGV[3])
  return read_page(prefix, prefix .. order .. ':', page, per_page)
end

--- @include "lib/epilogue"
