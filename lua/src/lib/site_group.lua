--- @include "lib/prologue"
--- @include "lib/names"
-- site_group: a group name must follow lib/names' rule (INVALID_GROUP otherwise).
local function check_group(group)
  if not name_ok(group) then
    fail('INVALID_GROUP', 'group must be 1..64 bytes without colons, braces, asterisks, question marks, square brackets, backslashes, commas, spaces or control characters, got "' .. group:sub(1, 80) .. '"')
  end
end
