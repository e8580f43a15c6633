#!lua flags=no-writes
--[[
  campaign_top: one page of several boards of a campaign, for the current
  period or a named one, real or shown, ranked by each board's tie rule, in
  one call. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  kind  <enum(real|shown)>  "real" | "shown"
    ARGV[2]  period  <period>  "hour" | "day" | "week" | "month" (the current
             one), "total", or a name: hour:2026-03-17T12, day:2026-03-17,
             week:2026-W12, month:2026-03
    ARGV[3]  page  <integer 1..1000000>  1-based page number, 1..1000000
    ARGV[4]  per_page  <integer 1..100>  1..100
    ARGV[5]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[6..]  boards  <name, repeat 1..20>  1..20 board names

  Output: per board, in order: { board, period name, size (members),
    { { member, score (string, the board's decimals), rank }, ... }
    [, folded] }: on a buffered campaign (docs/hot-campaigns.md) `folded`
    is the Unix ms (string) before which every accepted vote is on the
    boards (lib/folded); votes accepted since may still wait in its buffer.

  Pending removals: options removed by campaign_configure whose cleanup
    (campaign_remove.lua) has not reached this period board yet are never
    shown, counted in the size, nor ranked ahead of anyone (lib/ranks: two
    or three calls and O(R) Lua more for R options pending removal on the
    board, at most 1000, and R entries more read; nothing more when none
    is).

  Keys: <ns>campaign, <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>removing:B

  Reply: list({board: string, period: string, size: integer, members:
    list({member: string, score: string, rank: integer}), folded:
    string|nil})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG (a corrupt stored setting), REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/board_view"
--- @include "lib/ranks"
--- @include "lib/folded"

local function main()
  local root, ns = campaign_key('campaign_top')
  argc('campaign_top', 6, 25, 'kind, period, page, per_page, time, then 1..20 boards')
  local kind, selector = ARGV[1], ARGV[2]
  local page = integer_arg(ARGV[3], 'page', 1, 1000000)
  local per_page = integer_arg(ARGV[4], 'per_page', 1, 100)
  local now, offset = read_time(root, ARGV[5])
  local views = {}
  for i = 6, #ARGV do views[#views + 1] = board_view(ns, ARGV[i], kind, selector, now, offset) end
  local start = (page - 1) * per_page
  local folded = folded_until(root)
  local reply = {}
  for _, v in ipairs(views) do
    local entries = ordered_window(v.r, start, start + per_page - 1)
    for _, e in ipairs(entries) do e[2] = fmt(e[2], v.decimals) end
    reply[#reply + 1] = { v.b.name, v.name, live_size(v.r), entries, folded }
  end
  return reply
end

--- @include "lib/epilogue"
