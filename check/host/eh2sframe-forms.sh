#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CFI that no compiler in the corpus writes, in hand-written assembly:
# userspace/eh2sframe must leave each form out with the reason it gives,
# or convert it, as decided here, and never read it as something else.
# Each object has a plain function beside the odd ones, which must be
# converted: the object as a whole is not refused.  gas's own .sframe of
# the same object is compared (eh2sframe-gas): no mismatch where both
# describe a PC.  Per arch, the functions and the verdicts:
#
# - ra_column: a CIE whose return address column is not the
#   architecture's (x86_64: 16, AArch64: x30) but the frame pointer's
#   register.  DWARF lets a CIE name any register; SFrame places the RA
#   where the ABI has it, and read as the RA, rbp's rules would become
#   the RA's.  Left out as ra-column; gas leaves it out too.
# - fp_undefined: DW_CFA_undefined of the frame pointer.  SFrame would
#   say "unsaved", and the walk would go on with the callee's FP.  Left
#   out as fp-rule; gas too.
# - sp_saved: the caller's SP saved on the stack, not the CFA (code that
#   switches stacks: glibc's setcontext, longjmp).  Left out as sp-rule;
#   gas ignores the rule and writes an FDE (counted as missing.sp-rule,
#   not as a mismatch).
# - sp_is_cfa: DW_CFA_val_offset of SP, 0: the caller's SP is the CFA,
#   what SFrame assumes.  Converted.
#
# eh2sframe-oracle checks the same verdicts against libdw's reading of
# the CFI (check/host/eh2sframe-libdw.sh).

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

host_test_args "$@"

bin=$(eh2sframe_build all gas oracle)
work=$(mktemp -d -p "$CACHE" eh2sframe-forms.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The functions, per arch (all local: the calls need no PLT, so the
# object has one FDE per function).
cat > "$work/x86_64.s" <<'EOF'
	.text
	.type	ra_column, @function
ra_column:
	.cfi_startproc
	.cfi_return_column 6
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	ra_column, .-ra_column
	.type	fp_undefined, @function
fp_undefined:
	.cfi_startproc
	.cfi_undefined 6
	ret
	.cfi_endproc
	.size	fp_undefined, .-fp_undefined
	.type	sp_saved, @function
sp_saved:
	.cfi_startproc
	pushq	%rsp
	.cfi_def_cfa_offset 16
	.cfi_offset 7, -16
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sp_saved, .-sp_saved
	.type	sp_is_cfa, @function
sp_is_cfa:
	.cfi_startproc
	.cfi_val_offset 7, 0
	ret
	.cfi_endproc
	.size	sp_is_cfa, .-sp_is_cfa
	.globl	plain
	.type	plain, @function
plain:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	call	ra_column
	call	fp_undefined
	call	sp_saved
	call	sp_is_cfa
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	plain, .-plain
	.section .note.GNU-stack,"",@progbits
EOF
cat > "$work/arm64.s" <<'EOF'
	.text
	.type	ra_column, %function
ra_column:
	.cfi_startproc
	.cfi_return_column 29
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	ldp	x29, x30, [sp], 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	ra_column, .-ra_column
	.type	fp_undefined, %function
fp_undefined:
	.cfi_startproc
	.cfi_undefined 29
	ret
	.cfi_endproc
	.size	fp_undefined, .-fp_undefined
	.type	sp_saved, %function
sp_saved:
	.cfi_startproc
	mov	x9, sp
	str	x9, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 31, -16
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	sp_saved, .-sp_saved
	.type	sp_is_cfa, %function
sp_is_cfa:
	.cfi_startproc
	.cfi_val_offset 31, 0
	ret
	.cfi_endproc
	.size	sp_is_cfa, .-sp_is_cfa
	.globl	plain
	.type	plain, %function
plain:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl	ra_column
	bl	fp_undefined
	bl	sp_saved
	bl	sp_is_cfa
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
	so=$work/forms-$arch.so
	# gas warns of the functions it leaves out: expected.
	inroot "${CROSS}gcc" -shared -nostdlib -Wa,--gsframe -o "$so" \
		"$work/$arch.s" 2> "$work/gas-$arch.err" ||
		{ cat "$work/gas-$arch.err"; die "$arch: cannot assemble"; }
	inroot "$bin/eh2sframe-gas" -v "$so" > "$work/c-$arch" 2> "$work/v-$arch" || true
	sed 's/^/# /' "$work/gas-$arch.err" "$work/c-$arch" "$work/v-$arch"
	line=$(cat "$work/c-$arch")
	is "eh2sframe-forms: $arch: counts, and no mismatch with gas" \
		"converted=2 left_out=3 out.fp-rule=1 out.ra-column=1 out.sp-rule=1 mismatch=0" \
		"$(for k in converted left_out out.fp-rule out.ra-column out.sp-rule mismatch; do
			grep -o " $k=[0-9]*" <<< "$line" || echo " $k=?"
		   done | tr -d '\n' | sed 's/^ //')"
	# Each function left out, by name, with its reason
	got=$(sed -n 's/.*: \(0x[0-9a-f]*\), [0-9]* bytes, left out: \(.*\)$/\1 \2/p' \
		"$work/v-$arch" | while read -r a why; do
			inroot "${CROSS}nm" "$so" < /dev/null |
				inroot gawk -v a=$((a)) -v w="$why" \
				'strtonum("0x" $1) == a { print $3 "=" w }'
		done | sort | paste -sd' ')
	is "eh2sframe-forms: $arch: the functions left out, and why" \
		"fp_undefined=fp-rule ra_column=ra-column sp_saved=sp-rule" "$got"
	# The same verdicts against libdw's reading (eh2sframe-oracle): the
	# two converted agree with it, SP = CFA + 0 included, and the three
	# left out are the FDEs left out.
	inroot "$bin/eh2sframe" -v -o "$work/t-$arch" "$so" > /dev/null 2> "$work/l-$arch"
	line=$(inroot "$bin/eh2sframe-oracle" "$so" "$work/t-$arch" "$work/l-$arch" \
		2> "$work/o-$arch") || true
	sed 's/^/# /' "$work/o-$arch"
	is "eh2sframe-forms: $arch: libdw agrees, every FDE accounted for" \
		"fdes=5 converted=2 left_out=3 mismatch=0 unaccounted=0" \
		"$(for k in fdes converted left_out mismatch unaccounted; do
			grep -o " $k=[0-9]*" <<< "$line" || echo " $k=?"
		   done | tr -d '\n' | sed 's/^ //')"
done
tap_done
