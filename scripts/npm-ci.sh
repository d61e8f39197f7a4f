#!/usr/bin/env bash
# Sourced (not run) by the scripts that install a directory's pinned npm
# packages: build-apidocs.sh, build-webcheck.sh, hours-npm.sh and
# tsclients.sh. One definition of "installed from the current lock" keeps
# their stamps and npm flags from drifting apart. build-viewer.sh keeps its
# own copy of the same steps because the Dockerfile copies that one script
# alone into the build stage.

# npm_ci_locked LABEL DIR HINT [FILE...]
#
# Runs `npm ci` in DIR unless DIR/node_modules was made from the current
# DIR/package-lock.json (a stamp holds its hash) and every FILE is present
# and non-empty. HINT says what is lost without npm. After npm ci every FILE
# must exist, else it fails; the stamp is written only then, so a broken
# install is retried on the next run.
npm_ci_locked() {
	local label="$1" dir="$2" hint="$3"
	shift 3
	local stamp="$dir/node_modules/.sitesvc-lock-sha256"
	local lock_hash f ok=1
	lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
		for f in "$@"; do
			[[ -s "$f" ]] || ok=0
		done
		if ((ok)); then
			return 0
		fi
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "$label: npm is not installed; $hint" >&2
		exit 1
	fi
	echo "$label: npm ci in $dir (pinned by package-lock.json)" >&2
	# --ignore-scripts: the packages are used as shipped (prebuilt bundles,
	# plain JavaScript); no install script runs on the build machine.
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	for f in "$@"; do
		if [[ ! -s "$f" ]]; then
			echo "$label: $f is missing after npm ci" >&2
			exit 1
		fi
	done
	printf '%s\n' "$lock_hash" >"$stamp"
}
