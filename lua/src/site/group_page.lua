#!lua
--[[
  group_page: the articles on page N of one group, ordered by score, time,
  hot or best: the first of a page's two round trips, as page.lua. The
  ordered group is the seeds' cache: the intersection of <prefix>group:NAME
  with <prefix><order>: stored under <prefix><order>:NAME for 60 seconds,
  built only when absent.

  The seeds intersect with AGGREGATE MAX and unit weights, which yields the
  order score only while it is >= 1; here the group set weighs 0 and the
  order set 1 (AGGREGATE MAX), which is the order score for every order whose
  scores are >= 0 (score, time, best, and hot after 2005).

  That is site layout 1 (the seeds' data, docs/versions.md): O(group size)
  a minute, 6 s for a group of 300,000. On layout 2 the group's board
  <prefix>gboard:<order>:NAME is kept up to date by the writers
  (lib/site_boards) and read directly: O(log N + page), nothing written.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  group  <group>  group name: 1..64 bytes, none of : { } * ? [ ] \ ,
             spaces or control characters
    ARGV[2]  order  <enum(score|time|hot|best)>  "score" | "time" | "hot" |
             "best"
    ARGV[3]  page  <integer 1..1000000>  1-based page number, 1..1000000
    ARGV[4]  per_page  <integer 1..100, optional, default page_size>  1..100
             (default: the site's page_size, 25)

  Writes: on layout 1, ZINTERSTORE + EXPIRE 60 of <prefix><order>:NAME,
    when absent; on layout 2 nothing.

  Output: as page.lua, and whether this call built the ordering:
          { total, per_page, members, n, built (1 or 0; always 0 on
          layout 2) }
          (the driver deletes an ordering it built when the page is then
          refused: an article hash of the wrong type).

  Keys: <prefix>redvote:config, <prefix>group:NAME, <prefix><order>:,
    <prefix><order>:NAME, <prefix>gboard:<order>:NAME, <prefix>article:ID

  Reply: {total: integer, per_page: integer, members: string, n: integer,
    built: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_GROUP, REDVOTE_INVALID_ORDER,
    REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/site_args"
--- @include "lib/site_group"

--- @include "lib/site_page"

local function main()
  local _, prefix, layout = site_root('group_page', 3, 4, 'group, order, page [, per_page]')
  local group, order = ARGV[1], ARGV[2]
  check_group(group)
  local page, per_page = page_args(prefix, order, ARGV[3], ARGV[4])
  if layout == 2 then
    -- the group's board, kept by the writers (lib/site_boards)
    local reply = read_page(prefix .. 'gboard:' .. order .. ':' .. group, page, per_page)
    reply[5] = 0
    return reply
  end

  -- validated: the writes start here
  local set = prefix .. order .. ':' .. group
  local built = rcall('EXISTS', set) == 0
  if built then
    rcall('ZINTERSTORE', set, 2, prefix .. 'group:' .. group, prefix .. order .. ':',
      'WEIGHTS', 0, 1, 'AGGREGATE', 'MAX')
    rcall('EXPIRE', set, 60)
  end
  local reply = read_page(set, page, per_page)
  reply[5] = built and 1 or 0
  return reply
end

--- @include "lib/epilogue"
