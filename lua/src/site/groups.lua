#!lua
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
--- @include "lib/site_args"
--- @include "lib/site_id"
--- @include "lib/site_group"
--- @include "lib/site_board_edit"

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

--- @include "lib/epilogue"
