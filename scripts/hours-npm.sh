#!/usr/bin/env bash
# The pinned npm packages the Hours tests use (scripts/hours-npm): the
# JSON:API client libraries driven against the binary. (axe-core, for the
# pages' accessibility check, is installed once for every browser test by
# scripts/build-webcheck.sh.)
#
#   scripts/hours-npm.sh install   npm ci, unless node_modules was made from
#                                  the current lock (a stamp holds its hash)
#
# The tests find the packages in scripts/hours-npm/node_modules.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/scripts/hours-npm"

# shellcheck source=npm-ci.sh
source "$root/scripts/npm-ci.sh"

case "${1:-}" in
install)
	npm_ci_locked hours-npm "$dir" "Node.js 20 or later is needed"
	;;
*)
	echo "usage: $0 install" >&2
	exit 2
	;;
esac
