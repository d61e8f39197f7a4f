#!/usr/bin/env bash
# Fails when gen/ is not what `make generate` makes from api/ and wsdl/.
# It regenerates in place, so after a failure gen/ is fresh and the diff
# shows what to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
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
