--- @include "lib/prologue"
-- option: whether a board has an option (a weight in <ns>weights:B). Needs
-- rcall and fail (lib/prologue).

-- Refuses an option the board has no weight for: REDVOTE_UNKNOWN_OPTION.
local function check_option(ns, board, option)
  if rcall('HEXISTS', ns .. 'weights:' .. board, option) == 0 then
    fail('UNKNOWN_OPTION', 'board "' .. board .. '" has no option "' .. option .. '"')
  end
end
