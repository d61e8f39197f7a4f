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
stamp="$dir/node_modules/.sitesvc-lock-sha256"

case "${1:-}" in
install)
	lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
		exit 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "hours-npm: npm is not installed (Node.js 20 or later is needed)" >&2
		exit 1
	fi
	echo "hours-npm: npm ci in scripts/hours-npm (pinned by package-lock.json)" >&2
	# --ignore-scripts: no package needs to build anything.
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	printf '%s\n' "$lock_hash" >"$stamp"
	;;
*)
	echo "usage: $0 install" >&2
	exit 2
	;;
esac
