#!lua
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
--- @include "lib/prologue"

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
--- @include "lib/site_config"
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
--- @include "lib/layout"
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
--- @include "lib/site_vote_settings"
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
--- @include "lib/rankings"
--- @include "lib/site_boards"
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

--- @include "lib/epilogue"
