#!lua
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
--- @include "lib/user"
--- @include "lib/integer_arg"
--- @include "lib/site_args"

--- @include "lib/site_vote_settings"

--- @include "lib/rankings"

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

--- @include "lib/epilogue"
