-- exact: shown scores kept as exact decimals, in integer units of
-- 10^-decimals. Needs nothing.

-- The exact range of such a score: a double holds every integer below
-- 2^53, but a decimal fraction stays exact (its nearest double rounds back
-- to it with a step below one unit) only below 2^51 units.
local function exact_limit(decimals)
  return decimals == 0 and 9007199254740992 or 2251799813685248
end

-- A stored decimal (a score, an imported amount; nil: 0) in units.
local function units_of(text, decimals)
  return math.floor(tonumber(text or '0') * 10 ^ decimals + 0.5)
end

-- The format of each `decimals` (0..6): no number to text on the vote's path.
local DECIMAL_FORMATS = { [0] = '%.0f', '%.1f', '%.2f', '%.3f', '%.4f', '%.5f', '%.6f' }

-- Units back to the decimal that is stored and shown.
local function decimal_text(units, decimals)
  return string.format(DECIMAL_FORMATS[decimals] or ('%.' .. decimals .. 'f'), units / 10 ^ decimals)
end
