--- @include "lib/prologue"
-- board_write: for writes to period boards (vote, import): the index of
-- the boards written (their expiry: lib/board's expire_at). Needs rcall
-- (lib/prologue); `b` is what board_settings (lib/board) returns.

-- Which of the period boards a write touches are new to <ns>periods:B
-- (the index of the boards written, members "real:P" / "shown:P" ->
-- expiry, 0: kept): a read, done before the first write (an index of the
-- wrong type is refused here; campaign_vote asks only about the boards it
-- did not see to exist). `touched` is a list of { member, expire_at or
-- false }; returns the list of the new ones, then that of the listed ones.
local function new_periods(ns, board, touched)
  local members = {}
  for i, t in ipairs(touched) do members[i] = t[1] end
  local known = rcall('ZMSCORE', ns .. 'periods:' .. board, unpack(members))
  local fresh, listed = {}, {}
  for i, t in ipairs(touched) do
    if known[i] then listed[#listed + 1] = t else fresh[#fresh + 1] = t end
  end
  return fresh, listed
end

-- After the write: record the new period boards (from new_periods) in
-- <ns>periods:B, so that removing an option can find every board, and give
-- each its expiry; and give a listed board written its expiry if it has
-- none (EXPIREAT NX: a board the index knew but that was gone, expired,
-- evicted or deleted, is made anew by the write; one that exists keeps its
-- own). Side keys get theirs when order_write creates them (lib/order).
local function track_periods(ns, board, fresh, listed)
  for _, t in ipairs(fresh) do
    rcall('ZADD', ns .. 'periods:' .. board, t[2] or 0, t[1])
    if t[2] then rcall('EXPIREAT', ns .. 'b:' .. board .. ':' .. t[1], t[2]) end
  end
  for _, t in ipairs(listed) do
    if t[2] then rcall('EXPIREAT', ns .. 'b:' .. board .. ':' .. t[1], t[2], 'NX') end
  end
end
