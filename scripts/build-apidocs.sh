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
stamp="$dir/node_modules/.sitesvc-lock-sha256"

lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [[ -s "$out/redoc.standalone.js" && -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]] &&
	cmp -s "$src/redoc.standalone.js" "$out/redoc.standalone.js"; then
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "build-apidocs: npm is not installed; {base}/docs will say the viewer is not built in" >&2
	exit 1
fi

if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$lock_hash" ]]; then
	echo "build-apidocs: npm ci in impl/apidocs/redoc (Redoc, pinned by package-lock.json)" >&2
	# --ignore-scripts: only the prebuilt standalone bundle is used.
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	printf '%s\n' "$lock_hash" >"$stamp"
fi
for f in redoc.standalone.js redoc.standalone.js.LICENSE.txt; do
	if [[ ! -s "$src/$f" ]]; then
		echo "build-apidocs: $src/$f is missing after npm ci" >&2
		exit 1
	fi
	cp "$src/$f" "$out/$f"
done
