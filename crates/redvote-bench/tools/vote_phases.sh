#!/usr/bin/env bash
# vote_phases.sh: where a campaign vote's server instructions (Ir) go, phase
# by phase (docs/benchmark.md, "Where a vote's instructions go").
#
#   bash crates/redvote-bench/tools/vote_phases.sh [competition|first] [calls]
#
# Method: copies of lua/campaign_vote.lua cut short (`do return 1 end`)
# before each phase of its main(); each copy runs `calls` votes (default
# 200; a new user a call, options o0..o99 as the bench's `ir` section) on a
# throwaway redis-server under callgrind (processCommand toggled, as
# redvote_testing::callgrind), after 300 votes of the whole script on the
# bench's 5-period board (carry 0.1, weight 2, +08:00), so every copy meets
# the same boards. A phase's Ir is the difference between the copies cut
# after and before it (redis-cli's own COMMAND DOCS, once a session, left
# out). The whole script's Ir is also split into its commands
# (callgrind_annotate's inclusive scriptCall) and the rest, and its
# commands by Redis command function.
# Needs valgrind, redis-server, redis-cli, python3 and cargo; talks only to
# the servers it starts (unix sockets in a temporary directory).
set -euo pipefail
ties=${1:-competition}
calls=${2:-200}
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build -q --manifest-path "$root/Cargo.toml" -p redvote-cli
cli="$root/target/debug/redvote"

python3 - "$ties" "$root/lua/campaign_vote.lua" "$work" <<'PY'
import json, sys
ties, script, work = sys.argv[1:4]
opts = {f"o{i}": {"weight": 2} for i in range(100)}
doc = {"offset": "+08:00", "boards": {"stars": {"periods": ["hour", "day", "week", "month", "total"],
       "ties": ties, "carry": "0.1", "options": opts}}}
open(f"{work}/settings.json", "w").write(json.dumps(doc))
src = open(script).read()
# the phases of main(), in order: (name, the line that starts it)
phases = [
    ("arguments, clock, the campaign hash, the vote id", "  local root, ns, layout, c = campaign_key("),
    ("campaign settings (rate-limit rules: none here)", "  if not c[6] then fail('UNKNOWN_CAMPAIGN', root) end\n"),
    ("board settings and the option's weight", "  local boards, pairs_, sided, first_ties = {}, {}, false, false\n"),
    ("bounded work, deny lists, rate limits (none here)", "  if #pairs_ > 1 then\n"),
    ("the plan: board reads, period names, entries", "  local order_read_, order_write_\n"),
    ("period index, sequence, HyperLogLog checks", "  local fresh, track_periods_\n"),
    ("statistics plan (stats_plan), the log's type", "  local stats, buckets = stats_plan("),
    ("the writes", "  local seq = 0\n"),
    ("statistics writes (stats_write)", "  stats_write(stats, user)\n"),
    ("the reply", "  local info\n"),
]
names = []
for i, (name, line) in enumerate(phases):
    assert src.count(line) == 1, line
    open(f"{work}/cut{i}.lua", "w").write(src.replace(line, "  do return 1 end\n" + line))
    names.append(name)
open(f"{work}/cut{len(phases)}.lua", "w").write(src)
open(f"{work}/names", "w").write("".join(n + "\n" for n in names))
PY

# measure COPY: Ir a call of `calls` votes of COPY (and, for the whole
# script, its commands' share), on a fresh server.
measure() {
  local copy=$1 dir="$work/server" sock
  rm -rf "$dir"; mkdir -p "$dir"; sock="$dir/redis.sock"
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect=processCommand \
    --callgrind-out-file="$dir/cg.out" redis-server --port 0 --unixsocket "$sock" \
    --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 240); do redis-cli -s "$sock" ping >/dev/null 2>&1 && break; sleep 0.5; done
  "$cli" --url "redis+unix://$sock" campaign bench configure "$work/settings.json" >/dev/null
  local whole part
  whole=$(redis-cli -s "$sock" SCRIPT LOAD "$(cat "$work/cut${last}.lua")")
  part=$(redis-cli -s "$sock" SCRIPT LOAD "$(cat "$work/$copy")")
  votes() { # sha from to
    for i in $(seq "$2" "$3"); do
      printf 'EVALSHA %s 1 {c:bench}:campaign w%d "" "" "" "" "" stars o%d\n' "$1" "$i" $((i * 7 % 100))
    done
  }
  votes "$whole" 1 300 | redis-cli -s "$sock" >/dev/null
  votes "$part" 301 301 | redis-cli -s "$sock" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  votes "$part" 1001 $((1000 + calls)) | redis-cli -s "$sock" >"$dir/replies"
  callgrind_control -d "$pid" >/dev/null 2>&1
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
  if [ "$copy" = "cut${last}.lua" ]; then
    grep -E ':[a-zA-Z]+Command |:strtod \[' "$dir/annotate" |
      grep -vE ':(processCommand|lookupCommand|evalShaCommand|commandDocsCommand|[a-zA-Z]+GenericCommand) ' |
      sed -E 's/^ *([0-9,]+) .*:([A-Za-z_]+) \[.*/\1 \2/' |
      awk -v n="$calls" '{gsub(",", "", $1); printf "| %s | %d |\n", $2, $1 / n}' >"$work/by_command"
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$((total / calls)) $(( ${split:-0} / calls ))"
}

mapfile -t names <"$work/names"
last=${#names[@]} # cut$last.lua: the whole script
echo "campaign_vote.lua, $ties ties, $calls calls a copy, $(redis-server --version | awk '{print $3}')"
echo
echo "| phase | Ir a call |"
echo "| --- | --- |"
prev=0
for i in $(seq 0 "$last"); do
  read -r ir in_commands < <(measure "cut$i.lua")
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
echo "The whole script's commands by Redis function (inclusive Ir a call; strtod: the parsing of scores, in the commands and in the Lua's tonumber):"
echo
echo "| function | Ir a call |"
echo "| --- | --- |"
cat "$work/by_command"
