#!/usr/bin/env bash
# Installs the pinned Redoc (impl/apidocs/redoc/package-lock.json) with
# `npm ci` and copies its standalone bundle and license into
# impl/apidocs/bundle/, which the binary embeds for the browsable API
# documentation at {base}/docs. Run by `make build` before `go build`.
#
# Idempotent and quick when already done: nothing happens when the bundle
# was copied from an install of the current package-lock.json (a stamp
# holds its hash).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/impl/apidocs/redoc"
out="$root/impl/apidocs/bundle"
src="$dir/node_modules/redoc/bundles"

# shellcheck source=npm-ci.sh
source "$root/scripts/npm-ci.sh"
npm_ci_locked build-apidocs "$dir" "{base}/docs will say the viewer is not built in" \
	"$src/redoc.standalone.js" "$src/redoc.standalone.js.LICENSE.txt"
for f in redoc.standalone.js redoc.standalone.js.LICENSE.txt; do
	cmp -s "$src/$f" "$out/$f" || cp "$src/$f" "$out/$f"
done
