# SPDX-License-Identifier: GPL-2.0
# scripts/cxx.mk - C++ objects inside Kbuild (read by scripts/Makefile.build through our
# Kbuild, i.e. before Makefile.lib, so Kbuild's own variables are used lazily).
#
# Input: cxx-objs (objects, relative to $(obj), each built from the .cpp of the same stem).
# Recipe and reasons: docs/build.md ("The C++ rule").

# ---- compiler: g++ of exactly the kernel's gcc version --------------------------------
# CC may carry a ccache prefix and a leading space (Debian's .kernelvariables).
cxx-kcc := $(lastword $(CC))
CXX_KERNEL ?= $(subst gcc,g++,$(cxx-kcc))

# ---- generated sizes (asm-offsets technique) ------------------------------------------
cxx-sizes-h := $(obj)/include/generated/kapi_sizes.h
targets += kapi/sizes.s
$(cxx-sizes-h): $(obj)/kapi/sizes.s FORCE
	$(call filechk,offsets,KAPI_SIZES_H)
# Everything that includes kapi.h needs it on the first build; fixdep covers the rest.
$(addprefix $(obj)/,$(cxx-objs) $(kapi-objs)): $(cxx-sizes-h)

# ---- flags -----------------------------------------------------------------------------
# C-only flags g++ rejects or warns about (W=1 adds the last ones; 6.12 adds
# -Wno-override-init to every build).
cxx-c-only := -std=gnu11 -std=gnu89 -Werror=strict-prototypes -Wstrict-prototypes \
	-Werror=implicit-function-declaration -Werror=implicit-int -Wno-pointer-sign \
	-Werror=incompatible-pointer-types -Werror=designated-init -Wmissing-prototypes \
	-Wold-style-definition -Wmissing-include-dirs -Wno-old-style-declaration \
	-Wdeclaration-after-statement -Wnested-externs -Wold-style-declaration \
	-Wno-override-init

cxx-lang := -std=gnu++20 -nostdinc -nostdinc++ -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fno-use-cxa-atexit -fno-gnu-unique -faligned-new=8 \
	-fsized-deallocation

cxx-warn := -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror=unused-result -Werror=return-type -Werror=vla -Werror=non-virtual-dtor \
	-Werror=delete-non-virtual-dtor -Wsuggest-override -Werror=suggest-override \
	-Werror=overloaded-virtual -Werror=zero-as-null-pointer-constant \
	-Werror=pessimizing-move -Werror=cast-function-type

# KASAN (generic, software): Kbuild adds sanitizer flags per object for C only, so C++
# gets them here, deliberately, minus global-variable instrumentation: gcc registers
# instrumented globals from a constructor (.init_array), which the ELF check forbids in
# C++ objects. Heap and stack accesses stay checked. UBSAN/KCOV/GCOV/KCSAN are not added.
# See docs/build.md.
ifeq ($(CONFIG_KASAN_GENERIC),y)
cxx-sanitize = $(CFLAGS_KASAN) --param asan-globals=0
endif

# Kernel flags minus the C-only ones, our ccflags-y (the -I dirs), no LINUXINCLUDE and no
# forced -include: C++ files must never see kernel headers.
cxx_flags = -Wp,-MMD,$(depfile) \
	$(filter-out $(cxx-c-only),$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) $(ccflags-y)) \
	$(modkern_cflags) $(basename_flags) $(modname_flags) \
	$(cxx-lang) $(cxx-warn) $(cxx-sanitize) $(CXXFLAGS_EXTRA) $(CXXFLAGS_$(target-stem).o)

# ---- the rule: compile, drop COMDAT groups, objtool like C, ELF check ----------------
# objcopy: ld -r rejects references from __mcount_loc/.orc_unwind_ip into discarded
# duplicate COMDAT groups (gcc's __mcount_loc and objtool's sections refer to group members
# by section; without the groups every copy survives as weak code). The .o is deleted on any failure
# (.DELETE_ON_ERROR), so a failed check never leaves an object behind.
quiet_cmd_cxx_o_cpp = C++ $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(CXX_KERNEL) $(cxx_flags) -c -o $@ $< \
		; $(OBJCOPY) --remove-section=.group $@ \
		$(cmd_cxx_objtool) \
		; $(CONFIG_SHELL) $(src)/scripts/check-elf.sh $@

# Same objtool command as C objects, but its warnings are errors for C++ objects: 6.1
# only warns, and "falls through to next function" is a real bug (pitfall 5).
cmd_cxx_objtool = $(if $(objtool-enabled), \
	; $(objtool) $(objtool-args) $@ > $@.objtool 2>&1 || echo "objtool failed" >> $@.objtool \
	; if [ -s $@.objtool ]; then cat $@.objtool >&2; rm -f $@.objtool; \
	  echo "$@: objtool warnings are errors for C++ objects" >&2; exit 1; fi \
	; rm -f $@.objtool)

define rule_cxx_o_cpp
	$(call cmd_and_fixdep,cxx_o_cpp)
	$(call cmd,gen_objtooldep)
endef

$(obj)/%.o: $(src)/%.cpp $(src)/scripts/check-elf.sh FORCE
	$(call if_changed_rule,cxx_o_cpp)

# ---- gates, not for `make clean` (no arch flags are set there) -------------------------
ifeq ($(filter __clean,$(PHONY)),)

ifdef CONFIG_CC_IS_CLANG
$(error cxx.mk: the kernel was built with clang; C++ objects need clang++ and kCFI support, not implemented)
endif
ifdef CONFIG_CFI_CLANG
$(error cxx.mk: kCFI kernels are not supported)
endif

cxx-cc-ver := $(shell $(cxx-kcc) -dumpfullversion 2>/dev/null)
cxx-cxx-ver := $(shell $(CXX_KERNEL) -dumpfullversion 2>/dev/null)
ifeq ($(cxx-cxx-ver),)
$(error cxx.mk: $(CXX_KERNEL) not found (kernel CC is $(cxx-kcc)); run scripts/deps)
endif
ifneq ($(cxx-cc-ver),$(cxx-cxx-ver))
$(error cxx.mk: $(CXX_KERNEL) is $(cxx-cxx-ver) but the kernel's $(cxx-kcc) is $(cxx-cc-ver))
endif

# Code-generation flags C++ objects must share with C ones (after the C-only filter).
cxx-required := -mcmodel=kernel -mno-red-zone -fno-PIE -mno-sse -mno-mmx -mno-sse2 \
	-mno-80387 -fno-asynchronous-unwind-tables -fno-delete-null-pointer-checks \
	-fno-strict-aliasing
cxx-required-$(CONFIG_RETPOLINE) += -mindirect-branch=thunk-extern -mindirect-branch-register
cxx-required-$(CONFIG_RETHUNK) += -mfunction-return=thunk-extern
cxx-required-$(CONFIG_SLS) += -mharden-sls=all
cxx-required-$(CONFIG_X86_KERNEL_IBT) += -fcf-protection=branch
cxx-required-$(CONFIG_STACKPROTECTOR_STRONG) += -fstack-protector-strong
cxx-required-$(CONFIG_INIT_STACK_ALL_ZERO) += -ftrivial-auto-var-init=zero
cxx-required-$(CONFIG_FUNCTION_TRACER) += -pg
cxx-required-$(CONFIG_FTRACE_MCOUNT_USE_CC) += -mrecord-mcount
cxx-flags-now := $(filter-out $(cxx-c-only),$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS))
cxx-missing := $(filter-out $(cxx-flags-now),$(cxx-required) $(cxx-required-y))
ifneq ($(cxx-missing),)
$(error cxx.mk: required code-generation flags missing from the C++ flags: $(cxx-missing))
endif
ifndef CONFIG_X86_KERNEL_IBT
ifeq ($(filter -fcf-protection=none,$(cxx-flags-now)),)
$(error cxx.mk: -fcf-protection=none expected on a kernel without IBT)
endif
endif

endif
