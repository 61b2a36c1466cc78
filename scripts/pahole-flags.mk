# SPDX-License-Identifier: GPL-2.0
# Print the PAHOLE_FLAGS a kernel tree's own scripts/Makefile.btf computes (6.12 and later;
# 6.1 has scripts/pahole-flags.sh instead). Used by the Makefile:  make -f THIS KDIR=<tree>
include $(KDIR)/include/config/auto.conf
include $(KDIR)/scripts/Kbuild.include
include $(firstword $(wildcard $(KDIR)/scripts/Makefile.btf $(KDIR)/source/scripts/Makefile.btf))
all: ; @echo $(PAHOLE_FLAGS)
