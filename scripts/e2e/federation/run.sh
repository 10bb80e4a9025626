#!/usr/bin/env bash
# Apollo Federation end-to-end check of the compliance subgraph.
#
#   scripts/e2e/federation/run.sh <subgraph-url> <api-key> [query]
#
# Installs the pinned npm dependencies (npm ci, from package-lock.json) into this
# directory when node_modules is missing or older than the lockfile, then runs
# federation.mjs. The npm cache location follows npm's own configuration, so
# npm_config_cache is respected when set. Exit status is federation.mjs's
# (0 ok, 1 failure, 2 usage); a failed install exits with npm's status.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ "$#" -lt 2 ] || [ "$#" -gt 3 ]; then
  echo "usage: $0 <subgraph-url> <api-key> [query]" >&2
  exit 2
fi

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run.sh: $tool not found on PATH (node >= 20 is required)" >&2
    exit 1
  fi
done

# npm writes node_modules/.package-lock.json at the end of a successful install,
# so it is a reliable "installed from this lockfile" stamp.
stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ] || [ "$here/package.json" -nt "$stamp" ]; then
  echo "run.sh: installing dependencies (npm ci) in $here" >&2
  (cd "$here" && npm ci --no-audit --no-fund) >&2
  touch "$stamp"
fi

# Belt and braces: federation.mjs sets this too (no telemetry from @apollo/gateway).
export APOLLO_TELEMETRY_DISABLED=true
exec node "$here/federation.mjs" "$@"
