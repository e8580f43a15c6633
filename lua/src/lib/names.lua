-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names): 1..64 bytes, and none of
-- : { } * ? [ ] \ , spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= 64 and not s:find('[%c%s:{}%*%?%[%]\\,]')
end
