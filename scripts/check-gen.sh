#!/usr/bin/env bash
# Fails when gen/ is not what `make generate` makes from api/ and wsdl/.
# It regenerates in place, so after a failure gen/ is fresh and the diff
# shows what to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
# gen/ holds generated code only: each package's generate.go and its
# *.gen.go output. Anything else there is hand-written code that
# regeneration would never check.
stray=$(find gen -type f ! -name '*.gen.go' ! -name generate.go)
if [[ -n $stray ]]; then
  echo "gen/ holds files that are not generated (only generate.go and *.gen.go belong there):" >&2
  echo "$stray" >&2
  exit 1
fi
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
cp -a gen "$snap/gen"
go generate ./gen/...
if ! diff -r "$snap/gen" gen >"$snap/diff"; then
  echo "gen/ is stale: the contracts in api/ or wsdl/ generate different code." >&2
  echo "Run 'make generate' and commit gen/. Differences:" >&2
  head -40 "$snap/diff" >&2
  exit 1
fi
echo "gen/ is fresh"
