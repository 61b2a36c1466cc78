# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm - outer Makefile (Kbuild reads ./Kbuild for the objects).
#
#   make               build the driver ib_ipoib_cm.ko and the test modules softib/softib.ko,
#                      softib/test/softib_rctest.ko, tests/kmod/ipoib_rdmacm_test.ko and
#                      ipoib_cmreq_test.ko, for Debian's 6.1 (scripts/kdir); never runs apt-get:
#                      missing headers or compilers are named (scripts/deps build installs them)
#   make KSERIES=6.12  for the installed Debian kernel of that series (6.1, 6.12)
#   make KDIR=<dir>    against any kernel build tree (e.g. the debug kernel, scripts/kernel-build)
#   make strict        clean rebuild; fails on any compiler/objtool/modpost warning
#   make check         build, then the gates: ELF, file sizes, type sizes, FeedNotes, no test knob, KUnit
#                      suites registered, one version, no process references, no set-up
#                      package that pulls in a kernel image (docs/build.md)
#   make neg-tests     each forbidden C++ construct (tests/neg/*.cpp) must fail the build
#   make clean         the build's outputs in the tree (build/ and the kernel cache stay)
#   make test          everything CI runs (scripts/make-test); make test-full: more
#   make kunit         KUnit suites on the debug kernel, in qemu
#   make e2e E2E=...   e2e scenarios on the stock kernel (KSERIES=6.12: on the 6.12 one)
#   make demo          two softib hosts in qemu, IPoIB between them
#                      (make demo and make test install the packages they need with sudo
#                      apt-get, or apt-get as root: scripts/deps demo|test)
#   make bench         benchmark suite, in-tree ib_ipoib vs ours (BENCH_QUICK=1: minutes;
#                      needs scripts/deps bench; docs/testing.md)
#   make install       ib_ipoib_cm.ko only into $(DESTDIR)$(INSTALL_MOD_PATH)/lib/modules/<kver>/updates
#                      + depmod (INSTALL_BOOT=1: load at boot; INSTALL_BLACKLIST=1: keep in-tree
#                      ib_ipoib out); as root or with sudo
#   make uninstall     removes what make install put there; as root or with sudo
#   make install-test  install/uninstall into temp dirs, and a dkms build into a temp tree (docs/install.md)
# Details: docs/build.md, docs/install.md, docs/testing.md.

# The kernel build tree: KDIR as given, else the one scripts/kdir picks (KSERIES, else 6.1,
# else the running kernel's, else 6.12). Resolved on first use and then fixed; the first use
# is a recipe that runs after `deps` (whose own recipe never reads KDIR), so on a fresh
# machine the headers are installed before anything looks for them.
KDIR_GIVEN := $(KDIR)
ifeq ($(KDIR),)
KDIR = $(eval KDIR := $(shell $(CURDIR)/scripts/kdir $(KSERIES)))$(KDIR)
endif
kdir-or-die = $(or $(KDIR),$(error no kernel build tree: see scripts/kdir's message above))

# Build with the exact compiler the kernel was built with (first word of its
# CONFIG_CC_VERSION_TEXT, e.g. gcc-12): Kbuild warns about any other, and cxx.mk pairs g++
# with it by version.
KCC = $(firstword $(shell sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' $(KDIR)/.config 2>/dev/null))

# pahole 1.24 cannot encode C++ DWARF as BTF; modfinal runs it only when the tree has a
# vmlinux (the debug kernel; Debian's 6.12 headers ship one, 6.1's do not). Keep the
# kernel's flags but exclude the C++ units too (g++-12 -std=gnu++20 says
# DW_LANG_C_plus_plus_14). 6.1 computes the flags in scripts/pahole-flags.sh (in source/ for
# an O= build tree), 6.12 in scripts/Makefile.btf (scripts/pahole-flags.mk reads it).
pahole-flags-sh = $(firstword $(wildcard $(KDIR)/scripts/pahole-flags.sh $(KDIR)/source/scripts/pahole-flags.sh))
pahole-flags = $(shell { if [ -n "$(pahole-flags-sh)" ]; then PAHOLE=pahole sh $(pahole-flags-sh); \
	else $(MAKE) -s --no-print-directory -f $(CURDIR)/scripts/pahole-flags.mk KDIR=$(KDIR); fi; } \
	2>/dev/null | sed 's/--lang_exclude=[^ ]*//')
pahole-exclude := --lang_exclude=rust,c++,c++03,c++11,c++14
pahole-arg = $(if $(wildcard $(KDIR)/vmlinux),PAHOLE_FLAGS="$(pahole-flags) $(pahole-exclude)")

KMAKE = $(MAKE) -C $(kdir-or-die) M=$(CURDIR) $(if $(KCC),CC=$(KCC)) $(pahole-arg)

STRICT_LOG := build/strict.log

# The one version string: MODULE_VERSION (Kbuild), dkms.conf's PACKAGE_VERSION, make install.
VERSION := $(shell cat $(CURDIR)/VERSION)

# The core's C++ objects (ipoib-cxx-objs: what `make check` ELF-checks), listed once.
include $(CURDIR)/sources.mk

.PHONY: all modules clean clean-stock strict check check-version check-history check-deps neg-tests deps help test test-full kunit e2e demo bench install uninstall install-test

all modules: deps
	+$(KMAKE) modules

# Check for the headers and the g++ matching their gcc; when something is missing, say what
# and which command installs it, and stop (make never runs apt-get: scripts/deps does).
# Must not expand $(KDIR): that would fix it before the check.
deps:
	@KDIR='$(KDIR_GIVEN)' $(CURDIR)/scripts/kdir --deps $(KSERIES) >/dev/null

# Kbuild's `M=... clean` deletes every *.ko below the tree, build/ included (the debug-kernel
# builds and VM runs use those); clean only the stock build's own outputs instead.
CLEAN_FIND := find . -path ./build -prune -o -path ./.git -prune -o -type f \( -name '*.o' -o \
	-name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.o.d' -o \
	-name 'modules.order' -o -name 'Module.symvers' -o -name '*.dwo' \) -print
clean-stock:
	@$(CLEAN_FIND) | xargs -r rm -f
	rm -rf include/generated

clean: clean-stock
	rm -f $(STRICT_LOG)

# Clean rebuild, log kept in a file (a pipe to tee would lose make's status under /bin/sh).
strict: deps
	@$(MAKE) --no-print-directory clean-stock >/dev/null
	@mkdir -p build; rc=0; $(KMAKE) modules > $(STRICT_LOG) 2>&1 || rc=$$?; cat $(STRICT_LOG); \
	if [ $$rc -ne 0 ]; then echo "strict: build failed ($$rc)"; exit $$rc; fi; \
	if grep -nE 'warning:|WARNING:|error:|ERROR:' $(STRICT_LOG); then \
		echo "strict: warnings in the build log (above)"; exit 1; fi; \
	echo "strict: clean build, no warnings"

check: all
	@set -e; objs="$(ipoib-cxx-objs)"; \
	echo "check: C++ objects: $$objs"; \
	$(CURDIR)/scripts/check-elf.sh $$objs; \
	ctors=; grep -q '^CONFIG_KASAN=y' $(KDIR)/.config && ctors=--allow-ctors; \
	$(CURDIR)/scripts/check-elf.sh --module $$ctors ib_ipoib_cm.ko; \
	echo "check: ELF gate passed ($$objs ib_ipoib_cm.ko)"; \
	$(CURDIR)/scripts/check-sizes.sh; \
	$(CURDIR)/scripts/check-types.sh; \
	$(CURDIR)/scripts/check-notes.sh; \
	$(CURDIR)/scripts/check-knobs.sh ib_ipoib_cm.ko; \
	$(CURDIR)/scripts/check-kunit-suites.sh; \
	$(MAKE) --no-print-directory check-version check-history check-deps

# MODULE_VERSION of the built .ko and dkms.conf's PACKAGE_VERSION both equal VERSION.
check-version:
	@set -e; mod=$$(modinfo -F version ib_ipoib_cm.ko); \
	dkms=$$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf); \
	if [ "$$mod" != "$(VERSION)" ] || [ "$$dkms" != "$(VERSION)" ]; then \
		echo "check-version: VERSION $(VERSION), ib_ipoib_cm.ko $$mod, dkms.conf $$dkms"; exit 1; fi; \
	echo "check-version: $(VERSION) (VERSION, ib_ipoib_cm.ko, dkms.conf)"

# No package scripts/deps installs, for any profile, pulls in a kernel image (the host's
# /boot is never touched; the 6.12 headers, whose package would, are unpacked instead).
check-deps:
	@$(CURDIR)/scripts/deps --audit test bench

# No process references in tracked files (scripts/check-history.sh; fails on any,
# CHECK_HISTORY_STRICT=0 makes it report only).
check-history:
	@$(CURDIR)/scripts/check-history.sh

neg-tests: deps
	@KDIR=$(kdir-or-die) KCC=$(KCC) $(CURDIR)/scripts/neg-tests.sh

# The test tiers (README "Testing"): gates, KUnit on the debug kernel, e2e in qemu.
test:
	@$(CURDIR)/scripts/make-test

test-full:
	@FULL=1 $(CURDIR)/scripts/make-test

kunit:
	@$(CURDIR)/scripts/kunit

# e2e on the stock kernel; pass scenarios with E2E="name ..." (see tests/e2e/README.md).
# KSERIES=6.12: on the stock 6.12 kernel, the modules built in build/stock-6.12.
e2e: $(if $(KSERIES),,all)
	@$(if $(KSERIES),kdir=$$($(CURDIR)/scripts/kdir --deps $(KSERIES)) && \
		$(CURDIR)/scripts/build-for stock-$(KSERIES) "$$kdir" modules >/dev/null && )\
	$(CURDIR)/scripts/vm-test --kernel stock$(if $(KSERIES),-$(KSERIES)) $(E2E)

demo:
	@$(CURDIR)/scripts/demo

# Install the driver only (softib is a test fabric) for the kernel it was built for (its
# vermagic), under $(DESTDIR)$(INSTALL_MOD_PATH)/lib/modules/<kver>/$(INSTALL_MOD_DIR), then
# depmod that tree. Opt-in boot files, under $(DESTDIR)/etc (docs/install.md):
#   INSTALL_BOOT=1       modules-load.d/ib_ipoib_cm.conf: load ib_ipoib_cm at boot
#   INSTALL_BLACKLIST=1  modprobe.d/ib_ipoib_cm.conf: keep the in-tree ib_ipoib from loading
# `make uninstall` (same variables; KVER=<release> when the .ko is not built) removes all of it.
INSTALL_MOD_DIR ?= updates
BOOT_LOAD_FILE = $(DESTDIR)/etc/modules-load.d/ib_ipoib_cm.conf
BOOT_BLACKLIST_FILE = $(DESTDIR)/etc/modprobe.d/ib_ipoib_cm.conf
install: all
	@set -e; kver=$$(modinfo -F vermagic ib_ipoib_cm.ko | cut -d' ' -f1); \
	root="$(DESTDIR)$(INSTALL_MOD_PATH)"; dir="$$root/lib/modules/$$kver/$(INSTALL_MOD_DIR)"; \
	[ -n "$$root" ] || [ ! -f "$(KDIR)/../../../.unpacked" ] || \
		{ echo "install: $(KDIR) are headers unpacked for building only (scripts/kheaders), not this machine's kernel: install linux-headers-$$kver (which brings its image) to install the module for $$kver"; exit 1; }; \
	ver=$$(modinfo -F version ib_ipoib_cm.ko); [ "$$ver" = "$(VERSION)" ] || \
		{ echo "install: ib_ipoib_cm.ko is version '$$ver', VERSION says $(VERSION): rebuild"; exit 1; }; \
	$(CURDIR)/scripts/check-knobs.sh ib_ipoib_cm.ko >/dev/null || \
		{ echo "install: ib_ipoib_cm.ko has test knobs (built with IPOIB_TEST_KNOBS=1?): rebuild"; exit 1; }; \
	install -D -m 0644 ib_ipoib_cm.ko "$$dir/ib_ipoib_cm.ko"; echo "  INSTALL $$dir/ib_ipoib_cm.ko ($(VERSION))"; \
	if [ "$(INSTALL_BOOT)" = 1 ]; then \
		install -D -m 0644 scripts/modprobe/ib_ipoib_cm-load.conf "$(BOOT_LOAD_FILE)"; \
		echo "  INSTALL $(BOOT_LOAD_FILE) (loaded at boot)"; fi; \
	if [ "$(INSTALL_BLACKLIST)" = 1 ]; then \
		install -D -m 0644 scripts/modprobe/ib_ipoib_cm.conf "$(BOOT_BLACKLIST_FILE)"; \
		echo "  INSTALL $(BOOT_BLACKLIST_FILE) (in-tree ib_ipoib kept from loading)"; fi; \
	echo "  DEPMOD  $$kver$${root:+ (in $$root)}"; depmod $${root:+-b "$$root"} "$$kver"

# No build and no headers needed: the release is KVER, else the built module's, else the tree's.
uninstall:
	@set -e; kver="$(KVER)"; \
	[ -n "$$kver" ] || [ ! -f ib_ipoib_cm.ko ] || kver=$$(modinfo -F vermagic ib_ipoib_cm.ko | cut -d' ' -f1); \
	[ -n "$$kver" ] || kver=$$(cat "$(kdir-or-die)/include/config/kernel.release"); \
	root="$(DESTDIR)$(INSTALL_MOD_PATH)"; dir="$$root/lib/modules/$$kver/$(INSTALL_MOD_DIR)"; \
	for f in "$$dir/ib_ipoib_cm.ko" "$(BOOT_LOAD_FILE)" "$(BOOT_BLACKLIST_FILE)"; do \
		[ -e "$$f" ] && { rm -f "$$f"; echo "  REMOVE  $$f"; }; done; \
	rmdir "$$dir" 2>/dev/null || true; \
	if [ -d "$$root/lib/modules/$$kver" ]; then \
		echo "  DEPMOD  $$kver$${root:+ (in $$root)}"; depmod $${root:+-b "$$root"} "$$kver"; fi

install-test: all
	@$(CURDIR)/scripts/install-test

# A measurement, not a test (scripts/bench; BENCH_RUNS, BENCH_TIME).
bench:
	@$(CURDIR)/scripts/bench

help:
	@sed -n '3,/^# Details:/s/^# \{0,1\}//p' Makefile
