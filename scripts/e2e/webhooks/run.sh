#!/usr/bin/env bash
# Standard Webhooks verification of captured deliveries, with the reference
# npm library (standardwebhooks, pinned in package-lock.json).
#
#   scripts/e2e/webhooks/run.sh FILE
#
# Installs the pinned dependencies (npm ci) into this directory when
# node_modules is missing or older than the lockfile, then runs verify.mjs,
# which prints one verdict per message (see its header).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ "$#" -ne 1 ]; then
  echo "usage: $0 FILE" >&2
  exit 2
fi

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run.sh: $tool not found on PATH (node >= 20 is required)" >&2
    exit 1
  fi
done

stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ] || [ "$here/package.json" -nt "$stamp" ]; then
  echo "run.sh: installing dependencies (npm ci) in $here" >&2
  (cd "$here" && npm ci --no-audit --no-fund) >&2
  touch "$stamp"
fi

exec node "$here/verify.mjs" "$1"
