#!/usr/bin/env bash
# vote_phases.sh: where a campaign vote's server instructions (Ir) go, phase
# by phase (docs/benchmark.md, "Where a vote's instructions go").
#
#   bash crates/redvote-bench/tools/vote_phases.sh [competition|first|limits|layouts|markers] [calls]
#
# Method: copies of lua/campaign_vote.lua cut short (`do return 1 end`)
# before each phase of its main(); each copy runs `calls` votes (default
# 200; a new user a call, the i-th for option i * 7 mod 100, as the bench's
# `ir` rows) on a throwaway redis-server under callgrind (processCommand
# toggled, as redvote_testing::callgrind), after 300 votes of the whole
# script on the `ir` rows' 5-period board (its settings: `cargo bench -p
# redvote-bench -- ir-settings`, which this script reads), so every copy
# meets the same boards. A phase's Ir is the difference between the copies
# cut after and before it (redis-cli's own COMMAND DOCS, once a session,
# left out). The whole script's Ir is also split into its commands
# (callgrind_annotate's inclusive scriptCall) and the rest, and its
# commands by Redis command function.
#
# `limits`: the same on the `ir` section's rate-limit row instead (its
# settings with its 4 rules and without, and its voters' channel and
# device): the whole script with the 4 rules and with none, and the steps
# of the rules' own code, each measured between a copy cut just before it
# and one cut just after it (the rules' decoding, plan, evaluation and
# spend).
# `layouts`: first ties' side keys as shipped (per board entry: a ZCARD of
# the o: key and a ZSCORE of the f: key read, two ZADDs and a ZREM
# written) against a prototype that folds f: into o: (a ZSCORE of the o:
# key read, one ZADD of two members and a ZREM written: the least a first
# index can do, with its type check, that finds a member's entry by
# lookup) and competition, on the rows' 100 options and on 1,000: the
# whole script's Ir a vote and the boards' MEMORY USAGE an option, each
# after votes of that script on every option (the prototype's other
# scripts are not changed: it is only for measuring its votes).
# `markers`: only check that every line a copy is cut at is in the script
# once (no build, no server; the bench's smoke run does, so a change to the
# vote that moves one fails there, not in the next measurement).
# Needs valgrind, redis-server, redis-cli, python3 and cargo; talks only to
# the servers it starts (unix sockets in a temporary directory).
set -euo pipefail
ties=${1:-competition}
calls=${2:-200}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$ties" != markers ]; then
  cargo build -q --manifest-path "$root/Cargo.toml" -p redvote-cli
  # the ir rows' settings (crates/redvote-bench/benches/redvote/ir.rs, IrSettings)
  (cd "$root" && cargo bench -q -p redvote-bench -- ir-settings) >"$work/ir-settings.json"
fi
cli="$root/target/debug/redvote"

python3 - "$ties" "$root/lua/campaign_vote.lua" "$work" <<'PY'
import json, sys
ties, script, work = sys.argv[1:4]
src = open(script).read()
# the phases of main(), in order: (name, the line that starts it)
phases = [
    ("arguments, clock, the campaign hash, the vote id", "  local root, ns, layout, c = campaign_key("),
    ("campaign settings (rate-limit rules: none here)", "  if not c[6] then unknown_campaign(root) end\n"),
    ("board settings and the option's weight", "  local boards, pairs_, sided, first_ties = {}, {}, false, false\n"),
    ("bounded work, deny lists, rate limits (none here)", "  if #pairs_ > 1 then\n"),
    ("the writers made (lib/apply, lib/fold: their closures)", "  local w = writers()\n"),
    ("the plan (lib/apply): entries, board reads, period index, sequence, HyperLogLog and statistics checks",
     "  local plan = w.apply_plan(ctx, { vote })\n"),
    ("the writes (lib/apply's apply_write, statistics included)", "  w.apply_write(ctx, plan)\n"),
    ("the reply", "  local info = (request or vote_log > 0)"),
]
# the steps of the rate-limit rules: (name, copy cut before the step, copy
# cut after it): a line each, the cut made before it or after it
steps = [
    ("the rules decoded (cjson), the limit functions defined",
     ("before", "  local rules, limit_plan_, limit_evaluate_, limit_spend_ = c[4] and c[4] ~= '[]'\n"),
     ("after", "    limit_plan_, limit_evaluate_, limit_spend_ = limit_plan, limit_evaluate, limit_spend\n")),
    ("the plan (limit_plan: keys, fields, checks)",
     ("before", "    checks = limit_plan_(ns, rules, "),
     ("before", "    local refusal = limit_evaluate_(checks)\n")),
    ("the evaluation (limit_evaluate: the counters read)",
     ("before", "    local refusal = limit_evaluate_(checks)\n"),
     ("before", "    if refusal then fail('RATE_LIMITED', cjson.encode(refusal)) end\n")),
    ("the spend (limit_spend: the counters written)",
     ("before", "  if checks then limit_spend_(checks) end\n"),
     ("after", "  if checks then limit_spend_(checks) end\n")),
]
# the layouts' prototype replaces these functions (from the first line to
# the second)
proto_span = ("local function order_read(ns, b, key, member)\n", "local function order_remove(ns, b, key, member)\n")
proto = '''local function order_read(ns, b, key, member)
  local o = ns .. 'o' .. key:sub(#ns + 2)
  local v = rcall('ZSCORE', o, '#' .. member)
  return { o, v and (-tonumber(v) - 1) or false }
end

local function order_write(ns, b, key, member, old, new, st, seq, expiry, fresh)
  local o = st[1]
  rcall('ZADD', o, new, order_member(seq, member), string.format('%d', -seq - 1), '#' .. member)
  rcall('ZREM', o, order_member(st[2], member))
end

'''
# every line a copy is cut at must be in the script once
missing = [line for line in [l for _, l in phases] + [l for _, b, a in steps for _, l in (b, a)] + list(proto_span)
           if src.count(line) != 1]
if missing:
    sys.exit("vote_phases.sh: lua/campaign_vote.lua no longer has these lines once (update the "
             "tool's phases and steps):\n" + "".join(f"  {l!r}\n" for l in missing))
if ties == "markers":
    sys.exit(0)
ir = json.load(open(f"{work}/ir-settings.json"))
def write(name, doc):
    open(f"{work}/{name}", "w").write(json.dumps(doc))
# the vote's arguments between the user and the option (redis-cli's
# quoting): the cost (""), the voter's channel and device ("": none), the
# clock and the vote id (""), the board; the options, the i-th call voting
# for options[i * 7 % len]
if ties == "limits":
    board, voter = ir["limits_board"], ir["voter"]
else:
    board, voter = ir["board"], ["", ""]
fixed = ["", *voter, "", "", board]
open(f"{work}/vote", "w").write(" ".join(json.dumps(v) for v in fixed) + "\n")
open(f"{work}/options", "w").write("".join(o + "\n" for o in ir["options"]))
if ties == "limits":
    write("settings.json", ir["limits"])
    write("settings-none.json", ir["limits_none"])
    cut = "do return 1 end\n"
    def copy(where, line):
        at = src.index(line) + (len(line) if where == "after" else 0)
        return src[:at] + cut + src[at:]
    names = []
    for i, (name, before, after) in enumerate(steps):
        open(f"{work}/step{i}a.lua", "w").write(copy(*before))
        open(f"{work}/step{i}b.lua", "w").write(copy(*after))
        names.append(name)
    open(f"{work}/whole.lua", "w").write(src)
    open(f"{work}/names", "w").write("".join(n + "\n" for n in names))
    sys.exit(0)
if ties == "layouts":
    a, b = src.index(proto_span[0]), src.index(proto_span[1])
    open(f"{work}/whole.lua", "w").write(src)
    open(f"{work}/merged.lua", "w").write(src[:a] + proto + src[b:])
    for n in (100, 1000):
        options = [f"opt{i}" for i in range(1, n + 1)]
        open(f"{work}/options{n}", "w").write("".join(o + "\n" for o in options))
        for kind in ("campaign", "first"):
            doc = json.loads(json.dumps(ir[kind]))
            board = doc["boards"][ir["board"]]
            weight = next(iter(board["options"].values()))
            board["options"] = {o: weight for o in options}
            write(f"{kind}{n}.json", doc)
    sys.exit(0)
if ties not in ("competition", "first"):
    sys.exit(f"vote_phases.sh: unknown mode {ties!r} (competition, first, limits, layouts or markers)")
write("settings.json", ir["first" if ties == "first" else "campaign"])
names = []
for i, (name, line) in enumerate(phases):
    open(f"{work}/cut{i}.lua", "w").write(src.replace(line, "  do return 1 end\n" + line))
    names.append(name)
open(f"{work}/cut{len(phases)}.lua", "w").write(src)
open(f"{work}/names", "w").write("".join(n + "\n" for n in names))
PY
[ "$ties" = markers ] && exit 0

# measure COPY [SETTINGS]: Ir a call of `calls` votes of COPY (and its
# commands' share), on a fresh server configured with SETTINGS
# (settings.json by default), after $prefill (300) votes of the whole
# script ($whole_copy). Prints the Ir a call, of it in the commands, the
# board keys' MEMORY USAGE an option and the commands the script sent a
# call (INFO commandstats).
prefill=300
measure() {
  local copy=$1 settings=${2:-settings.json} dir="$work/server" sock
  rm -rf "$dir"; mkdir -p "$dir"; sock="$dir/redis.sock"
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect=processCommand \
    --callgrind-out-file="$dir/cg.out" redis-server --port 0 --unixsocket "$sock" \
    --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 240); do redis-cli -s "$sock" ping >/dev/null 2>&1 && break; sleep 0.5; done
  "$cli" --url "redis+unix://$sock" campaign bench configure "$work/$settings" >/dev/null
  local whole part
  whole=$(redis-cli -s "$sock" SCRIPT LOAD "$(cat "$work/$whole_copy")")
  part=$(redis-cli -s "$sock" SCRIPT LOAD "$(cat "$work/$copy")")
  votes() { # sha from to
    for i in $(seq "$2" "$3"); do
      printf 'EVALSHA %s 1 {c:bench}:campaign w%d %s %s\n' "$1" "$i" "$vote" "${options[$((i * 7 % ${#options[@]}))]}"
    done
  }
  # (new users a call: the measured ones after the prefill's)
  local from=$((prefill < 1000 ? 1001 : prefill + 1001))
  votes "$whole" 1 "$prefill" | redis-cli -s "$sock" >/dev/null
  votes "$part" $((from - 1)) $((from - 1)) | redis-cli -s "$sock" >/dev/null
  redis-cli -s "$sock" CONFIG RESETSTAT >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  votes "$part" "$from" $((from - 1 + calls)) | redis-cli -s "$sock" >"$dir/replies"
  callgrind_control -d "$pid" >/dev/null 2>&1
  local bytes=0 key
  while read -r key; do
    bytes=$((bytes + $(redis-cli -s "$sock" MEMORY USAGE "$key" SAMPLES 0)))
  done < <(redis-cli -s "$sock" --scan --pattern '{c:bench}:[bofd]:*')
  # the commands the script sent (its EVALSHA, redis-cli's and these
  # tools' own left out)
  local sent
  sent=$(redis-cli -s "$sock" INFO commandstats | tr -d '\r' |
    awk -F'[:=,]' '/^cmdstat_/ && $1 !~ /^cmdstat_(evalsha|command|config|info|ping)/ {n += $3} END {print n + 0}')
  if grep -q REDVOTE "$dir/replies"; then echo "a vote was refused: $(grep -m1 REDVOTE "$dir/replies")" >&2; exit 1; fi
  local total split docs
  total=$(grep -h '^summary:' "$dir"/cg.out.* | awk '{print $2}')
  callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$dir"/cg.out.* >"$dir/annotate" 2>/dev/null
  inclusive() { awk -v f=":$1 " 'index($0, f) && !n {gsub(",", "", $1); print $1; n = 1}' "$dir/annotate"; }
  split=$(inclusive scriptCall)
  # redis-cli asks COMMAND DOCS once a session: not the script's
  docs=$(inclusive commandDocsCommand)
  total=$((total - ${docs:-0}))
  # the whole script's commands, by Redis command function (inclusive)
  if [ "$copy" = "$whole_copy" ]; then
    grep -E ':[a-zA-Z]+Command |:strtod \[' "$dir/annotate" |
      grep -vE ':(processCommand|lookupCommand|evalShaCommand|commandDocsCommand|[a-zA-Z]+GenericCommand) ' |
      sed -E 's/^ *([0-9,]+) .*:([A-Za-z_]+) \[.*/\1 \2/' |
      awk -v n="$calls" '{gsub(",", "", $1); printf "| %s | %d |\n", $2, $1 / n}' >"$work/by_command"
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$((total / calls)) $(( ${split:-0} / calls )) $((bytes / ${#options[@]})) $(python3 -c "print(round($sent / $calls, 1))")"
}

mapfile -t options <"$work/options"
vote=$(cat "$work/vote")
if [ "$ties" = layouts ]; then
  echo "campaign_vote.lua, first ties' side keys as shipped and with f: folded into o:, $calls calls a copy, $(redis-server --version | awk '{print $3}')"
  echo
  echo "| options | competition: Ir a vote (in its commands), bytes an option | first, as shipped | ratio | first, f: folded into o: | ratio |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for n in 100 1000; do
    mapfile -t options <"$work/options$n"
    prefill=$((n < 300 ? 300 : n + 300))
    row="| $n"
    for run in whole.lua:campaign whole.lua:first merged.lua:first; do
      whole_copy=${run%%:*}
      read -r ir in_commands bytes _ < <(measure "$whole_copy" "${run##*:}$n.json")
      if [ "${run##*:}" = campaign ]; then
        base_ir=$ir base_bytes=$bytes
        row="$row | $ir ($in_commands), $bytes B"
      else
        row="$row | $ir ($in_commands), $bytes B | $(python3 -c "print(f'{$ir / $base_ir:.2f}x, {$bytes / $base_bytes:.2f}x')")"
      fi
    done
    echo "$row |"
  done
  exit 0
fi
mapfile -t names <"$work/names"
if [ "$ties" = limits ]; then
  whole_copy=whole.lua
  echo "campaign_vote.lua, the ir section's rate-limit row, $calls calls a copy, $(redis-server --version | awk '{print $3}')"
  echo
  echo "| step of the 4 rules | Ir a call |"
  echo "| --- | --- |"
  steps=0
  for i in "${!names[@]}"; do
    read -r before _ < <(measure "step${i}a.lua")
    read -r after _ < <(measure "step${i}b.lua")
    echo "| ${names[$i]} | $((after - before)) |"
    steps=$((steps + after - before))
  done
  read -r ruled ruled_commands _ < <(measure whole.lua)
  cp "$work/by_command" "$work/by_command_ruled"
  read -r none none_commands _ < <(measure whole.lua settings-none.json)
  echo "| the rest: elsewhere in the vote (the periods the plan names for the board too, ...) | $((ruled - none - steps)) |"
  echo "| **4 rules against none (the whole script)** | **$((ruled - none))** |"
  echo
  echo "The whole script: $ruled Ir a call with the 4 rules ($ruled_commands in its commands), $none without ($none_commands): $(python3 -c "print(f'{$ruled / $none:.3f}x')")."
  echo
  echo "The commands by Redis function (inclusive Ir a call), with the 4 rules and without:"
  echo
  echo "| function | with | without |"
  echo "| --- | --- | --- |"
  join -t'|' -a1 -a2 -e - -o 0,1.2,2.2 <(sed 's/^| //; s/ | /|/; s/ |$//' "$work/by_command_ruled" | sort -t'|' -k1,1) \
    <(sed 's/^| //; s/ | /|/; s/ |$//' "$work/by_command" | sort -t'|' -k1,1) 2>/dev/null | awk -F'|' '{printf "| %s | %s | %s |\n", $1, $2, $3}' || true
  exit 0
fi
whole_copy="cut${#names[@]}.lua"
last=${#names[@]} # cut$last.lua: the whole script
echo "campaign_vote.lua, $ties ties, $calls calls a copy, $(redis-server --version | awk '{print $3}')"
echo
echo "| phase | Ir a call |"
echo "| --- | --- |"
prev=0
for i in $(seq 0 "$last"); do
  read -r ir in_commands _ sent < <(measure "cut$i.lua")
  if [ "$i" -eq 0 ]; then
    echo "| the call and the script's definitions, the slot probe | $ir |"
  else
    echo "| ${names[$((i - 1))]} | $((ir - prev)) |"
  fi
  prev=$ir
done
echo "| **total** | **$ir** |"
echo
echo "Of the total, in the script's commands (scriptCall): $in_commands; the rest (Lua, arguments and replies): $((ir - in_commands))."
echo
echo "The script sends $sent commands a call (the floor of any script sending the campaign vote's: the ir section's VoteFloor)."
echo
echo "The whole script's commands by Redis function (inclusive Ir a call; strtod: the parsing of scores, in the commands and in the Lua's tonumber):"
echo
echo "| function | Ir a call |"
echo "| --- | --- |"
cat "$work/by_command"
