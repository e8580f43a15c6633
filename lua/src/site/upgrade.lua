#!lua
--[[
  upgrade: move a site from data layout 1 (the seeds' groups: a group page
  rebuilds the group's ordering with ZINTERSTORE, cached 60 s) to layout 2
  (each group's boards kept up to date by the writers, a group page read in
  O(log N + page); docs/versions.md, docs/layout.md), in bounded steps.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  cursor  <cursor>  "0" to start; else the cursor the previous call
             returned
    ARGV[2]  count  <integer 1..5000>  keys or members visited in this call,
             1..5000; bounded work: a call visits at most 1000 keys or 25
             members (a member costs about 30-45 microseconds on a
             1M-article site), more is taken as that

  Writes: HSET <prefix>redvote:config layout_next 2 (the first call);
    ZADD <prefix>upgrade:groups; SET <prefix>upgrade:scanned (the scan's
    last call; a call with cursor "0" deletes it); SADD <prefix>groups:ID; ZADD
    <prefix>gboard:<order>:NAME; the last call: HSET layout 2, HDEL
    layout_next, DEL <prefix>upgrade:groups, <prefix>upgrade:scanned.

  Output: { the layout before this call, the layout after the upgrade (2),
    next cursor ("0": done) }

  Keys: <prefix>redvote:config, <prefix>group:NAME, <prefix>upgrade:groups,
    <prefix>upgrade:scanned,
    <prefix>groups:ID, <prefix>score:, <prefix>time:, <prefix>hot:,
    <prefix>best:, <prefix>gboard:score:NAME, <prefix>gboard:time:NAME,
    <prefix>gboard:hot:NAME, <prefix>gboard:best:NAME

  Reply: {from: integer, to: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor, or one of no upgrade under
    way), REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_GROUP (an article in more
    than 100 groups, the most layout 2 keeps), REDVOTE_INVALID_CONFIG (a key
    of the wrong type), REDVOTE_LAYOUT_VERSION.

  How it works.

  Call with cursor "0", then again with the cursor each call returns, until
  it returns "0". The first call records the upgrade as under way (field
  `layout_next` 2 of <prefix>redvote:config); from then on every writer
  keeps what the upgrade builds (lib/site_boards): groups.lua adds and
  removes the article in the reverse index and the boards, vote.lua and
  rerank.lua move the boards of the groups in the article's reverse index.
  The upgrade then (1) lists the groups: SCAN pages of the keyspace, MATCH
  <prefix>group:*, about `count` keys a call, each name of a set saved in
  <prefix>upgrade:groups, and when the scan is complete <prefix>upgrade:scanned
  is set (a cursor of phase 2 is refused without it, so a hand-made cursor
  cannot skip the scan); (2) indexes them, group after group in name
  order, by SSCAN pages of about `count` members a call: each member joins
  <prefix>groups:ID and the group's boards with its scores as they are at
  that call. A member the SSCAN misses joined the group after the scan
  passed it, through groups.lua, which indexed it itself; one that left
  was taken out by groups.lua; a vote after the member was indexed moved
  its boards. The call that finishes records layout 2, removes
  `layout_next` and deletes <prefix>upgrade:groups and :scanned. Calling again, or on a
  site at layout 2, writes nothing and answers done; a call with cursor "0"
  restarts (what was built stays right).

  Why SCAN inside a script: layout 1 keeps no list of the groups; the only
  way to find them is the keyspace. SCAN and SSCAN here are paged (COUNT
  `count`), so each call is bounded; a script sees only its own node, which
  on Redis Cluster holds the site's whole slot (its prefix's hash tag), and
  SCAN with MATCH there walks that node's keys: the number of calls grows
  with the node's key count (about keys / count), each call stays short.
  Run it once no client older than this version writes the site (0.5's
  scripts do not keep the boards).
]]
--- @include "lib/integer_arg"
--- @include "lib/names"
--- @include "lib/site_args"
--- @include "lib/site_config"
--- @include "lib/site_board_edit"

local function main()
  local _, prefix, from, building = site_root('upgrade', 2, 2, 'cursor, count')
  local cursor = ARGV[1]
  local count = integer_arg(ARGV[2], 'count', 1, 5000)
  -- bounded work (ARGV[2]): the scan's keys and the members' phase apart
  local members_count = math.min(count, 25)
  count = math.min(count, 1000)
  local scan = cursor:match('^s,(%d+)$')
  local sscan, name = cursor:match('^g,(%d+),(.*)$')
  -- (a SCAN cursor is below 2^64: at most 20 digits, no leading zero)
  local function cursor_ok(c)
    return c == '0' or (c:sub(1, 1) ~= '0' and (#c < 20 or (#c == 20 and c <= '18446744073709551615')))
  end
  if (scan and not cursor_ok(scan)) or (sscan and (not cursor_ok(sscan) or (name ~= '' and not name_ok(name)))) then
    scan, sscan = nil, nil
  end
  if cursor ~= '0' and not scan and not sscan then
    fail('USAGE', 'cursor must be "0" or one upgrade returned, got "' .. cursor:sub(1, 80) .. '"')
  end
  if from == 2 then return { 2, 2, '0' } end
  if cursor ~= '0' and not building then
    fail('USAGE', 'no upgrade of the site is under way: start with cursor "0"')
  end
  local config, names, scanned = prefix .. CONFIG, prefix .. 'upgrade:groups', prefix .. 'upgrade:scanned'
  rcall('ZCARD', names)
  -- a cursor of the members' phase is taken only once the scan has listed
  -- every group (a hand-made "g,0," must not skip it)
  if sscan and rcall('EXISTS', scanned) == 0 then
    fail('USAGE', 'the scan of the groups has not finished: go on with the cursor it returned, or start again with "0"')
  end

  if cursor == '0' then
    -- validated: the writes start here (the scan only reads, then adds names)
    if not building then rcall('HSET', config, 'layout_next', '2') end
    rcall('DEL', scanned)
    scan = '0'
  end

  if scan then
    -- (1) the groups: one SCAN page
    local pattern = prefix:gsub('[%*%?%[%]\\]', '\\%0') .. 'group:*'
    local page = rcall('SCAN', scan, 'MATCH', pattern, 'COUNT', count)
    local found = {}
    for _, key in ipairs(page[2]) do
      local group = key:sub(#prefix + 7)
      if name_ok(group) and rcall('TYPE', key).ok == 'set' then found[#found + 1] = group end
    end
    for _, group in ipairs(found) do rcall('ZADD', names, '0', group) end
    if page[1] == '0' then rcall('SET', scanned, '1') end
    return { from, 2, page[1] == '0' and 'g,0,' or ('s,' .. page[1]) }
  end

  -- (2) the members, group after group: every read first, then the writes
  local function after(min) return rcall('ZRANGE', names, min, '+', 'BYLEX', 'LIMIT', 0, 1)[1] end
  if name == '' then name, sscan = after('-'), '0' end
  local plan, budget, joins = {}, members_count, {}
  while name and budget > 0 do
    local key = prefix .. 'group:' .. name
    local page
    if rcall('TYPE', key).ok == 'set' then
      boards_check(prefix, name)
      page = rcall('SSCAN', key, sscan, 'COUNT', budget)
      for _, member in ipairs(page[2]) do
        local id = member:match('^article:([1-9]%d*)$')
        if id and #id <= 15 then
          local index = prefix .. 'groups:' .. id
          -- the cap groups.lua keeps on layout 2: an article of layout 1 in
          -- more groups is refused (a member indexed already, after a
          -- restart or twice in one SSCAN, adds nothing)
          local pair = id .. ' ' .. name
          if not joins[pair] and rcall('SISMEMBER', index, name) == 0 then
            joins[pair] = true
            joins[id] = (joins[id] or rcall('SCARD', index)) + 1
          end
          if (joins[id] or 0) > MAX_GROUPS then
            fail('INVALID_GROUP', 'article ' .. id .. ' is in more than ' .. MAX_GROUPS .. ' groups, the most layout 2 keeps: '
              .. 'take it out of some (groups.lua), then go on with the cursor "0"')
          end
          plan[#plan + 1] = { name, member, id, order_scores(prefix, member) }
        end
      end
      budget, sscan = budget - math.max(#page[2], 1), page[1]
    else
      -- (the group is gone since the scan: nothing to index)
      budget, sscan = budget - 1, '0'
    end
    if sscan == '0' then name = after('(' .. name) end
  end

  -- validated: the writes start here
  for _, p in ipairs(plan) do
    rcall('SADD', prefix .. 'groups:' .. p[3], p[1])
    boards_add(prefix, p[1], p[2], p[4])
  end
  if name then return { from, 2, 'g,' .. sscan .. ',' .. name } end
  rcall('HSET', config, 'layout', '2')
  rcall('HDEL', config, 'layout_next')
  rcall('DEL', names, scanned)
  return { from, 2, '0' }
end

--- @include "lib/epilogue"
