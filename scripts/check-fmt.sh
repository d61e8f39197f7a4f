#!/usr/bin/env bash
# Fails when a Go file (generated ones included) is not gofmt-formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(find . -name '*.go' -not -path './node_modules/*' -not -path '*/node_modules/*' -not -path './data/*')
bad=$(gofmt -l $files)
if [[ -n $bad ]]; then
  echo "gofmt would change these files (run gofmt -w):" >&2
  echo "$bad" >&2
  exit 1
fi
