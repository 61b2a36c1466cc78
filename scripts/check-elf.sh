#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-elf.sh - reject restricted-C++ violations in ELF files.
#   check-elf.sh OBJ.o ...               per-object gate (run by the .cpp rule after objtool)
#   check-elf.sh --module [--allow-ctors] X.ko   module gate (make check)
# Object gate: forbidden sections (global ctors/dtors, unwind tables, TLS, COMDAT groups),
# undefined C++ runtime symbols, guard variables, RTTI, TLS wrappers, GNU_UNIQUE symbols.
# Module gate adds: no undefined C++ symbol at all, and only the relocation types the x86-64
# module loader (apply_relocate_add, 6.1) accepts. --allow-ctors: the .ko may carry
# .init_array/.ctors from C objects (KASAN global registration on a debug kernel); the C++
# objects were each checked without that exception.
# Exit 1 with one line per problem, naming the file.
set -eu
LC_ALL=C
export LC_ALL
mode=object
allow_ctors=
while [ $# -gt 0 ]; do
	case $1 in
	--module) mode=module; shift ;;
	--allow-ctors) allow_ctors=1; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--module [--allow-ctors]] FILE..." >&2; exit 2; }

READELF=${READELF:-readelf}
NM=${NM:-nm}
fail=0
bad() { echo "check-elf: $f: $*" >&2; fail=1; }

for f in "$@"; do
	[ -f "$f" ] || { bad "no such file"; continue; }

	# Section names (readelf -S -W, field after "] ").
	secs=$($READELF -S -W "$f" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p')
	ctor_re='\.init_array|\.fini_array|\.preinit_array|\.ctors|\.dtors|\.text\.startup'
	# KASAN's C constructors: _sub_I/_sub_D in .text.startup, .init_array and .fini_array.
	[ -n "$allow_ctors" ] && ctor_re='\.preinit_array|\.ctors|\.dtors'
	for s in $(printf '%s\n' "$secs" | grep -E "^(\.group|$ctor_re|\.eh_frame|\.gcc_except_table|\.tdata|\.tbss)(\..*)?\$" || true); do
		bad "forbidden section $s"
	done

	syms=$($NM "$f")
	undef=$(printf '%s\n' "$syms" | sed -n 's/^ *U //p')
	defined=$(printf '%s\n' "$syms" | awk 'NF == 3 { print $2, $3 }')

	# Undefined C++ runtime: the module provides only __cxa_pure_virtual (kapi/core.c) and
	# operator new(size_t, kstd::Gfp) (core/kstd_rt.cpp); the rest would need libstdc++/libsupc++.
	for s in $(printf '%s\n' "$undef" | grep -E '^(__cxa_|_Unwind_|__gxx_personality|_ZSt|_ZNSt|_ZNKSt|_ZTI|_ZTS|_ZTVN10__cxxabiv1|_Zn[wa]m$|_Zn[wa]mRKSt9nothrow_t$|_Zn[wa]mSt11align_val_t|_ZdlPvSt11align_val_t|__dso_handle$|__tls_get_addr$|_GLOBAL_OFFSET_TABLE_$)' | grep -v '^__cxa_pure_virtual$' || true); do
		bad "undefined C++ runtime symbol $s"
	done
	if [ $mode = module ]; then
		for s in $(printf '%s\n' "$undef" | grep -E '^(_Z|__cxa|__gxx|_Unwind)' || true); do
			bad "undefined C++ symbol $s (the kernel exports only C symbols)"
		done
	fi

	# Defined: guard variables (dynamic local statics), RTTI, thread_local wrappers.
	for s in $(printf '%s\n' "$defined" | awk '$2 ~ /^(_ZGV|_ZTI|_ZTS|_ZTH|_ZTW)/ { print $2 }'); do
		bad "forbidden symbol $s"
	done
	for s in $(printf '%s\n' "$defined" | awk '$1 == "u" { print $2 }'); do
		bad "STB_GNU_UNIQUE symbol $s"
	done
	for s in $(printf '%s\n' "$syms" | awk '$NF ~ /^_GLOBAL__sub_I|^_GLOBAL__sub_D/ { print $NF }'); do
		bad "global constructor/destructor $s"
	done

	if [ $mode = module ]; then
		# R_X86_64_{NONE,64,32,32S,PC32,PLT32,PC64}: the types apply_relocate_add() knows.
		for t in $($READELF -r -W "$f" | awk '$3 ~ /^R_X86_64_/ { print $3 }' | sort -u); do
			case $t in
			R_X86_64_NONE | R_X86_64_64 | R_X86_64_32 | R_X86_64_32S | R_X86_64_PC32 | \
				R_X86_64_PLT32 | R_X86_64_PC64) ;;
			*) bad "relocation type $t is not accepted by the module loader" ;;
			esac
		done
	fi
done
exit $fail
