#!/usr/bin/env bash
# Installs the pinned npm packages of impl/purl/webcheck (@iiif/parser,
# axe-core; see its package-lock.json) with `npm ci`. The PURL tests read
# every manifest with @iiif/parser; axe-core is the one install every
# browser test uses (impl/testkit's Axe: PURL and Hours pages); make test
# runs this first.
#
# Idempotent and quick when already done: it does nothing when the installed
# tree was made from the current package-lock.json (a stamp holds its hash).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/impl/purl/webcheck"
stamp="$dir/node_modules/.sitesvc-lock-sha256"

lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" && -f "$dir/node_modules/axe-core/axe.min.js" && -f "$dir/node_modules/@iiif/parser/package.json" ]]; then
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "build-webcheck: npm is not installed; the PURL manifest and accessibility checks need it" >&2
	exit 1
fi

echo "build-webcheck: npm ci in impl/purl/webcheck (@iiif/parser, axe-core, pinned by package-lock.json)" >&2
# --ignore-scripts: the packages are used as shipped; no install script runs.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
printf '%s\n' "$lock_hash" >"$stamp"
