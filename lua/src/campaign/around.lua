#!lua flags=no-writes
--[[
  campaign_around: where one member stands on one board: the members around
  it (a window of K centred on it, filled from the other side at the top or
  the bottom of the board), its rank, percentile and page, the board's size
  and page count. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  kind  <enum(real|shown)>  "real" | "shown"
    ARGV[3]  period  <period>  "hour" | "day" | "week" | "month" (current),
             "total" or a name
    ARGV[4]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[5]  member  <name>
    ARGV[6]  window  <integer 1..101>  K, 1..101 members
    ARGV[7]  per_page  <integer 1..100>  page size for the page count and the
             member's page, 1..100

  Output: { size, pages, rank, percentile, page,
            { { member, score, rank }, ... } [, folded] }
    percentile: the share of the board that scores strictly below the
    member, in percent with 2 decimals (string); rank, percentile and page
    are nil (and the window empty) when the member is not on the board.
    Options pending removal (campaign_configure's `remove`, cleaned by
    campaign_remove.lua) are never shown nor counted: lib/ranks, O(R) more
    for R of them on the board, at most 1000. On a buffered campaign
    (docs/hot-campaigns.md) `folded` is the Unix ms (string) before which
    every accepted vote is on the board (lib/folded); votes accepted since
    may still wait in its buffer.

  Keys: <ns>campaign, <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>removing:B

  Reply: {size: integer, pages: integer, rank: integer|nil, percentile:
    string|nil, page: integer|nil, window: list({member: string, score:
    string, rank: integer}), folded: string|nil}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG (a corrupt stored setting), REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/board_view"
--- @include "lib/ranks"
--- @include "lib/position"
--- @include "lib/folded"

local function main()
  local root, ns = campaign_key('campaign_around')
  argc('campaign_around', 7, 7, 'board, kind, period, time, member, window, per_page')
  local member = ARGV[5]
  check_name(member)
  local k = integer_arg(ARGV[6], 'window', 1, 101)
  local per_page = integer_arg(ARGV[7], 'per_page', 1, 100)
  local v = board_view(ns, ARGV[1], ARGV[2], ARGV[3], read_time(root, ARGV[4]))
  local size = live_size(v.r)
  local pages = math.ceil(size / per_page)
  local pos, rank, score = position(v.r, member)
  local folded = folded_until(root)
  if not pos then return { size, pages, false, false, false, {}, folded } end
  local below = rcall('ZCOUNT', v.r.key, '-inf', '(' .. score) - ghosts_beyond(v.r, score, -1)
  local start = math.max(0, pos - math.floor((k - 1) / 2))
  local stop = start + k - 1
  if stop > size - 1 then
    stop = size - 1
    start = math.max(0, stop - k + 1)
  end
  local window = ordered_window(v.r, start, stop)
  for _, e in ipairs(window) do e[2] = fmt(e[2], v.decimals) end
  return { size, pages, rank, string.format('%.2f', 100 * below / size), math.floor(pos / per_page) + 1, window, folded }
end

--- @include "lib/epilogue"
