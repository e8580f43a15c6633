#!lua
--[[
  configure: read or change a site's settings, stored in Redis under the
  site's prefix so that every client of the site applies the same ones.

  Settings (hash <prefix>redvote:config; an absent field means the default):
    vote_score  score one net vote is worth, integer 1..1000000 (default 432
                = 86400/200). Fixed once the site has articles: changing it
                would break score = time + vote_score * (votes - downvotes).
    window      voting window in seconds after the publish time, integer
                60..315360000 (default 604800, one week)
    page_size   default articles per page, integer 1..100 (default 25)
    rankings    extra rankings kept beside score:, comma-separated subset of
                "hot,best" or "" (default ""). Articles enter hot:/best: when
                posted or voted on after the ranking is switched on.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1..] field, value, field, value, ... (none: only read)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in)

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG, REDVOTE_CONFIG_LOCKED.
]]
--- @include "lib/prologue"

local limits = { vote_score = { 1, 1000000 }, window = { 60, 315360000 }, page_size = { 1, 100 } }
local defaults = { vote_score = '432', window = '604800', page_size = '25', rankings = '' }
local names = { 'vote_score', 'window', 'page_size', 'rankings' }

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'configure takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV % 2 ~= 0 then fail('USAGE', 'configure takes field, value pairs') end
  local prefix = root:sub(1, -9)
  local key = prefix .. 'redvote:config'
  local stored = rcall('HMGET', key, unpack(names))
  local current = {}
  for i, name in ipairs(names) do current[name] = stored[i] or defaults[name] end

  local updates = {}
  for i = 1, #ARGV, 2 do
    local field, value = ARGV[i], ARGV[i + 1]
    if field == 'rankings' then
      for item in value:gmatch('[^,]+') do
        if item ~= 'hot' and item ~= 'best' then
          fail('INVALID_CONFIG', 'rankings must be a comma-separated subset of hot,best, got "' .. value:sub(1, 80) .. '"')
        end
      end
      if value:find(',,') or value:find('^,') or value:find(',$') then
        fail('INVALID_CONFIG', 'rankings must be a comma-separated subset of hot,best, got "' .. value:sub(1, 80) .. '"')
      end
    elseif limits[field] then
      local lo, hi = limits[field][1], limits[field][2]
      if not value:find('^[1-9]%d*$') or #value > 10 or tonumber(value) < lo or tonumber(value) > hi then
        fail('INVALID_CONFIG', field .. ' must be an integer in ' .. lo .. '..' .. hi .. ', got "' .. value:sub(1, 80) .. '"')
      end
    else
      fail('INVALID_CONFIG', 'unknown setting "' .. field .. '" (vote_score, window, page_size, rankings)')
    end
    if field == 'vote_score' and value ~= current.vote_score and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'vote_score is fixed once ' .. root .. ' exists (' .. current.vote_score .. ')')
    end
    updates[#updates + 1] = field
    updates[#updates + 1] = value
    current[field] = value
  end

  -- validated: the writes start here
  if #updates > 0 then rcall('HSET', key, unpack(updates)) end
  local reply = {}
  for _, name in ipairs(names) do
    reply[#reply + 1] = name
    reply[#reply + 1] = current[name]
  end
  return reply
end

--- @include "lib/epilogue"
