#!lua
--[[
  group_page: page N of one group's articles, ordered by score, time, hot or
  best, in one call. The ordered group is the seeds' cache: the intersection
  of <prefix>group:NAME with <prefix><order>: stored under
  <prefix><order>:NAME for 60 seconds, built only when absent.

  The seeds intersect with AGGREGATE MAX and unit weights, which yields the
  order score only while it is >= 1; here the group set weighs 0 and the
  order set 1 (AGGREGATE MAX), which is the order score for every order whose
  scores are >= 0 (score, time, best, and hot after 2005).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  group     group name: 1..64 bytes, none of : { } * ? [ ] \ ,
                       spaces or control characters
    ARGV[2]  order     "score" | "time" | "hot" | "best"
    ARGV[3]  page      1-based page number, 1..1000000
    ARGV[4]  per_page  optional, 1..100 (default: the site's page_size, 25)

  Writes: ZINTERSTORE + EXPIRE 60 of <prefix><order>:NAME, when absent
    (deleted again when the page is refused: a key of the wrong type).

  Output: as page.lua: { total, per_page, { id, score, { field, value, ... } }, ... }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_GROUP, REDVOTE_INVALID_ORDER,
    REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/site_args"
--- @include "lib/site_group"

--- @include "lib/site_page"

local function main()
  local _, prefix = site_root('group_page', 3, 4, 'group, order, page [, per_page]')
  local group, order = ARGV[1], ARGV[2]
  check_group(group)
  local page, per_page = page_args(prefix, order, ARGV[3], ARGV[4])

  -- validated: the writes start here
  local set = prefix .. order .. ':' .. group
  local built = rcall('EXISTS', set) == 0
  if built then
    rcall('ZINTERSTORE', set, 2, prefix .. 'group:' .. group, prefix .. order .. ':',
      'WEIGHTS', 0, 1, 'AGGREGATE', 'MAX')
    rcall('EXPIRE', set, 60)
  end
  -- The page reads score: and its articles' hashes, which only the ordering
  -- names: when one is of the wrong type, the ordering just built is
  -- deleted again, so the refusal leaves the data set as it was.
  local ok, reply = pcall(read_page, prefix, set, page, per_page)
  if not ok then
    if built then rcall('DEL', set) end
    error(reply, 0)
  end
  return reply
end

--- @include "lib/epilogue"
