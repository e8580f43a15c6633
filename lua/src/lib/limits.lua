--- @include "lib/user"
--- @include "lib/prologue"
--- @include "lib/args"
--- @include "lib/name_arg"
--- @include "lib/periods"
-- limits: rate limits, checked inside the vote before its first write
-- (campaign_vote) or looked at without spending (campaign_limits): the
-- voter's arguments, the rules, and what a call would spend of each
-- counter (lib/limit_spend spends it). Needs rcall, fail (lib/prologue),
-- check_user (lib/args), check_name (lib/name_arg) and period
-- (lib/periods).
--
-- A rule (stored as JSON in the campaign hash, field `limits`, validated by
-- campaign_configure) counts votes per combination of dimensions `by`
-- (user, option, channel, device) over one window:
--   fixed windows  second, minute, hour, day, week, month: calendar-aligned
--                  in the campaign's UTC offset; a counter per window that
--                  expires when the window ends (a burst at a window edge can
--                  reach twice the limit over a short span);
--   campaign       one counter for the whole campaign (expires at its end);
--                  a refusal by it, or by a window that ends after the
--                  campaign does, has retry_after -1 (not within the campaign);
--   rolling        GCRA (as redis-cell and go-redis/redis_rate): `limit`
--                  votes per `per` seconds spaced evenly, `burst` at once;
--                  no edge bursts; one key per subject holding the
--                  theoretical arrival time.
-- `extra` maps a channel to extra allowance (a partner channel: +5).
-- A vote passes only if every rule passes; nothing is spent unless all do.

-- The voter: a user id, and the channel and device rules may count by ("":
-- none), names.
local function check_voter(user, channel, device)
  check_user(user)
  if channel ~= '' then check_name(channel) end
  if device ~= '' then check_name(device) end
end

-- The rules, from the campaign's `limits` field (JSON).
local function limit_rules(root, json)
  local ok, rules = pcall(cjson.decode, json)
  if not ok or type(rules) ~= 'table' then fail('INVALID_CONFIG', root .. ' limits are corrupt') end
  return rules
end

-- Whom a rule counts a vote for one option against: the values of its
-- dimensions `by`, each prefixed by its length.
local function limit_subject(rule, ctx, board, option)
  local parts = {}
  for _, dim in ipairs(rule.by) do
    if dim == 'option' then
      parts[#parts + 1] = #board .. ':' .. board .. #option .. ':' .. option
    else
      parts[#parts + 1] = #ctx[dim] .. ':' .. ctx[dim]
    end
  end
  return table.concat(parts, '|')
end

-- The window holding `now`: id and end (first second after; nil: none).
local function limit_window(rule, now, offset, campaign_end)
  local w = rule.window
  if w == 'second' then return tostring(now), now + 1 end
  if w == 'minute' then
    local m = math.floor(now / 60)
    return 'm' .. m, (m + 1) * 60
  end
  if w == 'campaign' then return 'campaign', campaign_end end
  local name, _, finish = period(w, now, offset)
  return name, finish
end

-- Every counter this call touches, with what it would spend: a list of
-- checks { rule, key, need, allowance, finish } (rolling rules: key holds
-- the theoretical arrival time; finish unused).
local function limit_plan(ns, rules, ctx, pairs, cost, now, offset, campaign_end)
  local checks, by_key = {}, {}
  for _, rule in ipairs(rules) do
    local allowance = (rule.rolling and rule.burst or rule.limit) + ((rule.extra or {})[ctx.channel] or 0)
    for _, pair in ipairs(pairs) do
      local id, finish = 'rolling', nil
      if not rule.rolling then id, finish = limit_window(rule, now, offset, campaign_end) end
      local key = ns .. 'rl:' .. rule.name .. ':' .. id .. ':' .. limit_subject(rule, ctx, pair.board, pair.option)
      local check = by_key[key]
      if not check then
        -- A window that outlives the campaign never resets within it.
        local never = rule.window == 'campaign' or (campaign_end ~= nil and finish ~= nil and finish >= campaign_end)
        check = { rule = rule, key = key, need = 0, allowance = allowance, finish = finish, never = never }
        by_key[key] = check
        checks[#checks + 1] = check
      end
      check.need = check.need + cost
    end
  end
  return checks
end

-- Evaluate every check without writing. Returns the refusal (nil when all
-- pass) as { rule, retry_after, remaining = { rule name -> votes left } }.
-- `clock` is now in seconds with fractions (rolling rules).
local function limit_evaluate(checks, now, clock)
  local remaining, refused, retry = {}, nil, 0
  local keys = {}
  for i, c in ipairs(checks) do keys[i] = c.key end
  local values = #keys > 0 and rcall('MGET', unpack(keys)) or {} -- one read for every counter
  for i, c in ipairs(checks) do
    local stored = values[i] and tonumber(values[i]) or nil -- MGET gives false when absent
    c.existed = stored ~= nil
    local left, wait
    if c.rule.rolling then
      local interval = c.rule.per / c.rule.limit
      local tat = math.max(stored or 0, clock)
      c.new_tat = tat + c.need * interval
      local allow_at = c.new_tat - c.allowance * interval
      left = math.floor((clock - (tat - c.allowance * interval)) / interval + 1e-9)
      if clock < allow_at then wait = c.need > c.allowance and -1 or math.ceil(allow_at - clock) end
      c.reset_in = math.max(0, math.ceil((stored or 0) - clock))
    else
      local used = stored or 0
      left = c.allowance - used
      if used + c.need > c.allowance then
        -- More than a whole window allows can never pass: -1 as well.
        wait = (c.never or not c.finish or c.need > c.allowance) and -1 or (c.finish - now)
      end
      c.reset_in = (c.never or not c.finish) and -1 or (c.finish - now)
    end
    c.left = math.max(0, left)
    local name = c.rule.name
    remaining[name] = math.min(remaining[name] or c.left, c.left)
    if wait then
      refused = refused or name
      if wait < 0 or retry < 0 then retry = -1 else retry = math.max(retry, wait) end
    end
  end
  if refused then return { rule = refused, retry_after = retry, remaining = remaining } end
  return nil, remaining
end
