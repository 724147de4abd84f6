#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-arm64.sh DIR - the arm64 guest's part of make bench (bench/bench.sh
# runs it): unwind-cost, built into DIR, whose raw results go to DIR for
# bench/report.sh.

set -e
dir=${1:?usage: guest-arm64.sh DIR}

cd "$dir"
# unwind-cost asks for callchains of up to 500 frames, more than the
# default limit of 127.
sysctl -qw kernel.perf_event_max_stack=512
./unwind-cost 8 32 128 > unwind.txt
./unwind-cost -s > spread.txt
cat unwind.txt spread.txt
