#!lua
--[[
  configure: change a site's settings, stored in Redis under the site's
  prefix so that every client of the site applies the same ones, and answer
  them all. Without arguments it changes nothing and answers them (as
  config.lua does, which is flagged no-writes: read them with that).

  Settings (hash <prefix>redvote:config; an absent field means the default):
    vote_score  score one net vote is worth, integer 1..1000000 (default 432
                = 86400/200). Fixed once the site has articles: changing it
                would break score = time + vote_score * (votes - downvotes).
    window      voting window in seconds after the publish time, integer
                60..315360000 (default 604800, one week). Once the site has
                articles it can only be lowered: a longer one would reopen
                articles whose voted:ID sets already expired.
    page_size   default articles per page, integer 1..100 (default 25)
    rankings    extra rankings kept beside score:, comma-separated subset of
                "hot,best" or "" (default ""). Articles enter hot:/best: when
                posted or voted on after the ranking is switched on.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1..]  pairs  <config_field/text, repeat 0..4>  field, value, field,
             value, ... (none: only read); at most the 4 settings, 8 arguments
             (REDVOTE_USAGE beyond)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in)

  Keys: <prefix>redvote:config

  Reply: pairs(string, integer|string)
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG, REDVOTE_CONFIG_LOCKED,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/integer_arg"
--- @include "lib/site_args"

--- @include "lib/site_config"
--- @include "lib/site_settings"

local limits = { vote_score = { 1, VOTE_SCORE_MAX }, window = { WINDOW_MIN, WINDOW_MAX }, page_size = { 1, 100 } }

-- "" or a comma-separated subset of hot,best (no empty items).
local function rankings_ok(value)
  if value:find(',,') or value:find('^,') or value:find(',$') then return false end
  for item in value:gmatch('[^,]+') do
    if item ~= 'hot' and item ~= 'best' then return false end
  end
  return true
end

local function main()
  local root, prefix = site_root('configure', 0, 8, 'field, value pairs, at most 4 (8 arguments)')
  if #ARGV % 2 ~= 0 then fail('USAGE', 'configure takes field, value pairs, at most 4 (8 arguments)') end
  local current = read_site_settings(prefix)

  local updates = {}
  for i = 1, #ARGV, 2 do
    local field, value = ARGV[i], ARGV[i + 1]
    if field == 'rankings' then
      if not rankings_ok(value) then
        fail('INVALID_CONFIG', 'rankings must be a comma-separated subset of hot,best, got "' .. value:sub(1, 80) .. '"')
      end
    elseif limits[field] then
      integer_arg(value, field, limits[field][1], limits[field][2], nil, 'INVALID_CONFIG')
    else
      fail('INVALID_CONFIG', 'unknown setting "' .. field:sub(1, 80) .. '" (vote_score, window, page_size, rankings)')
    end
    if field == 'vote_score' and value ~= current.vote_score and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'vote_score is fixed once the site has articles (' .. current.vote_score .. ')')
    end
    -- A longer window would reopen articles whose voted:ID sets already
    -- expired (their voters could vote again): it can only shrink once
    -- articles exist.
    if field == 'window' and tonumber(value) > (tonumber(current.window) or 0) and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'window can only be lowered once the site has articles (' .. current.window .. ')')
    end
    updates[#updates + 1] = field
    updates[#updates + 1] = value
    current[field] = value
  end

  -- validated: the writes start here
  if #updates > 0 then rcall('HSET', prefix .. CONFIG, unpack(updates)) end
  return site_settings_reply(current)
end

--- @include "lib/epilogue"
