#!lua
--[[
  groups: add an article to some groups and remove it from others, in one
  atomic call (the seeds' add_remove_groups). Each group whose membership
  changes loses its cached orderings (<prefix>score:NAME, time:NAME, hot:NAME,
  best:NAME), so the next group page shows the change at once.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  article  <article_id>  "7" or "article:7" (must exist)
    ARGV[2..]  tokens  <group_token, repeat 0..100>  one token per group,
             at most 100: "+NAME" adds the article to <prefix>group:NAME,
             "-NAME" removes it. NAME: 1..64 bytes, none of : { } * ? [ ] \ , spaces or
             control characters. A group may not be both added and removed in
             one call.

  Output: { added (groups the article newly joined), removed (groups it left) }

  Keys: <prefix>article:ID, <prefix>group:NAME, <prefix>score:NAME,
    <prefix>time:NAME, <prefix>hot:NAME, <prefix>best:NAME

  Reply: {added: integer, removed: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ID, REDVOTE_INVALID_GROUP,
    REDVOTE_UNKNOWN_ARTICLE, REDVOTE_INVALID_CONFIG (a key of the wrong type),
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/site_args"
--- @include "lib/site_id"
--- @include "lib/site_group"

local function main()
  local _, prefix = site_root('groups', 2, 101, 'article, then 1..100 of +GROUP / -GROUP')
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
    seen[group] = sign
    changes[#changes + 1] = { sign, group }
  end
  local member = 'article:' .. id
  if rcall('EXISTS', prefix .. member) == 0 then fail('UNKNOWN_ARTICLE', prefix .. member) end
  -- every group's set is read first: one of the wrong type is refused
  -- before the first write
  for _, change in ipairs(changes) do rcall('SCARD', prefix .. 'group:' .. change[2]) end

  -- validated: the writes start here
  local added, removed = 0, 0
  for _, change in ipairs(changes) do
    local sign, group = change[1], change[2]
    local n
    if sign == '+' then
      n = rcall('SADD', prefix .. 'group:' .. group, member)
      added = added + n
    else
      n = rcall('SREM', prefix .. 'group:' .. group, member)
      removed = removed + n
    end
    if n == 1 then
      rcall('DEL', prefix .. 'score:' .. group, prefix .. 'time:' .. group,
        prefix .. 'hot:' .. group, prefix .. 'best:' .. group)
    end
  end
  return { added, removed }
end

--- @include "lib/epilogue"
