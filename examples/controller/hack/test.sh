#!/usr/bin/env bash
# test.sh: the example controller's tests against a real control plane.
#
#   examples/controller/hack/test.sh [go test flags]   # default: -race -count=1 ./...
#
# Provides etcd and kube-apiserver with testenv.sh (the first run builds
# kube-apiserver, see there), then runs `go test` in this module with
# KUBEBUILDER_ASSETS pointing at them. Works from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=$(hack/testenv.sh) # a failure stops here (set -e); inside eval it would not
eval "$assets"
export KUBEBUILDER_ASSETS
if [ $# -eq 0 ]; then
	set -- -race -count=1 ./...
fi
go vet ./...
exec go test "$@"
