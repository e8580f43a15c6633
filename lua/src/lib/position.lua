--- @include "lib/prologue"
--- @include "lib/ranks"
-- position: where one member stands on a board under its tie rule. Needs
-- rcall (lib/prologue), side_key, order_member (lib/order) and
-- dense_above (lib/ranks).

-- A member's 0-based display position, rank and score on ranked board `r`
-- (lib/ranks); nil when absent. O(log N) under every rule.
local function position(r, member)
  local key, ties = r.key, r.ties
  local s = rcall('ZSCORE', key, member)
  if not s then return nil end
  if ties == 'first' then
    local seq = tonumber(rcall('ZSCORE', side_key(r.ns, 'f', key), member))
    local pos = rcall('ZREVRANK', side_key(r.ns, 'o', key), order_member(seq, member))
    if pos then return pos, pos + 1, s end
    -- (the side key lacks it: a corrupt data set, which campaign check
    -- reports; answer its place among equal scores by name, never a scan)
    pos = rcall('ZREVRANK', key, member)
    return pos, pos + 1, s
  end
  local pos = rcall('ZREVRANK', key, member)
  if ties == 'name' then return pos, pos + 1, s end
  if ties == 'competition' then return pos, rcall('ZCOUNT', key, '(' .. s, '+inf') + 1, s end
  return pos, dense_above(r, s) + 1, s
end
