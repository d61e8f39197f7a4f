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

# shellcheck source=npm-ci.sh
source "$root/scripts/npm-ci.sh"

install() {
	npm_ci_locked tsclients "$dir" "Node.js 20 or later is needed"
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
