--- @include "lib/prologue"
-- site_args: the article site's own key and argument checks.

-- The site root "<prefix>article:" (the article id counter), every site
-- script's one key, and ARGV's count (lo..hi, listed in `usage`): returns
-- the key and <prefix>, from which every other key derives. The same checks
-- as lib/args' one_key and argc, in one function: every site call runs it,
-- and each helper a script defines costs a closure per call.
local function site_root(op, lo, hi, usage)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-8) ~= 'article:' then
    fail('USAGE', op .. ' takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
  return key, key:sub(1, -9)
end

-- An article reference, "N" or "article:N" (N 1..15 digits, no leading
-- zero): returns the id N, or refuses with INVALID_ID.
local function article_id(ref)
  local id = ref:match('^article:([1-9]%d*)$') or ref:match('^([1-9]%d*)$')
  if not id or #id > 15 then fail('INVALID_ID', 'article must be N or article:N, got "' .. ref:sub(1, 80) .. '"') end
  return id
end
