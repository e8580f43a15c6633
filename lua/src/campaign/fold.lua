#!lua
--[[
  campaign_fold: write a buffered campaign's accepted votes to its boards
  (docs/hot-campaigns.md). A campaign in mode "buffered" keeps the votes
  campaign_vote accepts in one buffer a voted option (lib/fold); this
  call takes up to `max` votes, whole options first, the option with the
  oldest vote first, while they fit one call's work, and writes them as
  an immediate vote would (lib/apply: weights as accepted, carry, exact
  decimals, retention, the period index, dense and first side keys,
  participants, statistics), one write per (board, period, option), and
  drops them from the buffers: all in one call. Sent twice, it folds the
  next votes: none is written twice. On an immediate campaign it folds
  nothing.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  max  <integer 1..1000, "" = 1000>  the most votes to fold

  Output: { folded, left, folded_until, overflow }: the votes folded, the
    votes still buffered, the Unix ms before which every accepted vote is
    on the boards (as a string), and how many board entries were left out
    because they would leave the exact range (lib/exact; a vote cannot
    check that when it is accepted).

  Keys: <ns>bufs, <ns>buf:B:O, <ns>board:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>periods:B, <ns>seq, <ns>hll:B:O,
    <ns>hll, <ns>st:B:P, <ns>sp:P, <ns>sn:P

  Reply: {folded: integer, left: integer, folded_until: string,
    overflow: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION, REDVOTE_INVALID_NAME,
    REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/unknown_campaign"
--- @include "lib/integer_arg"
--- @include "lib/fold"

local function main()
  local root, ns, _, c = campaign_key('campaign_fold', 'mode', 'offset', 'stats_keep', 'fold_ms')
  argc('campaign_fold', 1, 1, 'max (1..1000, "" = 1000)')
  local max = ARGV[1] == '' and FOLD_VOTES or integer_arg(ARGV[1], 'max', 1, 1000)
  if rcall('EXISTS', root) == 0 then unknown_campaign(root) end
  local t = rcall('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if c[1] ~= 'buffered' then return { 0, 0, string.format('%.0f', now_ms), 0 } end
  local s = fold_settings(root, { c[2], c[3], c[4] })
  local folded, left, at, overflow = fold_buffer(root, ns, s, max, false, now_ms)
  return { folded, left, string.format('%.0f', at or now_ms), overflow or 0 }
end

--- @include "lib/epilogue"
