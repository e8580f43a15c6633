--- @include "lib/prologue"
--- @include "lib/board"
--- @include "lib/periods"
-- entries: the board entries that accepted campaign votes add, planned
-- without a read: lib/apply reads and writes them, a buffered vote's
-- intake records them (lib/vote_added). ctx and the votes as lib/apply
-- takes them. Needs expire_at (lib/board), period (lib/periods).

-- The entries `votes` add (a pair's `count`, when set, the like votes it
-- stands for), each (board period key, option) once with the
-- votes' amounts summed, in the order the votes first name them (`order`),
-- and grouped by key (`groups`); each vote's `shown_at` (ctx.reply: every
-- pair's period names and shown entries) and `periods_at`. An entry is an
-- array (cheaper to make than named fields): [1] key, [2] board settings,
-- [3] option, [4] scale (false: a real board), [5] units after the votes
-- (lib/apply), [6] the key's expiry (false: none), [7] the score before
-- (lib/apply; false: none), [8] which (real:P or shown:P), [9] units
-- added, [10] the side keys' state (lib/apply), [11] the score written
-- (lib/apply), [12] true: beyond the exact range (lib/apply).
local function planned_entries(ctx, votes)
  local ns, boards = ctx.ns, ctx.boards
  local p = { order = {}, groups = {} }
  local joined, order, groups, by_key = {}, p.order, p.groups, {}
  -- a key and an option meet twice only in a batch or a fold
  local join = #votes > 1 or #votes[1].pairs > 1
  -- An entry planned, its amount added; read later, by key (read_entries).
  local function add(b, which, name, key, option, units, scale, expiry)
    local id = join and key .. '\0' .. option
    local e = id and joined[id]
    if not e then
      e = { key, b, option, scale or false, 0, expiry or false, false, which .. name, 0, false, false, false }
      if id then joined[id] = e end
      order[#order + 1] = e
      local g = by_key[key]
      if not g then
        g = { e }
        by_key[key] = g
        groups[#groups + 1] = g
      else
        g[#g + 1] = e
      end
    end
    e[9] = e[9] + units
    return e
  end
  local gone, by_time = ctx.gone, {}
  for _, vote in ipairs(votes) do
    -- each period kind's current period (and the next one, for the carry)
    -- once a vote time: every pair of a vote votes at the same second
    local periods_at = vote.periods_at or by_time[vote.now]
    if not periods_at then periods_at = {}; by_time[vote.now] = periods_at end
    vote.periods_at = periods_at
    local shown_at = ctx.reply and {}
    vote.shown_at = shown_at
    for n, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      local scale, unit = b.decimals, 10 ^ b.decimals
      -- a fold's pair stands for `count` like votes (lib/fold): each adds the
      -- same, the carried share rounded a vote
      local like = pair.count or 1
      local carried = b.carry_millionths > 0 and math.floor(pair.weight * b.carry_millionths * unit / 1000000 + 0.5) * like or 0
      local board_keys = ns .. 'b:' .. b.name
      local shown = shown_at and {}
      if shown_at then shown_at[n] = shown end
      for _, kind in ipairs(b.periods) do
        local pa = periods_at[kind]
        if not pa then
          local name, _, finish = period(kind, vote.now, ctx.offset)
          pa = { name, finish }
          periods_at[kind] = pa
        end
        local name, finish = pa[1], pa[2]
        local expiry = expire_at(b, kind, finish)
        if ctx.refuse then ctx.refuse(b, name, expiry) end
        if not (gone and expiry and expiry <= gone) then
          add(b, 'real:', name, board_keys .. ':real:' .. name, pair.option, like, nil, expiry)
          local e = add(b, 'shown:', name, board_keys .. ':shown:' .. name, pair.option, pair.weight * unit * like, scale,
            expiry)
          if shown then
            shown[#shown + 1] = name
            shown[#shown + 1] = e
          end
        end
        if finish and carried > 0 then
          if not pa[3] then
            local next_name, _, next_finish = period(kind, finish, ctx.offset)
            pa[3], pa[4] = next_name, next_finish
          end
          local next_expiry = expire_at(b, kind, pa[4])
          if not (gone and next_expiry and next_expiry <= gone) then
            add(b, 'shown:', pa[3], board_keys .. ':shown:' .. pa[3], pair.option, carried, scale, next_expiry)
          end
        end
      end
    end
  end

  return p
end
