--- @include "lib/prologue"
--- @include "lib/site_config"
-- site_settings: the site's settings as configure (the writer) and config
-- (the read-only read) answer them: every setting in reply order, its
-- default, and the effective values read from <prefix>redvote:config.
-- Needs rcall (lib/prologue) and the defaults of lib/site_config.

-- Every setting, in reply order, and its default.
local SETTINGS = { 'vote_score', 'window', 'page_size', 'rankings' }
local SETTING_DEFAULTS = { vote_score = DEFAULT_VOTE_SCORE, window = DEFAULT_WINDOW, page_size = DEFAULT_PAGE_SIZE, rankings = '' }

-- The effective settings of the site under `prefix`: setting -> value as
-- stored (one HMGET), the default for those never set.
local function read_site_settings(prefix)
  local stored = rcall('HMGET', prefix .. CONFIG, unpack(SETTINGS))
  local current = {}
  for i, name in ipairs(SETTINGS) do current[name] = stored[i] or SETTING_DEFAULTS[name] end
  return current
end

-- `current` as the reply { "vote_score", v, "window", v, "page_size", v,
-- "rankings", v }.
local function site_settings_reply(current)
  local reply = {}
  for _, name in ipairs(SETTINGS) do
    reply[#reply + 1] = name
    reply[#reply + 1] = current[name]
  end
  return reply
end
