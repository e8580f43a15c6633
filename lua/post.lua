#!lua
-- GENERATED from lua/src/site/post.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  post: publish an article (the seeds' post_article, in one atomic call).

  Input:
    KEYS[1]  site root: "<prefix>article:" (the id counter). Every other key
             is derived from <prefix>, so a hash-tagged prefix such as
             "{site1}:" keeps the whole call in one cluster slot.
    ARGV[1]  user    poster, an opaque string (1..256 bytes, no control chars)
    ARGV[2]  title   1..512 bytes, no control chars
    ARGV[3]  link    1..2048 bytes, no control chars or spaces
    ARGV[4]  time    optional, import/backfill path only: the publish time as
                     integer Unix seconds (default: the server's TIME)

  Writes: INCR <prefix>article:; HSET <prefix>article:ID title link poster
    time votes=1; ZADD <prefix>time: time; ZADD <prefix>score: time+vote_score;
    (members are "article:ID", without the prefix, as in the seeds);
    SADD <prefix>voted:ID poster + EXPIREAT end of the voting window;
    ZADD <prefix>hot: / <prefix>best: when those rankings are switched on.

  Output: the new article id (integer).

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_TEXT,
    REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'post takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < 3 or #ARGV > 4 then fail('USAGE', 'post takes user, title, link [, time]') end
  local prefix = root:sub(1, -9)
  local user, title, link, at = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
  if #title == 0 or #title > 512 or title:find('%c') then
    fail('INVALID_TEXT', 'title must be 1..512 bytes without control characters')
  end
  if #link == 0 or #link > 2048 or link:find('[%c%s]') then
    fail('INVALID_TEXT', 'link must be 1..2048 bytes without spaces or control characters')
  end
  local now
  if at ~= nil then
    if not at:find('^%d+$') or #at > 12 then
      fail('INVALID_NUMBER', 'time must be integer Unix seconds, got ' .. at)
    end
    now = tonumber(at)
  else
    now = tonumber(rcall('TIME')[1])
  end

  local cfg = rcall('HMGET', prefix .. 'redvote:config', 'vote_score', 'window', 'rankings')
  local vote_score = tonumber(cfg[1] or 432)
  local window = tonumber(cfg[2] or 604800)
  local rankings = cfg[3] or ''
  if not vote_score or not window then fail('INVALID_CONFIG', prefix .. 'redvote:config holds a non-number') end

  -- validated: the writes start here
  local id = rcall('INCR', root)
  local member = 'article:' .. id
  local article = prefix .. member
  local voted = prefix .. 'voted:' .. id
  rcall('HSET', article, 'title', title, 'link', link, 'poster', user, 'time', now, 'votes', 1)
  rcall('ZADD', prefix .. 'time:', now, member)
  rcall('ZADD', prefix .. 'score:', now + vote_score, member)
  rcall('SADD', voted, user)
  rcall('EXPIREAT', voted, now + window)
  -- One upvote, no downvote: hot's vote term is log10(1) = 0 and the Wilson
  -- bound of 1/1 is 1/(1+z^2); vote.lua keeps both exact from then on.
  if rankings:find('hot', 1, true) then
    rcall('ZADD', prefix .. 'hot:', string.format('%.17g', (now - 1134028003) / 45000), member)
  end
  if rankings:find('best', 1, true) then
    rcall('ZADD', prefix .. 'best:', string.format('%.17g', 1 / (1 + 1.281551565545 ^ 2)), member)
  end
  return id
end

-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- (a Redis error, a Lua bug) is still answered as a stable code, never as a
-- raw Lua error.
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if not res:find('^REDVOTE_') then res = 'REDVOTE_INTERNAL ' .. res end
return redis.error_reply(res)
