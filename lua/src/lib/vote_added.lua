--- @include "lib/prologue"
--- @include "lib/exact"
--- @include "lib/board_stamp"
-- vote_added: what a campaign vote added (lib/void's object: its vote-id
-- record keeps it, and the vote log), from the entries lib/apply planned,
-- or for a buffered vote what plans them again. Needs rcall
-- (lib/prologue), decimal_text (lib/exact), board_stamp (lib/board_stamp).

-- lib/void's object of `vote` (lib/apply's form) whose planned entries are
-- `order`, its pairs on `boards`, in the statistics buckets `buckets`
-- ({ hour = P, day = P }): every board entry with its amount, the pairs
-- with their weights and the boards' remove_gen.
local function vote_added(order, pairs_, boards, vote, buckets)
  local e, s = {}, {}
  for i, w in ipairs(order) do
    e[i] = { w[2].name, w[8], w[3], w[4] and decimal_text(w[9], w[4]) or string.format('%.0f', w[9]) }
  end
  for i, pair in ipairs(pairs_) do
    local gen = boards[pair.board].remove_gen
    s[i] = { pair.board, tostring(pair.weight), gen > 0 and tostring(gen) or nil }
  end
  return { t = tostring(vote.now), u = vote.user, c = vote.channel, d = vote.device, h = buckets.hour,
    dy = buckets.day, e = e, s = s }
end

-- lib/void's compact object of a buffered `vote` (its pairs on `boards`,
-- the campaign's `offset`): instead of every entry with its amount (e),
-- each pair's option and board stamp (x, lib/board_stamp), from which a
-- void plans the entries again and names the statistics buckets (lib/void's
-- void_expand); no voter (the request has it, and a void reads none). A
-- fraction of the bytes, and neither entries nor period names computed
-- when the vote is accepted.
local function vote_recorded(vote, boards, offset)
  local s, x = {}, {}
  for i, pair in ipairs(vote.pairs) do
    local b = boards[pair.board]
    s[i] = { pair.board, tostring(pair.weight), b.remove_gen > 0 and tostring(b.remove_gen) or nil }
    x[i] = { pair.option, board_stamp(b, offset) }
  end
  return { t = tostring(vote.now), s = s, x = x }
end

-- Append `vote` (with id `id`, "" none, and what it added, `info`) to the
-- capped vote log <ns>log (at most about `max` entries); returns its entry.
local function log_vote(ns, max, vote, id, info)
  return rcall('XADD', ns .. 'log', 'MAXLEN', '~', max, '*', 'u', vote.user, 'c', vote.channel, 'd', vote.device,
    'i', id, 'a', cjson.encode(info))
end
