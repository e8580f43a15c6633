--- @include "lib/prologue"
-- site_config: the site's settings, hash <prefix>redvote:config (an absent
-- field means the default), read in one HMGET. configure.lua documents and
-- changes them; post and vote need vote_score, window and rankings, rerank
-- rankings, page and group_page the default page_size.

local site_settings = { 'vote_score', 'window', 'page_size', 'rankings' }
local site_defaults = { vote_score = '432', window = '604800', page_size = '25', rankings = '' }

local function config_key(prefix)
  return prefix .. 'redvote:config'
end

-- The settings named in `names` (a list), as strings, defaults filled in:
-- { name = value }.
local function site_config(prefix, names)
  local stored = rcall('HMGET', config_key(prefix), unpack(names))
  local values = {}
  for i, name in ipairs(names) do values[name] = stored[i] or site_defaults[name] end
  return values
end

-- What a post or a vote needs: vote_score and window (numbers), rankings;
-- INVALID_CONFIG when a number is corrupt.
local function vote_settings(prefix)
  local cfg = site_config(prefix, { 'vote_score', 'window', 'rankings' })
  local vote_score, window = tonumber(cfg.vote_score), tonumber(cfg.window)
  if not vote_score or not window then fail('INVALID_CONFIG', config_key(prefix) .. ' holds a non-number') end
  return vote_score, window, cfg.rankings
end

-- The default articles per page (a number), or INVALID_CONFIG.
local function page_size_setting(prefix)
  local size = site_config(prefix, { 'page_size' }).page_size
  if not size:find('^[1-9]%d*$') or tonumber(size) > 100 then
    fail('INVALID_CONFIG', config_key(prefix) .. ' page_size is not in 1..100')
  end
  return tonumber(size)
end
