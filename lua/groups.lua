#!lua
-- GENERATED from lua/src/site/groups.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  groups: add an article to some groups and remove it from others, in one
  atomic call (the seeds' add_remove_groups). On site layout 1 each group
  whose membership changes loses its cached orderings (<prefix>score:NAME,
  time:NAME, hot:NAME, best:NAME), so the next group page shows the change
  at once. On layout 2 (and on layout 1 while upgrade.lua runs) the call
  keeps the reverse index <prefix>groups:ID and the group boards
  <prefix>gboard:<order>:NAME instead: an article joining a group enters its
  boards with its current scores (those of score:, time:, hot:, best: it
  has), one leaving leaves them; on layout 2 an article is in at most 100
  groups (a join beyond is refused, INVALID_GROUP), which bounds a vote's
  work.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  article  <article_id>  "7" or "article:7" (must exist)
    ARGV[2..]  tokens  <group_token, repeat 0..100>  one token per group,
             at most 100: "+NAME" adds the article to <prefix>group:NAME,
             "-NAME" removes it. NAME: 1..64 bytes, none of : { } * ? [ ] \ , spaces or
             control characters. A group may not be both added and removed in
             one call.

  Output: { added (groups the article newly joined), removed (groups it left) }

  Keys: <prefix>redvote:config, <prefix>article:ID, <prefix>group:NAME,
    <prefix>score:NAME, <prefix>time:NAME, <prefix>hot:NAME,
    <prefix>best:NAME, <prefix>groups:ID, <prefix>score:, <prefix>time:,
    <prefix>hot:, <prefix>best:, <prefix>gboard:score:NAME,
    <prefix>gboard:time:NAME, <prefix>gboard:hot:NAME,
    <prefix>gboard:best:NAME

  Reply: {added: integer, removed: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ID, REDVOTE_INVALID_GROUP,
    REDVOTE_UNKNOWN_ARTICLE, REDVOTE_INVALID_CONFIG (a key of the wrong type),
    REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
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
-- site_id: an article reference argument (vote, article, groups).

-- An article reference, "N" or "article:N" (N 1..15 digits, no leading
-- zero): returns the id N, or refuses with INVALID_ID.
local function article_id(ref)
  local id = ref:match('^article:([1-9]%d*)$') or ref:match('^([1-9]%d*)$')
  if not id or #id > 15 then fail('INVALID_ID', 'article must be N or article:N, got "' .. ref:sub(1, 80) .. '"') end
  return id
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
-- site_group: a group name must follow lib/names' rule (INVALID_GROUP otherwise).
local function check_group(group)
  if not name_ok(group) then
    fail('INVALID_GROUP', 'group must be 1..64 bytes without colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters, got "' .. group:sub(1, 80) .. '"')
  end
end
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
  local _, prefix, layout, boards = site_root('groups', 2, 101, 'article, then 1..100 of +GROUP / -GROUP')
  local id = article_id(ARGV[1])
  local changes, seen = {}, {}
  for i = 2, #ARGV do
    local sign, group = ARGV[i]:sub(1, 1), ARGV[i]:sub(2)
    if sign ~= '+' and sign ~= '-' then
      fail('INVALID_GROUP', 'each group must be +NAME or -NAME, got "' .. ARGV[i]:sub(1, 80) .. '"')
    end
    check_group(group)
    if seen[group] and seen[group] ~= sign then
      fail('INVALID_GROUP', 'group "' .. group .. '" is both added and removed')
    end
    if not seen[group] then changes[#changes + 1] = { sign, group } end
    seen[group] = sign
  end
  local member = 'article:' .. id
  if rcall('EXISTS', prefix .. member) == 0 then fail('UNKNOWN_ARTICLE', 'article ' .. id .. ' does not exist') end
  -- every group's set is read first: one of the wrong type is refused
  -- before the first write
  local is = {}
  for i, change in ipairs(changes) do
    rcall('SCARD', prefix .. 'group:' .. change[2])
    is[i] = rcall('SISMEMBER', prefix .. 'group:' .. change[2], member) == 1
  end
  local index, scores = prefix .. 'groups:' .. id, nil
  if boards then
    -- the reverse index, the boards and the orders are read first too
    local n = rcall('SCARD', index)
    for i, change in ipairs(changes) do
      boards_check(prefix, change[2])
      if change[1] == '+' and not is[i] then n = n + 1 end
      if change[1] == '-' and is[i] then n = n - 1 end
    end
    if layout == 2 and n > MAX_GROUPS then
      fail('INVALID_GROUP', 'article ' .. id .. ' would be in ' .. n .. ' groups, at most ' .. MAX_GROUPS)
    end
    scores = order_scores(prefix, member)
  end

  -- validated: the writes start here
  local added, removed = 0, 0
  for i, change in ipairs(changes) do
    local sign, group = change[1], change[2]
    local n = 0
    if sign == '+' and not is[i] then
      n = rcall('SADD', prefix .. 'group:' .. group, member)
      added = added + n
      if boards then
        rcall('SADD', index, group)
        boards_add(prefix, group, member, scores)
      end
    elseif sign == '-' and is[i] then
      n = rcall('SREM', prefix .. 'group:' .. group, member)
      removed = removed + n
      if boards then
        rcall('SREM', index, group)
        boards_remove(prefix, group, member)
      end
    end
    if n == 1 and layout == 1 then
      rcall('DEL', prefix .. 'score:' .. group, prefix .. 'time:' .. group,
        prefix .. 'hot:' .. group, prefix .. 'best:' .. group)
    end
  end
  return { added, removed }
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
