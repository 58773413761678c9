#!/usr/bin/env bash
# testenv.sh: provide a real control plane (etcd + kube-apiserver) for envtest,
# with nothing downloaded at test time.
#
#   eval "$(examples/controller/hack/testenv.sh)"   # exports KUBEBUILDER_ASSETS
#
# - etcd comes from Debian's etcd-server package (installed with apt-get when
#   missing; needs root or sudo).
# - kube-apiserver is built from the Go module k8s.io/kubernetes at
#   $TESTENV_KUBE_VERSION (default v1.36.3): a tiny main calling
#   app.NewAPIServerCommand(), in a throwaway module with every k8s.io staging
#   module pinned by `replace` to the matching v0.x.y. Only the Go module proxy
#   is needed. The binary is cached in
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tenantkit-testenv/<version>/, so only the
#   first run builds (about 9 CPU-minutes); later runs take well under a second.
#
# stdout carries only the `export KUBEBUILDER_ASSETS=...` line; progress goes to
# stderr. The assets directory holds `etcd` and `kube-apiserver`.
set -euo pipefail

version=${TESTENV_KUBE_VERSION:-v1.36.3}
case $version in
v1.[0-9]*.[0-9]*) ;;
*) echo "testenv: TESTENV_KUBE_VERSION must look like v1.36.3, got \"$version\"" >&2; exit 2 ;;
esac
staging=v0.${version#v1.} # v1.36.3 -> v0.36.3

cache=${XDG_CACHE_HOME:-$HOME/.cache}/tenantkit-testenv/$version
assets=$cache/bin
mkdir -p "$assets"

log() { echo "testenv: $*" >&2; }

# One builder at a time per cache directory: a second caller waits, then finds the binary.
exec 9>"$cache/.lock"
flock 9

# --- etcd -------------------------------------------------------------------
etcd_bin=$(command -v etcd || true)
if [ -z "$etcd_bin" ] && [ -x /usr/bin/etcd ]; then etcd_bin=/usr/bin/etcd; fi
if [ -z "$etcd_bin" ]; then
	log "etcd not found: installing Debian's etcd-server"
	sudo=
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >&2
	$sudo apt-get install -y -qq --no-install-recommends etcd-server >&2
	# The package's service is not wanted here (and there is usually no init to run it).
	etcd_bin=/usr/bin/etcd
fi
ln -sf "$etcd_bin" "$assets/etcd"

# --- kube-apiserver ---------------------------------------------------------
stamp="$version"
if [ -x "$assets/kube-apiserver" ] && [ "$(cat "$cache/kube-apiserver.stamp" 2>/dev/null)" = "$stamp" ]; then
	log "kube-apiserver $version cached in $assets"
else
	log "building kube-apiserver $version (first run only; about 9 CPU-minutes)"
	start=$(date +%s)
	src=$cache/src
	rm -rf "$src"
	mkdir -p "$src"
	cd "$src"
	# The throwaway module stands alone: no workspace of the caller's, no
	# -mod=vendor from the caller's GOFLAGS.
	export GOWORK=off GOFLAGS=-mod=mod
	cat >main.go <<'GO'
// Command kube-apiserver is the Kubernetes API server, built from the
// k8s.io/kubernetes module for tenantkit's controller tests.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
GO
	# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with
	# ./staging/src/...; a dependent module must pin each one to its published tag.
	kmod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	{
		echo "module tenantkit.dev/testenv/kube-apiserver"
		echo
		sed -n 's/^go \(.*\)$/go \1/p' "$kmod"
		sed -n 's/^godebug \(.*\)$/godebug \1/p' "$kmod"
		echo
		echo "require k8s.io/kubernetes $version"
		echo
		echo "replace ("
		sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*$#\t\1 => \1 '"$staging"'#p' "$kmod"
		echo ")"
	} >go.mod
	go mod tidy >&2
	pkg=k8s.io/component-base/version
	minor=${version#v1.}
	minor=${minor%%.*}
	CGO_ENABLED=0 go build -trimpath -o kube-apiserver.new \
		-ldflags "-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" . >&2
	mv kube-apiserver.new "$assets/kube-apiserver"
	echo "$stamp" >"$cache/kube-apiserver.stamp"
	log "built kube-apiserver $version in $(($(date +%s) - start)) s"
fi

echo "export KUBEBUILDER_ASSETS=$assets"
