--- @include "lib/prologue"
--- @include "lib/name_arg"
-- board: a board's settings, from <ns>board:B. Needs rcall, fail
-- (lib/prologue) and check_name (lib/name_arg).

-- The settings of the board named `board`: REDVOTE_INVALID_NAME,
-- REDVOTE_UNKNOWN_BOARD, or REDVOTE_INVALID_CONFIG when they are corrupt.
local function board_settings(ns, board)
  check_name(board)
  local s = rcall('HMGET', ns .. 'board:' .. board, 'periods', 'ties', 'decimals', 'carry',
    'keep_hour', 'keep_day', 'keep_week', 'keep_month')
  if not s[1] then fail('UNKNOWN_BOARD', ns .. 'board:' .. board) end
  local keeps, periods = {}, {}
  for p in s[1]:gmatch('[^,]+') do
    keeps[p] = true
    periods[#periods + 1] = p
  end
  local decimals, carry = tonumber(s[3] or 2), tonumber(s[4] or 0)
  if not decimals or not carry then fail('INVALID_CONFIG', ns .. 'board:' .. board .. ' is corrupt') end
  return {
    name = board, keeps = keeps, periods = periods, ties = s[2] or 'competition', decimals = decimals,
    carry_millionths = math.floor(carry * 1000000 + 0.5),
    keep = { hour = tonumber(s[5] or 0), day = tonumber(s[6] or 0), week = tonumber(s[7] or 0), month = tonumber(s[8] or 0) },
  }
end
