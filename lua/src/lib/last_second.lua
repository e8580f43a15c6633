--- @include "lib/prologue"
-- last_second: the last moment a campaign write may take (a vote's or an
-- import's explicit time). Needs fail (lib/prologue).

-- The last second whose calendar names four-digit years (9999-12-31T23:59:59
-- UTC): the bound of every stored time (a campaign's start and end).
local LAST_SECOND = 253402300799

-- A moment a write may take (`now`, from `at`, in the campaign's UTC
-- `offset`): at most LAST_SECOND, in UTC and in the offset, since no
-- period name addresses a later one (REDVOTE_INVALID_NUMBER otherwise).
local function check_last_second(now, offset, at)
  if now > LAST_SECOND or now + offset > LAST_SECOND then
    fail('INVALID_NUMBER', 'time must be at most 9999-12-31T23:59:59 in the campaign\'s UTC offset, got "' .. tostring(at):sub(1, 40) .. '"')
  end
end
