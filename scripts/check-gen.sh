#!/usr/bin/env bash
# Fails when gen/ is not what `make generate` makes from api/ and wsdl/.
# It regenerates in place, so after a failure gen/ is fresh and the diff
# shows what to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
# gen/ holds generated code only: each Go package's generate.go and its
# *.gen.go output, and the TypeScript clients' gen/ts/<api>/*.gen.ts.
# Anything else there is hand-written code that regeneration would never
# check.
stray=$(find gen -type f ! -name '*.gen.go' ! -name generate.go ! -path 'gen/ts/*/*.gen.ts')
if [[ -n $stray ]]; then
  echo "gen/ holds files that are not generated (only generate.go, *.gen.go and gen/ts/<api>/*.gen.ts belong there):" >&2
  echo "$stray" >&2
  exit 1
fi
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
cp -a gen "$snap/gen"
go generate ./gen/...
bash scripts/tsclients.sh generate
if ! diff -r "$snap/gen" gen >"$snap/diff"; then
  echo "gen/ is stale: the contracts in api/ or wsdl/ generate different code." >&2
  echo "Run 'make generate' and commit gen/. Differences:" >&2
  head -40 "$snap/diff" >&2
  exit 1
fi
echo "gen/ is fresh"
