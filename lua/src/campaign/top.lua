#!lua flags=no-writes
--[[
  campaign_top: one page of several boards of a campaign, for the current
  period or a named one, real or shown, ranked by each board's tie rule, in
  one call. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  kind      "real" | "shown"
    ARGV[2]  period    "hour" | "day" | "week" | "month" (the current one),
                       "total", or a name: hour:2026-03-17T12, day:2026-03-17,
                       week:2026-W12, month:2026-03
    ARGV[3]  page      1-based page number, 1..1000000
    ARGV[4]  per_page  1..100
    ARGV[5]  time      "" for the server's clock; Unix seconds on the test path
    ARGV[6..] boards   1..20 board names

  Output: per board, in order: { board, period name, size (members),
    { { member, score (string, the board's decimals), rank }, ... } }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"

--- @include "lib/names"

--- @include "lib/periods"

--- @include "lib/campaign"

--- @include "lib/ranks"

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'campaign' then
    fail('USAGE', 'campaign_top takes 1 key, the campaign root "<ns>campaign"')
  end
  if #ARGV < 6 or #ARGV > 25 then fail('USAGE', 'campaign_top takes kind, period, page, per_page, time, then 1..20 boards') end
  local ns = root:sub(1, -9)
  local kind, selector, page, per_page = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
  if not page:find('^[1-9]%d*$') or #page > 7 or tonumber(page) > 1000000 then
    fail('INVALID_NUMBER', 'page must be an integer in 1..1000000, got "' .. page:sub(1, 80) .. '"')
  end
  if not per_page:find('^[1-9]%d*$') or #per_page > 3 or tonumber(per_page) > 100 then
    fail('INVALID_NUMBER', 'per_page must be an integer in 1..100, got "' .. per_page:sub(1, 80) .. '"')
  end
  local now = clock(ARGV[5])
  local offset = campaign_offset(root)
  local start = (tonumber(page) - 1) * tonumber(per_page)
  local wanted = {}
  for i = 6, #ARGV do
    local b = board_settings(ns, ARGV[i])
    local key, fkey, name = board_key(ns, b, kind, selector, now, offset)
    wanted[#wanted + 1] = { b, key, fkey, name }
  end
  local reply = {}
  for _, w in ipairs(wanted) do
    local b, key, fkey, name = w[1], w[2], w[3], w[4]
    local entries = ordered_window(key, fkey, b.ties, start, start + tonumber(per_page) - 1)
    for _, e in ipairs(entries) do e[2] = fmt(e[2], kind == 'real' and 0 or b.decimals) end
    reply[#reply + 1] = { b.name, name, rcall('ZCARD', key), entries }
  end
  return reply
end

--- @include "lib/epilogue"
