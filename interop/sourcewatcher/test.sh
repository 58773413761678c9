#!/usr/bin/env bash
# Runs the side-by-side checks of tenantkit against source-watcher's released
# API module (github.com/fluxcd/source-watcher/api/v2), which needs Go 1.27:
# the go command fetches that toolchain from the module proxy once. The
# library itself stays on Go 1.26.
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=go1.27.3
export GOWORK=off
go vet ./... && go test -count=1 ./...
