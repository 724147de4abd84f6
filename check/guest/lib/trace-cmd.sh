# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the trace-cmd guest tests (not a test itself: guest-tests.sh
# runs check/guest/*.sh only).
#
# tc_start DAT LOG EVENT: start "trace-cmd record" of EVENT with delayed
# user stacks, and the inode_cache event that names their files, into DAT, its output in LOG, in the background, and wait
# until its recorders run (30 s at most: it fails then, and the caller
# sees trace-cmd's own verdict when it stops it).  Sets tc_pid; stop it
# as a user does, with SIGINT.  With "trace-cmd record -F PROG", a program that runs for a
# millisecond was over before trace-cmd's recorders read anything, in the
# first run of a boot (0 bytes recorded, the events left in the kernel's
# buffer).
tc_start()
{
	# Line-buffered: trace-cmd's stdio would keep the line that says it
	# records in its buffer until it exits.
	stdbuf -oL trace-cmd record -o "$1" -e "$3" -e inode_cache \
		-O userstacktrace_delay \
		> "$2" 2>&1 &
	tc_pid=$!
	# It says so once its recorders run.
	for _ in $(seq 300); do
		grep -q 'Hit Ctrl^C' "$2" && return 0
		kill -0 $tc_pid 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
