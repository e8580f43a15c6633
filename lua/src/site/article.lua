#!lua flags=no-writes
--[[
  article: one article with its score, its rank and, given a user, that
  user's vote. Read-only (also runs as EVALSHA_RO on a replica).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  article  <article_id>  "7" or "article:7"
    ARGV[2]  user  <user, optional>  whose vote to report

  Output: { id, score (string or nil), rank (1-based by score, or nil),
            vote ("up" | "down" | "none", or "" without a user),
            { field, value, ... } (the article hash) }

  Keys: <prefix>article:ID, <prefix>score:, <prefix>voted:ID,
    <prefix>downvoted:ID

  Reply: {id: string, score: string|nil, rank: integer|nil, vote: string,
    fields: pairs(string, string)}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ID, REDVOTE_INVALID_USER,
    REDVOTE_UNKNOWN_ARTICLE, REDVOTE_INVALID_CONFIG (a key of the wrong type),
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/user"
--- @include "lib/site_args"
--- @include "lib/site_id"

local function main()
  local _, prefix = site_root('article', 1, 2, 'article [, user]')
  local id, user = article_id(ARGV[1]), ARGV[2]
  if user ~= nil then check_user(user) end

  local member = 'article:' .. id
  local article = prefix .. member
  local fields = rcall('HGETALL', article)
  if #fields == 0 then fail('UNKNOWN_ARTICLE', 'article ' .. id .. ' does not exist') end
  local score = rcall('ZSCORE', prefix .. 'score:', member)
  local rank = rcall('ZREVRANK', prefix .. 'score:', member)
  if rank then rank = rank + 1 end
  local vote = ''
  if user then
    vote = 'none'
    if rcall('SISMEMBER', prefix .. 'voted:' .. id, user) == 1 then
      vote = 'up'
    elseif rcall('SISMEMBER', prefix .. 'downvoted:' .. id, user) == 1 then
      vote = 'down'
    end
  end
  return { id, score, rank, vote, fields }
end

--- @include "lib/epilogue"
