-- board_stamp: needs nothing.

-- What decides the entries a vote writes on board `b` (lib/entries): its
-- periods, carry and decimals, and the campaign's UTC `offset` (seconds),
-- as text: a buffered vote's record keeps it (lib/vote_added), and a void
-- plans the vote's entries again only while it still holds (lib/void).
local function board_stamp(b, offset)
  return table.concat(b.periods, ',') .. '|' .. b.carry_millionths .. '|' .. b.decimals .. '|' .. offset
end
