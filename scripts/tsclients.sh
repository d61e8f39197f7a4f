#!/usr/bin/env bash
# The TypeScript clients of the OpenAPI services (gen/ts/<api>).
#
#   scripts/tsclients.sh generate   regenerate gen/ts from api/*.yaml
#   scripts/tsclients.sh test       type-check and run the node --test suite
#                                   against the real binary ($SITESVC_TEST_BINARY,
#                                   default bin/sitesvc)
#
# Both install the pinned npm packages of scripts/tsclients (package-lock.json)
# with `npm ci` first, unless node_modules was made from the current lock (a
# stamp holds its hash).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/scripts/tsclients"
stamp="$dir/node_modules/.sitesvc-lock-sha256"

install() {
	local lock_hash
	lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
		return
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "tsclients: npm is not installed (Node.js 20 or later is needed)" >&2
		exit 1
	fi
	echo "tsclients: npm ci in scripts/tsclients (pinned by package-lock.json)" >&2
	# --ignore-scripts: no package needs to build anything.
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	printf '%s\n' "$lock_hash" >"$stamp"
}

case "${1:-}" in
generate)
	install
	(cd "$dir" && node generate.mjs)
	;;
test)
	install
	rm -rf "$dir/build"
	(cd "$dir" && node_modules/.bin/tsc -p tsconfig.json)
	# The spec reporter's summary ends with "ℹ pass N" / "ℹ fail N"; tap
	# would do too. Files are listed: node 20's --test takes no globs.
	(cd "$dir" && node --test --test-reporter=spec build/scripts/tsclients/test/*.test.js)
	;;
*)
	echo "usage: scripts/tsclients.sh generate|test" >&2
	exit 2
	;;
esac
