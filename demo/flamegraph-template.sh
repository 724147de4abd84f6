#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flamegraph-template.sh - print the path of a local d3-flame-graph HTML
# template for "perf script report flamegraph --template", fetching it
# once.  perf would otherwise offer to download it at report time; it
# must never do that here.  The template is the one perf's flamegraph.py
# expects (d3-flame-graph 4.1.3; perf checks the same file by its md5sum
# when it downloads it itself).
#
# It comes from d3-flame-graph's npm package, from the npm registry the
# machine is set up with (npm config get registry, or SFRAME_NPM); where
# there is none, from where perf's flamegraph.py would fetch it (the
# address is read from the toolchain root's perf).  Either is pinned by
# its sha256: the package's, and the template's in that package.

. "$(dirname "$0")/../lib/lib.sh"

VERSION=4.1.3
TGZ=d3-flame-graph-$VERSION.tgz
TGZ_SHA=5b9fd58798daad7515db6e1a2224c1d939c11584f79da108706dbde3942363c4
HTML_SHA=64aba4b35cfaba17b37d57a4036876f1999f3cfc4c8d4d3a0781d08a1ad97d5a
out=$CACHE/d3-flame-graph-$VERSION/d3-flamegraph-base.html

# perf_url: the template's address in the toolchain root's flamegraph.py.
perf_url()
{
	local py

	for py in "$ROOT"/usr/lib*/perf-core/scripts/python/flamegraph.py; do
		[ -e "$py" ] || continue
		grep -o "https://[^\"' ]*d3-flame-graph@$VERSION/[^\"' ]*/d3-flamegraph-base\.html" \
			"$py" | head -n 1
		return
	done
}

if [ ! -s "$out" ]; then
	mkdir -p "${out%/*}"
	npm=${SFRAME_NPM:-$(npm config get registry 2>/dev/null || true)}
	npm=${npm%/}
	if [ -n "$npm" ]; then
		tgz=$CACHE/src/$TGZ
		fetch_file "$npm/d3-flame-graph/-/$TGZ" "$TGZ_SHA" "$tgz" ||
			die "no verified $TGZ from $npm"
		tar -xzf "$tgz" -O package/dist/templates/d3-flamegraph-base.html \
			> "$out.part"
		echo "$HTML_SHA  $out.part" | sha256sum -c --quiet - ||
			die "$TGZ: its template is not the pinned one"
		mv "$out.part" "$out"
	else
		url=$(perf_url || true)
		[ -n "$url" ] ||
			die "no npm registry (SFRAME_NPM) and no template address in the toolchain root's perf"
		fetch_file "$url" "$HTML_SHA" "$out" ||
			die "no verified d3-flame-graph $VERSION template from $url"
	fi
fi
echo "$out"
