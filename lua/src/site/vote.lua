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
    ARGV[1]  user     1..256 bytes, no control characters
    ARGV[2]  article  "7" or "article:7"
    ARGV[3]  vote     "up" | "down" | "none" (optional, default "up")

  Writes (only when the vote changes): SADD/SREM <prefix>voted:ID and
    <prefix>downvoted:ID (each EXPIREAT the end of the voting window),
    HINCRBY <prefix>article:ID votes / downvotes, ZINCRBY <prefix>score:,
    ZADD <prefix>hot: / <prefix>best: when those rankings are switched on.

  Output: { changed (1 or 0), previous vote, vote, score (string),
            votes (integer), downvotes (integer) }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_ID,
    REDVOTE_INVALID_VOTE, REDVOTE_UNKNOWN_ARTICLE, REDVOTE_VOTING_CLOSED,
    REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/user"
--- @include "lib/site_args"

--- @include "lib/site_config"

--- @include "lib/rankings"

local function main()
  local _, prefix = site_root('vote', 2, 3, 'user, article [, up|down|none]')
  local user, want = ARGV[1], ARGV[3] or 'up'
  check_user(user)
  local id = article_id(ARGV[2])
  if want ~= 'up' and want ~= 'down' and want ~= 'none' then
    fail('INVALID_VOTE', 'vote must be up, down or none, got "' .. want:sub(1, 80) .. '"')
  end

  local member = 'article:' .. id
  local article = prefix .. member
  local time = tonumber(rcall('ZSCORE', prefix .. 'time:', member))
  if not time then fail('UNKNOWN_ARTICLE', article) end
  local vote_score, window, rankings = vote_settings(prefix)
  local closes = time + window
  if tonumber(rcall('TIME')[1]) > closes then
    fail('VOTING_CLOSED', article .. ' closed at ' .. string.format('%d', math.ceil(closes)))
  end

  local sets = { up = prefix .. 'voted:' .. id, down = prefix .. 'downvoted:' .. id }
  local fields = { up = 'votes', down = 'downvotes' }
  local sign = { up = 1, down = -1 }
  -- votes / downvotes equal the sizes of voted:ID / downvoted:ID (this
  -- script keeps them together), so no downvotes means no downvoter to look for.
  local counts = rcall('HMGET', article, 'votes', 'downvotes')
  -- (and are HINCRBY'd below: a count that is not one is refused first)
  local tally = { up = stored_int(counts[1] or '0', 0, 999999999999999, article, 'votes'),
    down = stored_int(counts[2] or '0', 0, 999999999999999, article, 'downvotes') }
  local was = 'none'
  if rcall('SISMEMBER', sets.up, user) == 1 then was = 'up' end
  -- downvoted:ID is read also before any downvote: the read checks its
  -- type, so a wrong-type key is refused before the first write.
  if (was == 'none' and tally.down > 0) or want == 'down' then
    if rcall('SISMEMBER', sets.down, user) == 1 and was == 'none' then was = 'down' end
  end

  local changed = 0
  local score
  if was ~= want then
    check_rankings(prefix, rankings)
    -- validated: the writes start here. score: is written first: it is the
    -- one key not read above, so a wrong-type score: fails before any write.
    changed = 1
    local delta = (sign[want] or 0) - (sign[was] or 0)
    score = rcall('ZINCRBY', prefix .. 'score:', delta * vote_score, member)
    if was ~= 'none' then
      rcall('SREM', sets[was], user)
      rcall('HINCRBY', article, fields[was], -1)
      tally[was] = tally[was] - 1
    end
    if want ~= 'none' then
      rcall('SADD', sets[want], user)
      -- the set outlives the last second votes are taken in (closes itself)
      rcall('EXPIREAT', sets[want], math.ceil(closes) + 1)
      rcall('HINCRBY', article, fields[want], 1)
      tally[want] = tally[want] + 1
    end
  else
    score = rcall('ZSCORE', prefix .. 'score:', member)
  end

  local up, down = tally.up, tally.down
  if changed == 1 then
    write_rankings(prefix, rankings, member, up, down, time)
  end
  return { changed, was, want, score, up, down }
end

--- @include "lib/epilogue"
