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

# shellcheck source=npm-ci.sh
source "$root/scripts/npm-ci.sh"
npm_ci_locked build-webcheck "$dir" \
	"the PURL manifest and accessibility checks need it" \
	"$dir/node_modules/axe-core/axe.min.js" "$dir/node_modules/@iiif/parser/package.json"
