--- @include "lib/prologue"
-- user: a user id is an opaque string of 1..256 bytes without control
-- characters.
local function check_user(user)
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
end
