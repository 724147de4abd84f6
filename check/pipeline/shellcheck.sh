#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every shell script of the project, the guests' among them, passes
# the checker at severity "warning": a warning there is a quoting or
# scoping bug more often than a matter of style.  The scripts are the
# committed files with a .sh name or a bash shebang, outside patches/
# (the kernel's own scripts are checkpatch's business).  Files a script
# sources are followed (-x), so that what a sourced helper sets counts.

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

host_install shellcheck

cd "$top" || exit 1
mapfile -t files < <(git ls-files -- ':!patches' | while IFS= read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) echo "$f" ;;
	*) head -c 64 "$f" | grep -qE '^#! ?/bin/(ba)?sh' && echo "$f" ;;
	esac
done)
[ ${#files[@]} -gt 10 ] || die "only ${#files[@]} shell scripts found"
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p') on ${#files[@]} scripts"
shellcheck -S warning -x "${files[@]}"
