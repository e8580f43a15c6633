#!lua
--[[
  campaign_upgrade: move a campaign's data layout forward to the last this
  version writes (lib/layout, docs/versions.md), in bounded steps.

  A campaign configured by redvote 0.5 or before has no `layout` field:
  layout 1. These scripts read and write it as it is, beside redvote 0.5's
  (the rolling deploy), but refuse what 0.5's writers would break: a vote
  log, and a tie switch on a board with votes. Once no client runs 0.5,
  the upgrade records the last layout, and from then on every script of a
  later version checks it. From 1 to 2 no stored value changes form. Layout 3 keeps the per-user counters of fixed-window rate limits
  in bucketed hashes <ns>rlb:RULE:WINDOW:N instead of the voters' hashes
  <ns>rlu:USER (lib/limits); nothing is moved: the call records
  `rlu_until`, 32 days after the server's clock (past the end of every
  window in flight, a month included), and until then (on the explicit
  clock of the test and import path: always) every vote, peek and reset
  also reads (and a reset deletes) the voter's former counter of the same
  window in its hash, so a voter at a limit before the upgrade stays
  refused after it (docs/versions.md). One call does it too; later layouts
  may need several: call with cursor "0", then again with the cursor each
  call returns, until it returns "0". Each call does at most `count` units
  of work. Upgrading a campaign already at the last layout writes nothing
  and answers done.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  cursor  <cursor>  "0" to start; else the cursor the previous call
             returned
    ARGV[2]  count  <integer 1..5000>  units of work in this call, 1..5000

  Writes: HSET <ns>campaign layout (the call that finishes) and, from
    layout 1 or 2, rlu_until (Unix seconds).

  Output: { the layout before this call, the layout after it, next cursor
    ("0": done) }

  Keys: <ns>campaign

  Reply: {from: integer, to: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor), REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_LAYOUT_VERSION, REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/unknown_campaign"

local function main()
  local root, _, from = campaign_key('campaign_upgrade')
  argc('campaign_upgrade', 2, 2, 'cursor, count')
  if ARGV[1] ~= '0' then
    fail('USAGE', 'cursor must be "0" or one campaign_upgrade returned, got "' .. ARGV[1]:sub(1, 80) .. '"')
  end
  integer_arg(ARGV[2], 'count', 1, 5000)
  if rcall('EXISTS', root) == 0 then unknown_campaign(root) end
  local to = math.max(from, CAMPAIGN_LAYOUT_IMMEDIATE)

  -- validated: the writes start here
  if from < to then
    -- the voters' hashes' fixed counters count until every window in
    -- flight has ended (a month is at most 31 days, plus the offset)
    local rlu_until = tonumber(rcall('TIME')[1]) + 32 * 86400
    rcall('HSET', root, 'layout', to, 'rlu_until', rlu_until)
  end
  return { from, to, '0' }
end

--- @include "lib/epilogue"
