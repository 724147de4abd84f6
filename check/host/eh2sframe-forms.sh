#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CFI that no compiler in the corpus writes, in hand-written assembly:
# userspace/eh2sframe must leave each form out with the reason it gives,
# or convert it, as decided here, and never read it as something else.
# Each object has a plain function beside the odd one, which must be
# converted: the object as a whole is not refused.  Where gas can say
# (--gsframe), its own .sframe must agree (eh2sframe -c: no mismatch).
#
# - A CIE whose return address column is not the architecture's (x86_64:
#   16, AArch64: x30) but rbp or x29: DWARF lets a CIE name any register,
#   SFrame places the RA where the ABI has it.  Read as the RA, rbp's
#   rules would become the RA's; gas leaves such a function out ("non-
#   default RA register").  Here too: out.ra-column.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

tree=${1:?usage: $0 TREE [ARCH...] (the check tree, docs/check-tree.md)}
shift
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)

bin=$CACHE/eh2sframe
inroot make -s -C "$top/userspace/eh2sframe" O="$bin"
work=$(mktemp -d -p "$CACHE" eh2sframe-forms.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The functions, per arch: "odd", with its return column on the frame
# pointer's register, which it also saves; "plain", which calls it (odd
# is local: the call needs no PLT, so the object has these two FDEs).
cat > "$work/x86_64.s" <<'EOF'
	.text
	.type	odd, @function
odd:
	.cfi_startproc
	.cfi_return_column 6
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	odd, .-odd
	.globl	plain
	.type	plain, @function
plain:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	call	odd
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	plain, .-plain
	.section .note.GNU-stack,"",@progbits
EOF
cat > "$work/arm64.s" <<'EOF'
	.text
	.type	odd, %function
odd:
	.cfi_startproc
	.cfi_return_column 29
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	ldp	x29, x30, [sp], 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	odd, .-odd
	.globl	plain
	.type	plain, %function
plain:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	odd
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	plain, .-plain
	.section .note.GNU-stack,"",@progbits
EOF

tap_start "$tree"
for arch in "${arches[@]}"; do
	arch_vars "$arch"
	so=$work/ra-column-$arch.so
	# gas warns that it leaves "odd" out: the warning is expected.
	inroot "${CROSS}gcc" -shared -nostdlib -Wa,--gsframe -o "$so" \
		"$work/$arch.s" 2> "$work/gas-$arch.err" ||
		{ cat "$work/gas-$arch.err"; die "$arch: cannot assemble"; }
	odd=$(inroot "${CROSS}nm" "$so" | awk '$3 == "odd" { print $1 }')
	inroot "$bin/eh2sframe" -v -c "$so" > "$work/c-$arch" 2> "$work/v-$arch" || true
	sed 's/^/# /' "$work/c-$arch" "$work/v-$arch"
	line=$(cat "$work/c-$arch")
	is "eh2sframe-forms: $arch: a CIE's return column not the RA's: left out as ra-column" \
		"converted=1 left_out=1 out.ra-column=1 mismatch=0" \
		"$(for k in converted left_out out.ra-column mismatch; do
			grep -o " $k=[0-9]*" <<< "$line" || echo " $k=?"
		   done | tr -d '\n' | sed 's/^ //')"
	is "eh2sframe-forms: $arch: the function left out is odd()" \
		"$(printf '0x%x' "$((16#$odd))")" \
		"$(sed -n 's/.*: \(0x[0-9a-f]*\), [0-9]* bytes, left out: ra-column$/\1/p' "$work/v-$arch" |
		   xargs -r printf '0x%x\n')"
done
tap_done
