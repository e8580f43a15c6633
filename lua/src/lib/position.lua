--- @include "lib/prologue"
--- @include "lib/ranks"
-- position: where one member stands on a board under its tie rule. Needs
-- rcall (lib/prologue), side_key, order_member (lib/order) and
-- dense_above, ghosts_ahead, ghosts_beyond (lib/ranks).

-- A member's 0-based display position, rank and score on ranked board `r`
-- (lib/ranks); nil when absent or pending removal (a ghost). O(log N)
-- under every rule, plus O(R) Lua for R ghosts on the board.
local function position(r, member)
  local key, ties = r.key, r.ties
  if r.gone[member] then return nil end
  local s = rcall('ZSCORE', key, member)
  if not s then return nil end
  if ties == 'first' then
    local seq = tonumber(rcall('ZSCORE', side_key(r.ns, 'f', key), member))
    local pos = rcall('ZREVRANK', side_key(r.ns, 'o', key), order_member(seq, member))
    -- (the side key lacks it: a corrupt data set, which campaign check
    -- reports; answer its place among equal scores by name, never a scan)
    pos = (pos or rcall('ZREVRANK', key, member)) - ghosts_ahead(r, tonumber(s), member, seq)
    return pos, pos + 1, s
  end
  local pos = rcall('ZREVRANK', key, member) - ghosts_ahead(r, tonumber(s), member)
  if ties == 'name' then return pos, pos + 1, s end
  if ties == 'competition' then return pos, rcall('ZCOUNT', key, '(' .. s, '+inf') - ghosts_beyond(r, s, 1) + 1, s end
  return pos, dense_above(r, s) + 1, s
end
