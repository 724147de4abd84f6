#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# flamegraph-template.sh - print the path of a local d3-flame-graph HTML
# template for "perf script report flamegraph --template", fetching it
# from the npm registry once.  perf would otherwise offer to download it
# from a CDN at report time; it must never do that here.  The template
# is the one perf's flamegraph.py expects (d3-flame-graph 4.1.3; perf
# checks the same file by its md5sum when it downloads it itself).

. "$(dirname "$0")/../lib/lib.sh"

NPM=${SFRAME_NPM:-https://registry.npmjs.org}
VERSION=4.1.3
TGZ=d3-flame-graph-$VERSION.tgz
SHA=5b9fd58798daad7515db6e1a2224c1d939c11584f79da108706dbde3942363c4
out=$CACHE/d3-flame-graph-$VERSION/d3-flamegraph-base.html

if [ ! -s "$out" ]; then
	mkdir -p "$CACHE/src" "${out%/*}"
	tgz=$CACHE/src/$TGZ
	if [ ! -e "$tgz" ]; then
		curl -fsS -m 300 -o "$tgz.part" "$NPM/d3-flame-graph/-/$TGZ" ||
			die "cannot fetch $TGZ from $NPM"
		mv "$tgz.part" "$tgz"
	fi
	echo "$SHA  $tgz" | sha256sum -c --quiet - ||
		{ rm -f "$tgz"; die "$TGZ: sha256 mismatch"; }
	tar -xzf "$tgz" -O package/dist/templates/d3-flamegraph-base.html \
		> "$out.part"
	mv "$out.part" "$out"
fi
echo "$out"
