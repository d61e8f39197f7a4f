#!/usr/bin/env bash
# Installs the Embed viewer's pinned npm packages (Mirador, see
# impl/embed/viewer/package-lock.json) with `npm ci`, so that
# impl/embed/viewer/node_modules/mirador/dist/mirador.min.js exists: the
# default --viewer-dir of `sitesvc serve`.
#
# Idempotent and quick when already done: it does nothing when the installed
# tree was made from the current package-lock.json (a stamp holds its hash)
# and the bundle is present.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/impl/embed/viewer"
bundle="$dir/node_modules/mirador/dist/mirador.min.js"
stamp="$dir/node_modules/.sitesvc-lock-sha256"

lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [[ -s "$bundle" && -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "build-viewer: npm is not installed; the embed service will answer 503 for the Mirador bundle" >&2
	exit 1
fi

echo "build-viewer: npm ci in impl/embed/viewer (Mirador, pinned by package-lock.json)" >&2
# --ignore-scripts: only the prebuilt bundle is used, no package needs to
# build anything, and no install script runs on the build machine.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

if [[ ! -s "$bundle" ]]; then
	echo "build-viewer: $bundle is missing after npm ci" >&2
	exit 1
fi
printf '%s\n' "$lock_hash" >"$stamp"
