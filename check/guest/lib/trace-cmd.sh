# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the trace-cmd guest tests (not a test itself: guest-tests.sh
# runs check/guest/*.sh only).
#
# tc_start DAT LOG EVENT: start "trace-cmd record" of EVENT with delayed
# user stacks, and the inode_cache event that names their files, into
# DAT, its output in LOG, in the background, and wait until its recorders
# run.  Sets tc_pid; stop it as a user does, with SIGINT.  If it does not
# say that it records within TC_WAIT seconds (120: a margin for the
# slowest guest), or exits first, it is stopped, the end of LOG is
# printed and tc_start fails: events it missed would fail the test for
# the wrong reason.  With "trace-cmd record -F PROG", a program that runs
# for a millisecond was over before trace-cmd's recorders read anything,
# in the first run of a boot (0 bytes recorded, the events left in the
# kernel's buffer).
tc_start()
{
	local end=$((SECONDS + ${TC_WAIT:-120}))

	# The loop below reads LOG before the background job may have made it
	: > "$2"
	# Line-buffered: trace-cmd's stdio would keep the line that says it
	# records in its buffer until it exits.
	stdbuf -oL trace-cmd record -o "$1" -e "$3" -e inode_cache \
		-O userstacktrace_delay \
		> "$2" 2>&1 &
	tc_pid=$!
	# It says so once its recorders run.
	while [ $SECONDS -lt $end ]; do
		grep -q 'Hit Ctrl^C' "$2" && return 0
		if ! kill -0 $tc_pid 2>/dev/null; then
			echo "trace-cmd record exited before it recorded:"
			tail -n 5 "$2"
			return 1
		fi
		sleep 0.1
	done
	echo "trace-cmd record did not start recording in ${TC_WAIT:-120} s:"
	# Stopped as a user would, and killed if that does not stop it
	kill -INT $tc_pid 2>/dev/null
	for _ in $(seq 100); do
		kill -0 $tc_pid 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $tc_pid 2>/dev/null
	wait $tc_pid
	tail -n 5 "$2"
	return 1
}
