#!/usr/bin/env bash
# Re-fetch the vendored GraphiQL browser build into assets/ from the npm registry.
#
#   resolvers/ide/fetch-assets.sh           # fetch the pinned versions, verify, copy, rewrite SHA256SUMS
#   resolvers/ide/fetch-assets.sh --check   # only verify assets/ against assets/SHA256SUMS
#
# Reproducible: versions and npm integrity hashes are pinned below; `npm pack`
# refuses a tarball whose integrity differs from the registry's, and this script
# additionally refuses one that differs from the pinned hash. Re-running it with
# the same pins rewrites byte-identical files (git diff stays empty).
#
# To upgrade: change a version below, set its integrity to the output of
#   npm view <pkg>@<version> dist.integrity
# run this script, update assets/README.md, and check the IDE in a browser.
# GraphiQL must stay on a version that ships the UMD bundle graphiql.min.js
# (3.x and 4.x do; 5.x is ESM/Monaco only) and React on 18.x (19 has no UMD
# builds). The page bootstrap assets/ide.js uses the GraphiQL 3 props API.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
assets="$here/assets"

# name version integrity
PINS=(
  "graphiql 3.9.0 sha512-rJYFlHdBbug9+YbFSwRVvgfPjCayC7wHecZkx/qB4XLuQPFQZw/yB9pmHFtOJV6RiNBBHro3u1GdocKa3YcGRA=="
  "react 18.3.1 sha512-wS+hAgJShR0KhEvPJArfuPVN1+Hz1t0Y6n5jLrGQbkb4urgPE/0Rve+1kMB1v/oWgHgm4WIcV+i7F2pTVj+2iQ=="
  "react-dom 18.3.1 sha512-5m4nQKp+rZRb09LNH59GM4BxTh9251/ylbKIbpe7TpGxfJ+9kv6BLkLBXIjjspbgbnIBNqlI23tRnTWT0snUIw=="
)

# package  file-in-tarball  destination-in-assets
FILES=(
  "graphiql package/graphiql.min.js graphiql.min.js"
  "graphiql package/graphiql.min.css graphiql.min.css"
  "graphiql package/LICENSE LICENSE.graphiql"
  "react package/umd/react.production.min.js react.production.min.js"
  "react package/LICENSE LICENSE.react"
  "react-dom package/umd/react-dom.production.min.js react-dom.production.min.js"
  "react-dom package/LICENSE LICENSE.react-dom"
)

vendored() { for f in "${FILES[@]}"; do set -- $f; echo "$3"; done; }

if [ "${1:-}" = "--check" ]; then
  cd "$assets" && sha256sum --check --strict SHA256SUMS
  exit $?
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for pin in "${PINS[@]}"; do
  set -- $pin
  name="$1" version="$2" want="$3"
  echo "fetching $name@$version" >&2
  # npm pack verifies the tarball against the registry metadata; --json reports its integrity.
  json="$(cd "$tmp" && npm pack "$name@$version" --json --pack-destination "$tmp" 2>/dev/null)"
  got="$(printf '%s' "$json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);process.stdout.write(j[0].integrity+" "+j[0].filename)})')"
  integrity="${got%% *}" filename="${got#* }"
  if [ "$integrity" != "$want" ]; then
    echo "integrity mismatch for $name@$version: got $integrity, pinned $want" >&2
    exit 1
  fi
  mkdir -p "$tmp/$name"
  tar -xzf "$tmp/$filename" -C "$tmp/$name"
done

for f in "${FILES[@]}"; do
  set -- $f
  install -m 0644 "$tmp/$1/$2" "$assets/$3"
done

(cd "$assets" && sha256sum $(vendored) > SHA256SUMS)
echo "updated:" >&2
cat "$assets/SHA256SUMS" >&2
