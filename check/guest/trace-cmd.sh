#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd, as a tracing user runs it: "trace-cmd record -O
# userstacktrace_deferred" on a syscall event of check/guest/trace-cmd/prog,
# and "trace-cmd report" with the project's libtraceevent plugin
# (userspace/trace-cmd).  Each of the program's five calls must give one
# cookie and one deferred stack with it, and every stack must be the call
# sites the program prints, up to main(): for the program built with
# SFrame and without frame pointers, and for the one built with frame
# pointers (fp/).

set -u
from=$KOUT/guest-tests/trace-cmd
command -v trace-cmd >/dev/null || { echo "no trace-cmd in the guest"; exit 1; }
[ -x "$from/prog" ] || { echo "$from/prog missing: check/guest not built"; exit 1; }
plugin=$from/plugins/plugin_user_stack_deferred.so
[ -r "$plugin" ] || { echo "$plugin missing: userspace/trace-cmd not built"; exit 1; }
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi
[ -e /sys/kernel/tracing/options/userstacktrace_deferred ] ||
	{ echo "no userstacktrace_deferred option in this kernel"; exit 1; }

# trace-cmd writes its data to the guest's own file system.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp -r "$from" "$dir/bin"
export TRACEEVENT_PLUGIN_DIR=$dir/bin/plugins

fail=0
# shellcheck source=check/guest/lib/trace-cmd.sh
. "$(dirname "$0")/lib/trace-cmd.sh"

# run VARIANT PROG: trace PROG, and check its stacks against what it says.
# trace-cmd records in the background and is stopped as a user does
# (lib/trace-cmd.sh).
run()
{
	local variant=$1 prog=$2 want pid

	tc_start "$dir/$variant.dat" "$dir/$variant.rec" syscalls:sys_enter_getppid ||
		echo "$variant: trace-cmd did not say that it records"
	"$prog" > "$dir/$variant.want"
	kill -INT "$tc_pid"
	if ! wait "$tc_pid"; then
		echo "$variant: trace-cmd record failed:"
		tail -n 5 "$dir/$variant.rec"
		fail=1
		return
	fi
	trace-cmd report -i "$dir/$variant.dat" > "$dir/$variant.txt" \
		2> "$dir/$variant.err"
	want=$(sed -n 's/^want //p' "$dir/$variant.want")
	pid=$(sed -n 's/^pid //p' "$dir/$variant.want")
	[ -n "$want" ] && [ -n "$pid" ] ||
		{ echo "$variant: the program said nothing"; fail=1; return; }

	# Per stack of the program: its cookie and its first four frames, in
	# hex without 0x.
	awk -v want="$want" -v pid="$pid" -v variant="$variant" '
	function hex(s) { sub(/^0x/, "", s); sub(/^0+/, "", s); return s }
	function flush() {
		if (cookie == "") return
		stacks++
		if (got == wanted) good++
		else if (bad++ < 3) print variant ": cookie " cookie ":" got
		if (!(cookie in cookies)) orphans++
		cookie = ""
	}
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) wanted = wanted " " hex(w[i]) }
	# The header of an entry: COMM-PID [CPU] ...
	/^ *[^ ].*-[0-9]+ +\[[0-9]+\]/ {
		flush()
		p = $0; sub(/ +\[.*/, "", p); sub(/.*-/, "", p)
		if (p != pid) next
	}
	/user_stack_cookie:/ {
		c = $0; sub(/.*cookie=/, "", c); cookies[hex(c)] = 1; ncookies++
	}
	/<deferred user stack trace: cookie=/ {
		c = $0; sub(/.*cookie=/, "", c); sub(/>.*/, "", c)
		cookie = hex(c); got = ""; frames = 0; next
	}
	cookie != "" && /^ => </ {
		if (frames++ < n) { f = $2; gsub(/[<>]/, "", f); got = got " " hex(f) }
		next
	}
	END {
		flush()
		printf "%s: %d cookies, %d stacks, %d whole to main(), %d without their cookie\n",
			variant, ncookies, stacks, good, orphans
		exit !(ncookies == 5 && stacks == 5 && good == 5 && !orphans)
	}' "$dir/$variant.txt" || {
		fail=1
		echo "$variant: want$want"
		head -n 20 "$dir/$variant.rec" "$dir/$variant.txt" \
			"$dir/$variant.err"
	}
}

run sframe "$dir/bin/prog"
run fp "$dir/bin/fp/prog"
exit $fail
