#!lua flags=no-writes
--[[
  config: read a site's settings (configure.lua documents them and changes
  them). Read-only (flagged no-writes: it runs on a replica, and a client
  that WAITs for replicas after writes does not wait for it).

  Input:
    KEYS[1]  site root "<prefix>article:"; the settings hash is
             <prefix>redvote:config
    (no ARGV)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in), as configure answers

  Cost: O(1): one HMGET of the 4 settings.

  Keys: <prefix>redvote:config

  Reply: pairs(string, integer|string)
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG (the settings hash is of the
    wrong type), REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/site_args"
--- @include "lib/site_settings"

local function main()
  local _, prefix = site_root('config', 0, 0, 'no arguments')
  return site_settings_reply(read_site_settings(prefix))
end

--- @include "lib/epilogue"
