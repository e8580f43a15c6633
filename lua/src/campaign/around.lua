#!lua flags=no-writes
--[[
  campaign_around: where one member stands on one board: the members around
  it (a window of K centred on it, filled from the other side at the top or
  the bottom of the board), its rank, percentile and page, the board's size
  and page count. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board
    ARGV[2]  kind      "real" | "shown"
    ARGV[3]  period    "hour" | "day" | "week" | "month" (current), "total" or a name
    ARGV[4]  time      "" for the server's clock; Unix seconds on the test path
    ARGV[5]  member
    ARGV[6]  window    K, 1..101 members
    ARGV[7]  per_page  page size for the page count and the member's page, 1..100

  Output: { size, pages, rank, percentile, page,
            { { member, score, rank }, ... } }
    percentile: the share of the board that scores strictly below the
    member, in percent with 2 decimals (string); rank, percentile and page
    are nil (and the window empty) when the member is not on the board.

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"

--- @include "lib/names"

--- @include "lib/periods"

--- @include "lib/campaign"

--- @include "lib/ranks"

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'campaign' then
    fail('USAGE', 'campaign_around takes 1 key, the campaign root "<ns>campaign"')
  end
  if #ARGV ~= 7 then fail('USAGE', 'campaign_around takes board, kind, period, time, member, window, per_page') end
  local ns = root:sub(1, -9)
  local member, k, per_page = ARGV[5], ARGV[6], ARGV[7]
  check_name(member)
  if not k:find('^[1-9]%d*$') or #k > 3 or tonumber(k) > 101 then
    fail('INVALID_NUMBER', 'window must be an integer in 1..101, got "' .. k:sub(1, 80) .. '"')
  end
  if not per_page:find('^[1-9]%d*$') or #per_page > 3 or tonumber(per_page) > 100 then
    fail('INVALID_NUMBER', 'per_page must be an integer in 1..100, got "' .. per_page:sub(1, 80) .. '"')
  end
  k, per_page = tonumber(k), tonumber(per_page)
  local now = clock(ARGV[4])
  local offset = campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  local kind = ARGV[2]
  local key, fkey = board_key(ns, b, kind, ARGV[3], now, offset)
  local decimals = kind == 'real' and 0 or b.decimals
  local size = rcall('ZCARD', key)
  local pages = math.ceil(size / per_page)
  local pos, rank, score = position(key, fkey, b.ties, member)
  if not pos then return { size, pages, false, false, false, {} } end
  local below = rcall('ZCOUNT', key, '-inf', '(' .. score)
  local start = math.max(0, pos - math.floor((k - 1) / 2))
  local stop = start + k - 1
  if stop > size - 1 then
    stop = size - 1
    start = math.max(0, stop - k + 1)
  end
  local window = ordered_window(key, fkey, b.ties, start, stop)
  for _, e in ipairs(window) do e[2] = fmt(e[2], decimals) end
  return { size, pages, rank, string.format('%.2f', 100 * below / size), math.floor(pos / per_page) + 1, window }
end

--- @include "lib/epilogue"
