-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names): 1..64 bytes, and none of
-- : { } * ? [ ] \ , spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
-- (Most names are letters, digits, _ - and .: a one-class pattern accepts
-- them first, for a quarter of the cost of trying every forbidden byte.)
-- The common names, letters, digits, _ - and . only (a name that needs no
-- escaping in JSON either).
local PLAIN_NAME = '^[%w_%-%.]+$'
-- The longest name, in bytes.
local NAME_MAX = 64

local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= NAME_MAX
    and (s:find(PLAIN_NAME) ~= nil or not s:find('[%c%s:{}%*%?%[%]\\,]'))
end
