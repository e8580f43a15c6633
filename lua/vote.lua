#!lua
-- GENERATED from lua/src/site/vote.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  vote: set one user's vote on one article to up, down or none, atomically.

  The seeds' article_vote (ZSCORE time:, SADD voted:, ZINCRBY score:,
  HINCRBY votes) plus the book's exercise: downvotes and retraction. A user's
  vote is "up" (member of voted:ID, as in the seeds, so seed data stays valid),
  "down" (member of downvoted:ID) or "none". Moving between them adjusts the
  counts and the score in this one call, so the score is always
  time + vote_score * (votes - downvotes).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  user  <user>  1..256 bytes, no control characters
    ARGV[2]  article  <article_id>  "7" or "article:7"
    ARGV[3]  vote  <enum(up|down|none), optional, default up>  the vote

  Reads: the article hash's time, votes and downvotes (HMGET: the article
    exists when its hash has a publish time), the settings, TIME, and the
    voter sets the vote may change (SISMEMBER).

  Writes (only when the vote changes): ZINCRBY <prefix>score: (first),
    SADD/SREM <prefix>voted:ID and <prefix>downvoted:ID (a set created by
    this vote expires one second after the voting window's end: EXPIREAT),
    HINCRBY <prefix>article:ID votes / downvotes, ZADD <prefix>hot: /
    <prefix>best: when those rankings are switched on. On site layout 2 (or
    while upgrade.lua runs), ZADD of the article's new scores into the
    boards of its groups, <prefix>gboard:<order>:NAME for each NAME of
    <prefix>groups:ID (SMEMBERS, read before the first write): score, and
    hot / best when kept; O(groups x log N). The boards are created by
    groups.lua and upgrade.lua, which check their type.

  Cost: 7 redis.calls for a new vote (HMGET of the layout and
    settings, HMGET, TIME, SISMEMBER, ZINCRBY, SADD, HINCRBY; 8 when it
    creates a set), 5 for a repeated one; numbers go to Redis as strings. On site layout 2 one
    SMEMBERS more, and a ZADD a group (three and two ZSCOREs with hot and
    best kept; docs/site.md measures it). One closure a call, main (issue
    23): the helpers of a site with rankings, group boards, a layout field
    or settings written are made only there (see main).

  Output: { changed (1 or 0), previous vote, vote, score (string),
            votes (integer), downvotes (integer) }

  Keys: <prefix>redvote:config, <prefix>article:ID, <prefix>score:,
    <prefix>voted:ID, <prefix>downvoted:ID, <prefix>hot:, <prefix>best:,
    <prefix>groups:ID, <prefix>gboard:score:NAME, <prefix>gboard:hot:NAME,
    <prefix>gboard:best:NAME

  Reply: {changed: integer, previous: string, vote: string, score: string,
    votes: integer, downvotes: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_ID,
    REDVOTE_INVALID_VOTE, REDVOTE_UNKNOWN_ARTICLE, REDVOTE_VOTING_CLOSED,
    REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

-- The vote is the hottest call, and each function a script defines is a
-- closure made on every call, with its upvalues (docs/benchmark.md, Hot
-- campaigns: where the cost is). So main is the vote's one
-- function: the checks the other site scripts call as helpers
-- (lib/site_args' site_root, lib/user's check_user, lib/site_id's
-- article_id) are written out in it, the same checks and messages, and the
-- helpers of the rarer paths (lib/layout on a site with a layout field,
-- lib/site_vote_settings with settings written, lib/rankings and
-- lib/site_boards with rankings kept or on layout 2) are included inside
-- the branch that needs them, so that only that branch makes their
-- closures. tests/suite/site/vote_diff.rs holds it to the vote before.
local function main()
  -- (the settings' defaults and names as main's own locals: no upvalues)
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
  -- the site root and ARGV's count (lib/site_args' site_root)
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'vote takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < 2 or #ARGV > 3 then fail('USAGE', 'vote takes user, article [, up|down|none]') end
  local prefix = root:sub(1, -9)
  local config = prefix .. CONFIG
  local stored = rcall('HMGET', config, 'layout', 'layout_next', 'vote_score', 'window', 'rankings')
  -- boards: the group boards are kept (layout 2, or an upgrade under way)
  local boards = stored[2] ~= false
  if stored[1] or boards then
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
    local layout = check_layout('site', config, stored[1])
    if stored[2] and (stored[2] ~= '2' or layout ~= 1) then
      fail('INVALID_CONFIG', config .. ' layout_next must be 2, on layout 1 (an upgrade under way)')
    end
    boards = boards or layout == 2
  end

  -- the user (lib/user), the article reference (lib/site_id), the vote
  local user, ref, want = ARGV[1], ARGV[2], ARGV[3] or 'up'
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
  local id = ref:match('^([1-9]%d*)$') or ref:match('^article:([1-9]%d*)$')
  if not id or #id > 15 then fail('INVALID_ID', 'article must be N or article:N, got "' .. ref:sub(1, 80) .. '"') end
  if want ~= 'up' and want ~= 'down' and want ~= 'none' then
    fail('INVALID_VOTE', 'vote must be up, down or none, got "' .. want:sub(1, 80) .. '"')
  end

  local member = 'article:' .. id
  local article = prefix .. member
  -- One read, three uses: the article exists (its hash holds its publish
  -- time), when its window closes, and its counts. votes / downvotes equal
  -- the sizes of voted:ID / downvoted:ID (this script keeps them together)
  -- and are HINCRBY'd below, so they must be what HINCRBY takes ("05",
  -- "-0", " 5" are not): "0" or 1..15 digits without a leading zero. A
  -- time is digits, with a fraction when the seeds' Python wrote it. They
  -- stay strings: numbers are needed only for the reply, and tonumber is
  -- a strtod.
  local row = rcall('HMGET', article, 'time', 'votes', 'downvotes')
  local stamp, up, down = row[1], row[2] or '0', row[3] or '0'
  if not stamp then fail('UNKNOWN_ARTICLE', 'article ' .. id .. ' does not exist') end
  -- (dot: "." when the time has a fraction, the seeds' kind, below)
  local dot = #stamp <= 30 and stamp:match('^%d+(%.?)%d*$')
  local time = dot and tonumber(stamp)
  if not time or time > 999999999999 then
    fail('INVALID_CONFIG', article .. ' time is corrupt: "' .. stamp:sub(1, 40) .. '"')
  end
  if up ~= '0' and (#up > 15 or not up:find('^[1-9]%d*$')) then
    fail('INVALID_CONFIG', article .. ' votes is corrupt: "' .. up:sub(1, 40) .. '"')
  end
  if down ~= '0' and (#down > 15 or not down:find('^[1-9]%d*$')) then
    fail('INVALID_CONFIG', article .. ' downvotes is corrupt: "' .. down:sub(1, 40) .. '"')
  end
  -- the settings (lib/site_vote_settings); none written is the defaults
  local vote_score, window, rankings, by = 432, 604800, stored[5] or '', DEFAULT_VOTE_SCORE
  if (stored[3] or DEFAULT_VOTE_SCORE) ~= DEFAULT_VOTE_SCORE or (stored[4] or DEFAULT_WINDOW) ~= DEFAULT_WINDOW then
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
    vote_score, window, rankings, by = vote_settings(prefix, stored)
  end
  local closes = time + window
  if tonumber(rcall('TIME')[1]) > closes then
    fail('VOTING_CLOSED', 'voting on article ' .. id .. ' closed at ' .. string.format('%d', math.ceil(closes)))
  end

  -- Each set the vote may write is read first (a wrong type is refused
  -- before the first write); a count of 0 is an absent set: no one to find.
  local voted, downvoted = prefix .. 'voted:' .. id, nil
  local was = 'none'
  if (want == 'up' or up ~= '0') and rcall('SISMEMBER', voted, user) == 1 then was = 'up' end
  if want == 'down' or (was == 'none' and down ~= '0') then
    downvoted = prefix .. 'downvoted:' .. id
    if rcall('SISMEMBER', downvoted, user) == 1 and was == 'none' then was = 'down' end
  end
  if was == want then
    local score = rcall('ZSCORE', prefix .. 'score:', member)
    return { 0, was, want, score, tonumber(up), tonumber(down) }
  end

  -- The rankings and group boards the vote moves, when the site keeps
  -- them: read here, before the first write; written by `after`, once the
  -- counts are.
  local after
  if rankings ~= '' or boards then
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
-- site_boards: site layout 2's group boards (docs/layout.md). Each group
-- NAME has, for every order (score, time, hot, best), the sorted set
-- <prefix>gboard:<order>:NAME: exactly the members of <prefix>group:NAME
-- that are in <prefix><order>:, with their score there (what the seeds'
-- ZINTERSTORE computes, kept up to date instead of rebuilt). The reverse
-- index <prefix>groups:ID (a set of group names) lists the groups of
-- article ID, so that vote and rerank update every board of the article in
-- the same call: O(groups x log N). groups.lua adds and removes the
-- article with its current scores; upgrade.lua builds both from layout 1.
--
-- The names differ from the seeds' 60-second caches <prefix><order>:NAME
-- on purpose: during the upgrade a layout-1 group page still builds and
-- expires those, and must never read (or expire) a half-built board.

-- Set the score of `member` to `value` (a string, as Redis answered it)
-- in the `order` board of every group in `groups` (a list of names).
local function boards_set(prefix, order, groups, member, value)
  for i = 1, #groups do rcall('ZADD', prefix .. 'gboard:' .. order .. ':' .. groups[i], value, member) end
end

-- Copy `member`'s hot: and best: scores (those the site keeps, after
-- write_rankings) into the boards of its `groups`.
local function boards_rankings(prefix, rankings, groups, member)
  if rankings:find('hot', 1, true) then
    boards_set(prefix, 'hot', groups, member, rcall('ZSCORE', prefix .. 'hot:', member))
  end
  if rankings:find('best', 1, true) then
    boards_set(prefix, 'best', groups, member, rcall('ZSCORE', prefix .. 'best:', member))
  end
end
    if rankings ~= '' then check_rankings(prefix, rankings) end
    -- the article's groups, whose boards this vote moves (layout 2)
    local groups = boards and rcall('SMEMBERS', prefix .. 'groups:' .. id)
    after = function(up, down, score)
      if rankings ~= '' then write_rankings(prefix, rankings, member, up, down, time) end
      if groups and #groups > 0 then
        boards_set(prefix, 'score', groups, member, score)
        if rankings ~= '' then boards_rankings(prefix, rankings, groups, member) end
      end
    end
  end
  -- validated: the writes start here. score: is written first: it is the
  -- one key not read above, so a wrong-type score: fails before any write.
  -- Numbers go to Redis as strings (a Lua number is formatted with %.17g,
  -- and parsed back by Redis): the stored vote_score, "1", "-1".
  local delta = (want == 'up' and 1 or want == 'down' and -1 or 0) - (was == 'up' and 1 or was == 'down' and -1 or 0)
  if delta == -1 then
    by = '-' .. by
  elseif delta ~= 1 then
    by = string.format('%d', delta * vote_score)
  end
  local score = rcall('ZINCRBY', prefix .. 'score:', by, member)
  if was == 'up' then
    rcall('SREM', voted, user)
    up = rcall('HINCRBY', article, 'votes', '-1')
  elseif was == 'down' then
    rcall('SREM', downvoted, user)
    down = rcall('HINCRBY', article, 'downvotes', '-1')
  end
  if want ~= 'none' then
    local set, field, count = voted, 'votes', up
    if want == 'down' then set, field, count = downvoted, 'downvotes', down end
    rcall('SADD', set, user)
    -- The set must outlive the last second votes are taken in (closes
    -- itself): it expires at closes + 1, set when the set is created (its
    -- count was 0: it was absent), as post does for voted:ID. A window is
    -- never lengthened once articles exist, so that expiry stays late
    -- enough. A publish time with a fraction is the seeds' (their voted:ID
    -- expires by a relative EXPIRE sent before the time is taken, a little
    -- before the window closes): there every vote moves the expiry.
    if count == '0' or count == 0 or dot == '.' then
      rcall('EXPIREAT', set, string.format('%d', math.ceil(closes) + 1))
    end
    count = rcall('HINCRBY', article, field, '1')
    if want == 'up' then up = count else down = count end
  end
  -- (the count HINCRBY answered is a number; "0" needs no strtod)
  up, down = up == '0' and 0 or tonumber(up), down == '0' and 0 or tonumber(down)
  if after then after(up, down, score) end
  return { 1, was, want, score, up, down }
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
