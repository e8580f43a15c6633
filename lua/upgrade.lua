#!lua
-- GENERATED from lua/src/site/upgrade.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
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
-- site_args: the article site's root key and argument count (every site
-- script); an article reference is lib/site_id.

-- The site root "<prefix>article:" (the article id counter), every site
-- script's one key, and ARGV's count (lo..hi, listed in `usage`), of a
-- site whose data layout this script knows (lib/layout): returns the key
-- and <prefix>, from which every other key derives. The same checks
-- as lib/args' one_key and argc, in one function: every site call runs it,
-- and each helper a script defines costs a closure per call.
local function site_root(op, lo, hi, usage)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-8) ~= 'article:' then
    fail('USAGE', op .. ' takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
  local prefix = key:sub(1, -9)
  local config = prefix .. 'redvote:config'
  -- with the settings a post or a vote applies (lib/site_vote_settings),
  -- so that they cost no second read of the hash
  local stored = rcall('HMGET', config, 'layout', 'layout_next', 'vote_score', 'window', 'rankings')
  local layout = check_layout('site', config, stored[1])
  if stored[2] and (stored[2] ~= '2' or layout ~= 1) then
    fail('INVALID_CONFIG', config .. ' layout_next must be 2, on layout 1 (an upgrade under way)')
  end
  return key, prefix, layout, layout == 2 or stored[2] ~= false, stored
end
-- site_config: the site's settings, hash <prefix>redvote:config, where an
-- absent field means its default (below, the one place they are written).
-- configure.lua documents and changes them. Plain locals, no tables: post
-- and vote read them on every call. No function either (each is a closure
-- made on every call): the parser of stored numbers, lib/stored, is
-- included by the libs that parse (site_vote_settings, site_page), and the
-- vote includes those only on the path that needs them.

local DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, DEFAULT_PAGE_SIZE = '432', '604800', '25'
-- (lib/site_vote_settings answers the first two as the numbers 432 and 604800)
-- The ranges configure.lua accepts, and the only stored values post and
-- vote use (anything else in the hash is refused as corrupt).
local VOTE_SCORE_MAX, WINDOW_MIN, WINDOW_MAX = 1000000, 60, 315360000
-- The settings hash is <prefix> .. CONFIG.
local CONFIG = 'redvote:config'
-- site_board_edit: what groups.lua and upgrade.lua need to put articles
-- into and take them out of site layout 2's group boards (lib/site_boards
-- says what the boards hold); apart from lib/site_boards so that a vote
-- defines none of these functions (each is a closure made on every call).

-- Every order a group board is kept for (a board of a ranking the site does
-- not keep stays empty, as its ZINTERSTORE would be).
local GROUP_ORDERS = { 'score', 'time', 'hot', 'best' }

-- The most groups an article may be in on layout 2 (a vote updates the
-- boards of each): groups.lua refuses a join beyond it, upgrade.lua an
-- article of layout 1 that is in more.
local MAX_GROUPS = 100

-- Read the four boards of `group` (a wrong type is refused before a
-- caller's first write).
local function boards_check(prefix, group)
  for i = 1, 4 do rcall('ZCARD', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group) end
end

-- `member`'s score in each order, { score, time, hot, best } (nil when
-- absent from that order), read before a caller's first write.
local function order_scores(prefix, member)
  local scores = {}
  for i = 1, 4 do scores[i] = rcall('ZSCORE', prefix .. GROUP_ORDERS[i] .. ':', member) end
  return scores
end

-- Put `member` (its `scores`, from order_scores) in the boards of `group`.
local function boards_add(prefix, group, member, scores)
  for i = 1, 4 do
    if scores[i] then rcall('ZADD', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group, scores[i], member) end
  end
end

-- Take `member` out of the boards of `group`.
local function boards_remove(prefix, group, member)
  for i = 1, 4 do rcall('ZREM', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group, member) end
end

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
