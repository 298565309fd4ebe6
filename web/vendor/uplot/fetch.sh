#!/bin/sh
# Re-downloads the pinned uPlot from the npm registry, checks the tarball against the integrity
# recorded in README.md (the registry's dist.integrity) and puts its files here, unmodified.
# To update uPlot: set VERSION and INTEGRITY (`npm view uplot@X.Y.Z dist.integrity`), run this,
# update README.md, look at the dashboard (the browser tests and their screenshots), commit.
set -eu
VERSION=1.6.32
INTEGRITY=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null)
tarball="$tmp/uplot-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 | tr -d '\n')"
if [ "$got" != "$INTEGRITY" ]; then
  echo "fetch.sh: uplot-$VERSION.tgz is $got, not the pinned $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$tmp"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$here/"
echo "uPlot $VERSION ($INTEGRITY) in $here"
