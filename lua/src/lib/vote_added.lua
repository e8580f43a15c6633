--- @include "lib/prologue"
--- @include "lib/exact"
-- vote_added: what a campaign vote added (lib/void's object: its vote-id
-- record keeps it, and the vote log), from the entries lib/apply planned.
-- Needs rcall (lib/prologue), decimal_text (lib/exact).

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

-- Append `vote` (with id `id`, "" none, and what it added, `info`) to the
-- capped vote log <ns>log (at most about `max` entries); returns its entry.
local function log_vote(ns, max, vote, id, info)
  return rcall('XADD', ns .. 'log', 'MAXLEN', '~', max, '*', 'u', vote.user, 'c', vote.channel, 'd', vote.device,
    'i', id, 'a', cjson.encode(info))
end
