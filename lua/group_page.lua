#!lua
-- GENERATED from lua/src/site/group_page.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
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
-- stored: the one parser of stored integer settings (a site's
-- redvote:config, campaign, board and weight hashes, and the numbers of the
-- stored `limits` JSON). Lua's
-- tonumber takes nan, inf, 1e400, 0x10 and ' 5'; a stored setting is
-- trusted only as written by campaign_configure. Needs fail (lib/prologue).
-- One function on purpose: every helper a script defines is a closure per
-- call, and the vote runs this on its hot path.

-- `v` (a string of decimal digits with an optional minus sign, or a JSON
-- number that is a whole number) as a number in lo..hi; otherwise refuses
-- with REDVOTE_INVALID_CONFIG naming the key and the field.
local function stored_int(v, lo, hi, key, field)
  local n
  if type(v) == 'string' then
    if #v <= 16 and v:find('^%-?%d+$') then n = tonumber(v) end
  elseif type(v) == 'number' and v == math.floor(v) then
    n = v
  end
  if not n or n < lo or n > hi then
    fail('INVALID_CONFIG', key .. ' ' .. field .. ' is corrupt: "' .. tostring(v):sub(1, 40) .. '"')
  end
  return n
end
-- site_page: one page of an ordered set of articles (page.lua: the whole
-- site's <prefix><order>:, group_page.lua: a group's cached ordering).

-- Check order, page and per_page (absent: the site's page_size, or
-- INVALID_CONFIG when that is corrupt); returns page and per_page as
-- numbers. lib/integer_arg's checks and words, inline: a page is read
-- often, and each helper a script defines is a closure made on every call.
local function page_args(prefix, order, page, per_page)
  if order ~= 'score' and order ~= 'time' and order ~= 'hot' and order ~= 'best' then
    fail('INVALID_ORDER', 'order must be score, time, hot or best, got "' .. order:sub(1, 80) .. '"')
  end
  if #page > 7 or not page:find('^[1-9]%d*$') or tonumber(page) > 1000000 then
    fail('INVALID_NUMBER', 'page must be an integer in 1..1000000, got "' .. page:sub(1, 80) .. '"')
  end
  if per_page == nil then
    local size = rcall('HGET', prefix .. CONFIG, 'page_size')
    return tonumber(page), stored_int(size or DEFAULT_PAGE_SIZE, 1, 100, prefix .. CONFIG, 'page_size')
  end
  if #per_page > 3 or not per_page:find('^[1-9]%d*$') or tonumber(per_page) > 100 then
    fail('INVALID_NUMBER', 'per_page must be an integer in 1..100, got "' .. per_page:sub(1, 80) .. '"')
  end
  return tonumber(page), tonumber(per_page)
end

-- Page `page` of the sorted set `set`, highest first: { total, per_page,
-- members, n }: the n members joined by spaces in one string,
-- "article:9 article:4 ...". One string instead of n costs Redis 13k
-- instructions less and the client n parsed values; the driver checks that
-- it splits into n (members are article:ID: no space). Only the members:
-- the driver reads their hashes in one MULTI/EXEC of plain commands
-- (src/site/page.rs), because every value a script reads or answers is
-- converted between RESP and Lua: reading 25 hashes here cost the server
-- several times the seeds' own flow.
local function read_page(set, page, per_page)
  local start = (page - 1) * per_page
  -- (%d: a Lua number passed to Redis is formatted with %.17g, dearer)
  local first, last = string.format('%d', start), string.format('%d', start + per_page - 1)
  local members = rcall('ZREVRANGE', set, first, last)
  return { rcall('ZCARD', set), per_page, table.concat(members, ' '), #members }
end

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
