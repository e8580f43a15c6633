#!lua flags=no-writes
--[[
  campaign_standing: for several members of one board, in one call: rank
  (1-based, by the board's tie rule), score, the member just ahead in the
  board's order and the gap to it, and the same member's rank and score in
  the previous period. Read-only.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  kind  <enum(real|shown)>  "real" | "shown"
    ARGV[3]  period  <period>  "hour" | "day" | "week" | "month" (the current
             one), "total", or a name such as day:2026-03-17
    ARGV[4]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[5..]  members  <name, repeat 1..100>  1..100

  Output: per member: { member, rank, score, ahead, gap, previous rank,
    previous score [, folded] }; scores and gaps are strings with the
    board's decimals; nil where there is none (not on the board, the leader
    has no one ahead, "total" has no previous period). On a buffered
    campaign (docs/hot-campaigns.md) `folded` is the Unix ms (string) before
    which every accepted vote is on the board (lib/folded); votes accepted
    since may still wait in its buffer. An option pending removal
    (campaign_configure's `remove`, cleaned by campaign_remove.lua) is not
    on the board, nor counted in anyone's rank: lib/ranks, O(R) more
    a period board read for R of them on it, at most 1000.

  Keys: <ns>campaign, <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>removing:B

  Reply: list({member: string, rank: integer|nil, score: string|nil, ahead:
    string|nil, gap: string|nil, previous_rank: integer|nil, previous_score:
    string|nil, folded: string|nil})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG (a corrupt stored setting), REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/board_view"
--- @include "lib/ranks"
--- @include "lib/position"
--- @include "lib/folded"

local function main()
  local root, ns = campaign_key('campaign_standing')
  argc('campaign_standing', 5, 104, 'board, kind, period, time, then 1..100 members')
  local now, offset = read_time(root, ARGV[4])
  local v = board_view(ns, ARGV[1], ARGV[2], ARGV[3], now, offset)
  local decimals = v.decimals
  local prev_key = board_key(ns, v.b, ARGV[2], ARGV[3], now, offset, -1)
  local prev = prev_key and ranked(ns, v.b, prev_key)
  local folded = folded_until(root)
  local reply = {}
  for i = 5, #ARGV do
    local member = ARGV[i]
    check_name(member)
    local entry = { member, false, false, false, false, false, false, folded }
    local pos, rank, score = position(v.r, member)
    if pos then
      entry[2], entry[3] = rank, fmt(score, decimals)
      if pos > 0 then
        local ahead = ordered_window(v.r, pos - 1, pos - 1)[1]
        entry[4], entry[5] = ahead[1], fmt(tonumber(ahead[2]) - tonumber(score), decimals)
      end
    end
    if prev then
      local _, prev_rank, prev_score = position(prev, member)
      if prev_rank then entry[6], entry[7] = prev_rank, fmt(prev_score, decimals) end
    end
    reply[#reply + 1] = entry
  end
  return reply
end

--- @include "lib/epilogue"
