#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest roots carry what the guest tests run.  The x86_64 guest runs
# in the toolchain root, which has every tool; the arm64 guest in a root
# of its own with only the packages of config/guest-arm64.pkgs and what
# they depend on, where a command a test runs can be missing and show
# only as an arm64 failure (cmp was).  So every command that a script of
# the guest (check/guest-tests.sh, check/guest/*.sh, check/guest/lib/*.sh)
# runs and that the x86_64 guest has must be in the arm64 root as well,
# or be listed below as x86_64's only, with the reason.  One case per
# script that runs any command; a failure names the missing ones.
#
# The commands are found as a reader would: the first word of each
# command (at a line's start, after | ; & && || ( ) $( { ! and the
# keywords, and after the commands that run another: env, exec, timeout,
# nohup, nice, setarch, stdbuf, xargs, command), unquoted, a path reduced
# to its name, without the script's own functions and the shell's
# builtins.  That over-reads words in quoted programs (awk's, python's): a
# word that names no command of the x86_64 guest is not one, and is
# dropped.  It under-reads a command that a function of the script runs
# through "$@", and the scripts of the kernel's selftests, so the
# commands those need are checked by name at the end.  The reader has
# cases of its own first.  Of the check tree (the argument check.sh
# passes), only its KTAP helpers are used; the roots must exist (make
# toolchain): a test does not build them.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/lib.sh
. "$top/lib/lib.sh"
# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "${1:?usage: $0 TREE (the check tree, for its KTAP helpers)}"

arch_vars x86_64
xroot=$GUEST_ROOT
arch_vars arm64
aroot=$GUEST_ROOT
for r in "$xroot" "$aroot"; do
	[ -e "$r/.complete" ] || die "no root $r: make toolchain first"
done

# Commands that only the x86_64 guest runs, each with why.
declare -A X86_ONLY=(
	[cpio]="stock-tables: x86_64's stock program whose .sframe describes its start-up only (make is arm64's)"
)

# commands SCRIPT: the candidate commands of SCRIPT, one per line.
commands()
{
	python3 - "$1" <<'PY'
import re, sys

# Here-documents (python programs, often), comments, then single-quoted
# strings (awk's and python's programs, over several lines) are no
# commands; but for the scripts of sh -c.
lines, heredoc = [], None
for line in open(sys.argv[1]).read().splitlines():
    if heredoc is not None:
        heredoc = None if line.strip() == heredoc else heredoc
        continue
    m = re.search(r"<<-?\s*(['\"]?)(\w+)\1", line)
    heredoc = m.group(2) if m else None
    lines.append("" if line.lstrip().startswith("#") else
                 line.split(" #", 1)[0])
text = re.sub(r"(sh -c[\s\\]*'[^']*')|'[^']*'", lambda m: m.group(1) or "''",
              "\n".join(lines))
# Functions the script defines are not commands.
funcs = set(re.findall(r'^\s*([A-Za-z_][\w-]*)\s*\(\)', text, re.M))
builtins = set('''alias bg bind break builtin caller cd command compgen
complete continue declare dirs disown echo enable eval exec exit export
false fc fg getopts hash help history jobs kill let local logout mapfile
popd printf pushd pwd read readarray readonly return set shift shopt
source suspend test times trap true type typeset ulimit umask unalias
unset wait if then else elif fi case esac for while until do done in
function select time coproc'''.split())
# Words after which the next word is a command again; the first of them
# are commands themselves.
runners = {'env', 'timeout', 'nohup', 'nice', 'setarch', 'stdbuf', 'xargs',
           'sudo'}
prefix = runners | {'exec', 'command', 'then', 'do', 'else', 'elif', 'if',
                    'while', 'until', 'time', '!'}
# Their options that take a value: env -u NAME, timeout -k/-s X, nice -n
# N; timeout's duration, which may be a variable; setarch's arch.
takes = {'env': {'-u'}, 'timeout': {'-k', '-s'}, 'nice': {'-n'}}
out = set()
for line in text.splitlines():
    segs = re.split(r'\|\|?|&&|;;?|\$\(|`|\(|\)|\{|&', line)
    # A case pattern ("aarch64) cmd") is no command.
    if re.match(r'\s*[^\s()]+\)', line):
        segs = segs[1:]
    for seg in segs:
        words = seg.split()
        after = None
        while words:
            w = words.pop(0).strip('"\'').lstrip('\\')
            if not w:
                continue	# what was left of "$(...)"
            if after and w in takes.get(after, ()) and words:
                words.pop(0)
                continue
            if after == 'timeout' and w.startswith('$'):
                continue
            if after == 'setarch' and re.fullmatch(r'\$\S*|[a-z0-9_]+', w) \
               and words and not words[0].startswith('-'):
                after = None	# the arch, then options or the command
                continue
            if re.fullmatch(r'[A-Za-z_]\w*=\S*', w) or \
               re.fullmatch(r'-\S*|[0-9]+[smhd]?|[0-9]*[<>]\S*', w):
                continue	# an assignment, an option, a limit
            if w in prefix:
                if w in runners:
                    out.add(w)
                after = w
                continue
            w = re.sub(r'^/(usr/)?s?bin/', '', w)
            if re.fullmatch(r'[a-z][a-z0-9_.+-]*', w) and \
               w not in funcs and w not in builtins:
                out.add(w)
            break
for w in sorted(out):
    print(w)
PY
}

# in_root ROOT CMD: whether ROOT has CMD where the guest's PATH looks,
# its links followed inside ROOT.
in_root()
{
	local d p t n

	for d in usr/bin usr/sbin bin sbin usr/local/bin; do
		p=$1/$d/$2
		n=0
		while [ -L "$p" ] && [ $n -lt 8 ]; do
			t=$(readlink "$p")
			case $t in
			/*) p=$1$t ;;
			*) p=$(dirname "$p")/$t ;;
			esac
			n=$((n + 1))
		done
		[ -f "$p" ] && [ -x "$p" ] && return 0
	done
	return 1
}

# The reader, on a script of the forms the guest scripts use; "as" (of a
# python program in a here-document or a string) and gzip (in a comment)
# are commands of the x86_64 root.
cat > "$CACHE/guest-roots.$$.sh" <<'EOF'
helper() { "$@"; }
case $(uname -m) in
aarch64) cmp a b ;;
*) "diff" a b ;;
esac
n=$(nproc)
/usr/bin/head -n 1 f | \tail -n 1
env -u LD_LIBRARY_PATH perl -e 1 && timeout -k 10 "$limit" stdbuf -oL sort f
setarch "$(uname -m)" -R seq 3; nice -n 5 xargs wc < f
awk '{ print $1 }' f; local x=1; helper not_a_command # gzip
py='
with open(f) as f: pass'
sh -c \
	'for i in 1 2; do fold f; done'
python3 - <<'PY'
with open(f) as f: pass
PY
EOF
# What it over-reads, a word of awk's program, is no command of the root.
is "the reader: commands in case branches, \$( ), quotes, paths, wrappers" \
	"awk cmp diff env fold head nice nproc perl python3 seq setarch sh sort stdbuf tail timeout uname wc xargs" \
	"$(commands "$CACHE/guest-roots.$$.sh" |
	   while IFS= read -r c; do in_root "$xroot" "$c" && echo "$c"; done |
	   paste -sd' ')"
rm -f "$CACHE/guest-roots.$$.sh"

scripts=("$top/check/guest-tests.sh" "$top"/check/guest/*.sh "$top"/check/guest/lib/*.sh)
for s in "${scripts[@]}"; do
	absent=
	found=
	while IFS= read -r c; do
		in_root "$xroot" "$c" || continue
		found+=" $c"
		in_root "$aroot" "$c" || [ -n "${X86_ONLY[$c]:-}" ] ||
			absent+=" $c"
	done < <(commands "$s")
	# A script that runs no command has no case: it could not fail.
	[ -n "$found" ] || continue
	echo "# ${s#"$top"/}:$found"
	is "${s#"$top"/}: the commands it runs are in the arm64 guest root" \
		"" "${absent# }"
done

# What the guest runs that the reader cannot see: commands behind a
# function's "$@" (cmp, wanted there), and those the kernel's kselftest
# runner looks for (timeout, perl, stdbuf: without them it quietly runs
# without a limit or unbuffered output).  And the check itself: the
# tests run these in the arm64 guest; a root without them fails here.
for c in cmp python3 perl timeout stdbuf perf trace-cmd; do
	is "$c is in the arm64 guest root" yes \
		"$(in_root "$aroot" "$c" && echo yes || echo no)"
done
tap_done
