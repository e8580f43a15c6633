#!lua
-- GENERATED from lua/src/site/post.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  post: publish an article (the seeds' post_article, in one atomic call).

  Input:
    KEYS[1]  site root: "<prefix>article:" (the id counter). Every other key
             is derived from <prefix>, so a hash-tagged prefix such as
             "{site1}:" keeps the whole call in one cluster slot.
    ARGV[1]  user  <user>  poster, an opaque string (1..256 bytes, no control
             chars)
    ARGV[2]  title  <text 1..512>  1..512 bytes, no control chars
    ARGV[3]  link  <text 1..2048>  1..2048 bytes, no control chars or spaces
    ARGV[4]  time  <time, optional>  import/backfill path only: the publish
             time as integer Unix seconds (default: the server's TIME)

  Writes: the site's first article (no id counter, no layout recorded):
    HSET <prefix>redvote:config layout 2 (lib/layout); INCR <prefix>article:; HSET <prefix>article:ID title link poster
    time votes=1; ZADD <prefix>time: time; ZADD <prefix>score: time+vote_score;
    (members are "article:ID", without the prefix, as in the seeds);
    SADD <prefix>voted:ID poster + EXPIREAT end of the voting window;
    ZADD <prefix>hot: / <prefix>best: when those rankings are switched on.

  Output: the new article id (integer).

  Keys: <prefix>redvote:config, <prefix>article:ID, <prefix>time:,
    <prefix>score:, <prefix>voted:ID, <prefix>hot:, <prefix>best:

  Reply: integer
  Idempotent: no

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_TEXT,
    REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG (a corrupt setting or id
    counter, a key of the wrong type), REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
-- user: a user id is an opaque string of 1..256 bytes without control
-- characters.
local function check_user(user)
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
end
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
-- site_vote_settings: the settings a post or a vote applies, read and
-- checked in one call (lib/site_config holds the defaults and ranges).

-- What a post or a vote needs, from the HMGET lib/site_args' site_root
-- made (`stored`: layout, layout_next, vote_score, window, rankings):
-- vote_score and window (numbers), rankings, and vote_score as the digits
-- to pass to ZINCRBY; INVALID_CONFIG when a number is corrupt. A stored
-- default is taken as it is (Lua strings are interned: the comparison is
-- one pointer). HGETALL would cost less on a site without the hash, and
-- more on one with it.
local function vote_settings(prefix, stored)
  local cfg = { stored[3], stored[4], stored[5] }
  local vote_score, window = cfg[1] or DEFAULT_VOTE_SCORE, cfg[2] or DEFAULT_WINDOW
  return vote_score == DEFAULT_VOTE_SCORE and 432
      or stored_int(vote_score, 1, VOTE_SCORE_MAX, prefix .. CONFIG, 'vote_score'),
    window == DEFAULT_WINDOW and 604800 or stored_int(window, WINDOW_MIN, WINDOW_MAX, prefix .. CONFIG, 'window'),
    cfg[3] or '', vote_score
end

-- rankings: the extra rankings a site may keep beside score:, hot: and
-- best:, and writing an article's entries in them (post, vote, rerank).
-- Both are functions of the article's counts and time only, so they change
-- only when a vote does. Two functions, the formulas inline: every function
-- a script defines is a closure made on every call, rankings on or off.

-- Read the rankings the site keeps (`rankings`: the config value), so that
-- one of the wrong type is refused (WRONGTYPE) before a caller's first write.
local function check_rankings(prefix, rankings)
  if rankings:find('hot', 1, true) then rcall('ZCARD', prefix .. 'hot:') end
  if rankings:find('best', 1, true) then rcall('ZCARD', prefix .. 'best:') end
end

-- Write an article's entries in the rankings the site keeps (`rankings`:
-- the config value, e.g. "hot,best"); up, down and time are numbers.
local function write_rankings(prefix, rankings, member, up, down, time)
  if rankings:find('hot', 1, true) then
    -- Reddit's "hot": sign(s) * log10(max(|s|, 1)) + (time - 1134028003) / 45000
    local s = up - down
    local sign = (s > 0 and 1) or (s < 0 and -1) or 0
    local hot = sign * math.log10(math.max(math.abs(s), 1)) + (time - 1134028003) / 45000
    rcall('ZADD', prefix .. 'hot:', string.format('%.17g', hot), member)
  end
  if rankings:find('best', 1, true) then
    -- "best": lower bound of the Wilson score interval of up / (up + down), z = 1.281551565545
    local n, best = up + down, 0
    if n > 0 then
      local z = 1.281551565545
      local p = up / n
      best = (p + z * z / (2 * n) - z * math.sqrt((p * (1 - p) + z * z / (4 * n)) / n)) / (1 + z * z / n)
    end
    rcall('ZADD', prefix .. 'best:', string.format('%.17g', best), member)
  end
end

local function main()
  local root, prefix, _, _, stored = site_root('post', 3, 4, 'user, title, link [, time]')
  local user, title, link, at = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
  check_user(user)
  if #title == 0 or #title > 512 or title:find('%c') then
    fail('INVALID_TEXT', 'title must be 1..512 bytes without control characters')
  end
  if #link == 0 or #link > 2048 or link:find('[%c%s]') then
    fail('INVALID_TEXT', 'link must be 1..2048 bytes without spaces or control characters')
  end
  local now
  if at ~= nil then
    now = integer_arg(at, 'time', 0, 999999999999, 'integer Unix seconds')
  else
    now = tonumber(rcall('TIME')[1])
  end
  local vote_score, window, rankings = vote_settings(prefix, stored)
  -- Every key the post writes is read first: a key of the wrong type, or an
  -- id counter that is not one (ids have at most 15 digits), is refused
  -- before the first write.
  local counter = rcall('GET', root)
  local id = string.format('%d', stored_int(counter or '0', 0, 999999999999998, root, 'id counter') + 1)
  -- A site redvote creates (its first article, no id counter and no layout
  -- recorded) starts at layout 2; one with articles and no layout field
  -- (the seeds' data, or an earlier redvote's) stays at 1 (lib/layout).
  local new_site = not counter and not stored[1] and not stored[2]
  rcall('HEXISTS', prefix .. 'article:' .. id, 'title')
  rcall('SCARD', prefix .. 'voted:' .. id)
  rcall('ZCARD', prefix .. 'time:')
  rcall('ZCARD', prefix .. 'score:')
  check_rankings(prefix, rankings)

  -- validated: the writes start here
  if new_site then rcall('HSET', prefix .. CONFIG, 'layout', '2') end
  local n = rcall('INCR', root)
  local member = 'article:' .. id
  local article = prefix .. member
  local voted = prefix .. 'voted:' .. id
  rcall('HSET', article, 'title', title, 'link', link, 'poster', user, 'time', now, 'votes', 1)
  rcall('ZADD', prefix .. 'time:', now, member)
  rcall('ZADD', prefix .. 'score:', now + vote_score, member)
  rcall('SADD', voted, user)
  rcall('EXPIREAT', voted, now + window + 1) -- outlives the window's last second
  -- One upvote, no downvote (hot: the time term alone; best: 1/(1+z^2)).
  write_rankings(prefix, rankings, member, 1, 0, now)
  return n
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
