--- @include "lib/prologue"
--- @include "lib/ranks"
-- position: where one member stands on a board under its tie rule. Needs
-- rcall (lib/prologue) and distinct_above, tie_group (lib/ranks).

-- A member's 0-based display position, rank and score; nil when absent.
local function position(key, fkey, ties, member)
  local s = rcall('ZSCORE', key, member)
  if not s then return nil end
  if ties == 'first' then
    local above = rcall('ZCOUNT', key, '(' .. s, '+inf')
    for i, m in ipairs(tie_group(key, fkey, s)) do
      if m == member then return above + i - 1, above + i, s end
    end
  end
  local pos = rcall('ZREVRANK', key, member)
  if ties == 'name' then return pos, pos + 1, s end
  if ties == 'competition' then return pos, rcall('ZCOUNT', key, '(' .. s, '+inf') + 1, s end
  return pos, distinct_above(key, s) + 1, s
end
