#!/usr/bin/env bash
# Runs the Node package's tests: npm ci when node_modules is absent or older
# than package-lock.json, the repository's scripts copied into ./lua (what
# npm test's pretest does), then node --test. Needs node >= 20 and npm; the
# tests start their own redis-server (or $REDVOTE_SERVER) on free ports.
set -euo pipefail
cd "$(dirname "$0")"
start=$(date +%s%N)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "test.sh: node (>= 20) and npm are needed" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "test.sh: node >= 20 is needed, this is $(node --version)" >&2
  exit 1
fi

lock_sum=$(node -e 'process.stdout.write(require("crypto").createHash("sha1").update(require("fs").readFileSync("package-lock.json")).digest("hex"))')
stamp=node_modules/.redvote-lock-sha1
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "test.sh: npm ci (node_modules absent or stale)"
  npm ci --no-audit --no-fund
  echo "$lock_sum" > "$stamp"
fi

node tools/copy-lua.js
status=0
node --test test/*.test.js || status=$?
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
printf 'test.sh: %s in %d.%03d s\n' "$([ $status -eq 0 ] && echo passed || echo FAILED)" $((ms / 1000)) $((ms % 1000))
exit $status
