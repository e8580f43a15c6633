--- @include "lib/prologue"
-- layout: the data-layout version a site or a campaign was written with
-- (docs/versions.md). A campaign keeps it in the field `layout` of its
-- settings hash <ns>campaign, a site in the field `layout` of
-- <prefix>redvote:config; no field is layout 1 (sites written by the seeds
-- or by any redvote, campaigns configured by redvote 0.5 or before).
--
-- These scripts (redvote 0.6) read and write the layouts LAYOUTS gives,
-- first..last, and configure a new campaign at the last. Site layout 2
-- keeps each group's ordered boards up to date (lib/site_boards); a site
-- moves to it only by upgrade.lua. Campaign layout 3 keeps the per-user
-- counters of fixed-window rate limits in bucketed hashes (lib/limits); a
-- campaign moves to it by campaign_upgrade. A layout outside
-- that range was written by a redvote they do not know: every script, read
-- or write, refuses it (REDVOTE_LAYOUT_VERSION, naming both) before any
-- write, instead of reading or corrupting what it does not understand.
local LAYOUTS = { site = { 1, 2 }, campaign = { 1, 3 } }

-- The layout of the site or campaign (`what`) whose hash `key` holds
-- `stored` in its field `layout` (nil when absent): a number, checked.
local function check_layout(what, key, stored)
  if not stored then return 1 end
  local known = LAYOUTS[what]
  local have = stored:match('^[1-9]%d?%d?$') and tonumber(stored)
  if not have then fail('INVALID_CONFIG', key .. ' layout must be a layout version (1..999)') end
  if have < known[1] or have > known[2] then
    fail('LAYOUT_VERSION', what .. ' data layout ' .. have .. ' is not one this redvote knows (' .. known[1]
      .. '..' .. known[2] .. '): it was written by ' .. (have > known[2] and 'a newer' or 'an older')
      .. ' redvote; run that version, or upgrade the data (docs/versions.md)')
  end
  return have
end
