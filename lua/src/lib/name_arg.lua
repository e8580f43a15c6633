--- @include "lib/prologue"
--- @include "lib/names"
-- name_arg: a board, option, channel or device name given as an argument.
-- Needs fail (lib/prologue) and name_ok (lib/names).

-- Refuses what name_ok does not accept, as REDVOTE_INVALID_NAME.
local function check_name(s)
  if not name_ok(s) then
    fail('INVALID_NAME', '"' .. s:sub(1, 80) .. '" is not a board or option name (1..64 bytes, none of colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters)')
  end
end
