# SPDX-License-Identifier: GPL-2.0
#
# gpupath: kernel module + daemon + CLI.
#
#   make                 module (if a kernel tree is found) and user space
#   make module          the module against KDIR
#   make test            every test: host, VM, DKMS (installs what it needs)
#   make demo            boot the VM and show gpupath at work
#   make vm-test         the VM suite only       (KERNEL_VARIANT=debug for KASAN etc.;
#                        TESTS="volume tests-flat/datapath-flat" runs those alone)
#   make install         user space + module     (DESTDIR, PREFIX)
#   make dkms-install    register, build and install the module with DKMS
#   make deb             the Debian packages, with debhelper (DEB_OUT)
#   make fuzz            the libFuzzer harnesses of selftests/fuzz/, FUZZ_SECONDS
#                        each (default 60), seed FUZZ_SEED (default 1)
#
# Kernel selection follows DKMS: KERNELRELEASE (default: the running kernel)
# and KDIR (default: /lib/modules/$(KERNELRELEASE)/build).

VERSION := $(shell sed -n 's/^\#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' kmod/version.h)
KERNELRELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
UNITDIR ?= /lib/systemd/system
# 69-gpupath.rules goes beside nvme-cli's 70-nvmf-autoconnect.rules.
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSCONFDIR ?= /etc
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

CC ?= cc
comma := ,
space := $(subst ,, )
# Hardened as Debian builds its packages (dpkg-buildflags, hardening=+all):
# _FORTIFY_SOURCE, -fstack-protector-strong, format checks, full RELRO and
# BIND_NOW; the same by hand where dpkg-dev is not installed. CFLAGS,
# CPPFLAGS and LDFLAGS given to make replace them.
# (Read once: dpkg-buildflags is no quick command.)
BUILDFLAGS := DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags
ifeq ($(origin CFLAGS),undefined)
CFLAGS := $(or $(shell $(BUILDFLAGS) --get CFLAGS 2>/dev/null),\
	-O2 -g -fstack-protector-strong -Wformat -Werror=format-security)
endif
ifeq ($(origin CPPFLAGS),undefined)
CPPFLAGS := $(or $(shell $(BUILDFLAGS) --get CPPFLAGS 2>/dev/null),-D_FORTIFY_SOURCE=2)
endif
ifeq ($(origin LDFLAGS),undefined)
LDFLAGS := $(or $(shell $(BUILDFLAGS) --get LDFLAGS 2>/dev/null),-Wl$(comma)-z$(comma)relro \
	-Wl$(comma)-z$(comma)now)
endif
WERROR ?= -Werror
override CFLAGS += $(CPPFLAGS) -std=gnu11 -Wall -Wextra $(WERROR) -MMD -MP -fPIC \
	-Iuapi -Itools/lib $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS = $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)
# libnvme (Debian: libnvme-dev, whose .pc needs libjson-c-dev) for gpupathd.
daemon/%.o: override CFLAGS += $(shell pkg-config --cflags libnvme 2>/dev/null)
NVME_LIBS = $(shell pkg-config --libs libnvme 2>/dev/null || echo -lnvme)
# libavahi-client (mDNS discovery) for gpupathd.
AVAHI_LIBS = $(shell pkg-config --libs avahi-client 2>/dev/null || echo -lavahi-client -lavahi-common)
# libudev (uevents) and libsystemd (sd-event, sd_notify, the journal) for
# gpupathd.
SYSTEMD_LIBS = $(shell pkg-config --libs libudev libsystemd 2>/dev/null || echo -ludev -lsystemd)
# libmicrohttpd (libmicrohttpd-dev): gpupathd's metrics endpoint, served in
# a thread of its own.
daemon/%.o: override CFLAGS += $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS = $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
# libdevmapper (libdevmapper-dev): the dm tables gpupathd tells the module of.
DM_LIBS = $(shell pkg-config --libs devmapper 2>/dev/null || echo -ldevmapper)
# zlib (zlib1g-dev): the CRC-32 of DH-HMAC-CHAP secrets, for gpupathd.
Z_LIBS = $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)
# libpci (libpci-dev) for the names of PCI devices, from pci.ids.
PCI_LIBS = $(shell pkg-config --libs libpci 2>/dev/null || echo -lpci)
# json-c (libjson-c-dev, which libnvme pulls in) for the cuFile configuration.
JSON_LIBS = $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)

# CUDA is not needed: libgpupath-cuda opens NVIDIA's libcuda.so.1 at run
# time (tools/lib/cuda-driver.h). Where CUDA is installed, its cuda.h is
# compared with that header (selftests/unit/cuda-abi-check.c).
CUDA_HOME ?= $(firstword $(patsubst %/include/cuda.h,%,$(wildcard /usr/local/cuda/include/cuda.h)))

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-8s %s\n'
endif

LIB_OBJS := tools/lib/names.o tools/lib/names-gen.o tools/lib/dev.o tools/lib/ctl.o tools/lib/nl-policy-gen.o \
	tools/lib/topo.o \
	tools/lib/stats.o tools/lib/text.o
# The shared library has the versions of the first release's interface too
# (tools/lib/compat.c); programs linked with libgpupath.a need none.
SO_OBJS := $(LIB_OBJS) tools/lib/compat.o
# Settings keywords and the gpupath.conf parser: the CLI's and gpupathd's own.
PRIV_OBJS := tools/lib/kw.o tools/lib/conf.o
CLI_OBJS := tools/gpupath/main.o tools/gpupath/json.o tools/gpupath/show.o \
	tools/gpupath/version.o tools/gpupath/monitor.o tools/gpupath/provider.o \
	tools/gpupath/volume.o tools/gpupath/path.o tools/gpupath/args.o \
	tools/gpupath/portal.o tools/gpupath/qos.o tools/gpupath/topology.o \
	tools/gpupath/stats.o tools/gpupath/diagnose.o tools/gpupath/nvgpu.o tools/gpupath/run.o
DAEMON_OBJS := $(patsubst %.c,%.o,$(wildcard daemon/*.c))
BENCH_OBJS := tools/gpupath-bench/bench.o
USER_BINS := tools/gpupath/gpupath daemon/gpupathd tools/gpupath-bench/gpupath-bench
USER_LIBS := tools/lib/libgpupath.a tools/lib/libgpupath-private.a tools/lib/libgpupath.so tools/cufile/libgpupath-cufile.so \
	tools/cufile/compat/libcufile.so tools/lib/libgpupath-cuda.so
ifneq ($(CUDA_HOME),)
UNIT_BINS_CUDA := selftests/build/cuda-abi-check
endif
ALL_OBJS := $(SO_OBJS) $(PRIV_OBJS) $(CLI_OBJS) $(DAEMON_OBJS) $(BENCH_OBJS) tools/lib/cuda.o \
	$(patsubst %.c,%.o,$(wildcard tools/cufile/*.c))

TEST_BINS := selftests/build/gp-pattern selftests/build/nl-check selftests/build/gp-io \
	selftests/build/io-check selftests/build/gp-fuzz selftests/build/gp-priv \
	selftests/build/gp-faults selftests/build/gp-cufile selftests/build/gp-nvdouble \
	selftests/build/gp-cuda selftests/build/gp-cufile-clients
UNIT_BINS := selftests/build/json_test selftests/build/model_test selftests/build/ledger_test \
	selftests/build/secret_test selftests/build/ana_test selftests/build/libnvme_fix_test \
	selftests/build/mdns_test selftests/build/text_test selftests/build/cufile_batch_test \
	selftests/build/dcb_test selftests/build/ifaddr_test selftests/build/cufile-cuda-check

.PHONY: all userspace test-bins unit-bins unit-tests unit module module-or-skip clean install install-user \
	install-module dkms-install dkms-uninstall deps kernel test host-test deb \
	vm-test dkms-test fuzz-vm stress bench demo checkpatch fuzz fuzz-bins gpu-check

all: userspace module-or-skip

userspace: $(USER_BINS) $(USER_LIBS)

%.o: %.c
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# libgpupath exports what libgpupath.h and libgpupath-admin.h declare, and
# only that: everything else is hidden, and the version script lists the
# interface (selftests/abi-check.sh compares the two, and the library with
# the releases' ABI).
$(SO_OBJS): override CFLAGS += -fvisibility=hidden
# Where gpupath run finds gpupath's libcufile.so.0.
tools/gpupath/run.o: override CFLAGS += -DGPUPATH_LIBDIR='"$(LIBDIR)"'
# The version, kept in kmod/version.h alone.
tools/lib/names.o: override CFLAGS += -DGPUPATH_TOOLS_VERSION='"$(VERSION)"'
tools/lib/names.o: kmod/version.h

tools/lib/libgpupath.a: $(LIB_OBJS)
	$(quiet) AR $@
	$(Q)$(AR) rcs $@ $^

tools/lib/libgpupath-private.a: $(PRIV_OBJS)
	$(quiet) AR $@
	$(Q)$(AR) rcs $@ $^

# Shared libraries are built under their soname, with the .so link beside.
tools/lib/libgpupath.so: $(SO_OBJS) tools/lib/libgpupath.map
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libgpupath.so.0 -Wl,--version-script=tools/lib/libgpupath.map \
		-o $@.0 $(SO_OBJS) $(NL_LIBS)
	$(Q)ln -sf libgpupath.so.0 $@

# The cuFile API: libgpupath-cufile, and the same objects under libcufile's
# soname, for programs built against libcufile (LD_LIBRARY_PATH=.../gpupath).
# libcufile.map lists what they export (unversioned, as NVIDIA's library).
CUFILE_OBJS := $(patsubst %.c,%.o,$(wildcard tools/cufile/*.c))
$(CUFILE_OBJS): override CFLAGS += -fvisibility=hidden -Itools/cufile
CUFILE_LD = $(CC) $(LDFLAGS) -shared -Wl,--version-script=tools/cufile/libcufile.map -o $@.0 \
	$(CUFILE_OBJS) -Ltools/lib -lgpupath $(JSON_LIBS) -ldl -pthread
# Installed, each finds libgpupath.so.0 in LIBDIR by its RUNPATH, before
# ldconfig has run (a program may be pointed at the libcufile.so.0 copy
# alone); the Debian packages, in the system's directories, set none.
CUFILE_RUNPATH ?= 1
tools/cufile/libgpupath-cufile.so: $(CUFILE_OBJS) tools/lib/libgpupath.so tools/cufile/libcufile.map
	$(quiet) LD $@
	$(Q)$(CUFILE_LD) -Wl,-soname,libgpupath-cufile.so.0 $(if $(CUFILE_RUNPATH),-Wl$(comma)-rpath$(comma)'$$ORIGIN')
	$(Q)ln -sf libgpupath-cufile.so.0 $@

tools/cufile/compat/libcufile.so: $(CUFILE_OBJS) tools/lib/libgpupath.so tools/cufile/libcufile.map
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CUFILE_LD) -Wl,-soname,libcufile.so.0 $(if $(CUFILE_RUNPATH),-Wl$(comma)-rpath$(comma)'$$ORIGIN/..')
	$(Q)ln -sf libcufile.so.0 $@

tools/lib/cuda.o: override CFLAGS += -fvisibility=hidden
tools/lib/libgpupath-cuda.so: tools/lib/cuda.o tools/lib/libgpupath.so tools/lib/libgpupath-cuda.map
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libgpupath-cuda.so.0 \
		-Wl,--version-script=tools/lib/libgpupath-cuda.map -o $@.0 $< -Ltools/lib -lgpupath \
		-ldl -pthread
	$(Q)ln -sf libgpupath-cuda.so.0 $@

# The test double of NVIDIA's libcuda.so.1 (selftests/cuda/libcuda.c), in a
# directory of its own for LD_LIBRARY_PATH; never installed.
CUDA_DOUBLE := selftests/build/cuda-double/libcuda.so.1
$(CUDA_DOUBLE): selftests/cuda/libcuda.c tools/lib/cuda-driver.h
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -fvisibility=hidden -shared -Wl,-soname,libcuda.so.1 -o $@ $< \
		-pthread

# Programs on libgpupath-cuda and the CUDA driver API (selftests/cuda/cu.h).
CUDA_TEST_LIBS := -Ltools/lib -lgpupath-cuda -lgpupath -ldl -pthread \
	-Wl,-rpath,$(CURDIR)/tools/lib,-rpath,$(CURDIR)/tools/cufile
selftests/build/gp-cuda: selftests/cuda/cuda-test.c selftests/cuda/cu.h tools/lib/busy.h \
		tools/lib/libgpupath-cuda.so
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -Iselftests/cuda -o $@ $< $(CUDA_TEST_LIBS)

selftests/build/cufile-cuda-check: selftests/unit/cufile-cuda-check.c selftests/cuda/cu.h \
		tools/cufile/libgpupath-cufile.so tools/lib/libgpupath-cuda.so
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -Itools/cufile -Iselftests/cuda -o $@ $< -Ltools/cufile \
		-lgpupath-cufile $(CUDA_TEST_LIBS)

# Real programs' cuFile call sequences, as a program built against libcufile.
selftests/build/gp-cufile-clients: selftests/cufile/clients.c selftests/cuda/cu.h \
		tools/cufile/cufile.h tools/cufile/compat/libcufile.so tools/lib/libgpupath.so
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -Itools/cufile -Iselftests/cuda -o $@ $< \
		-Ltools/cufile/compat -lcufile -Wl,-rpath-link,tools/lib -ldl -pthread

# cuda-driver.h against NVIDIA's cuda.h, where CUDA is installed.
selftests/build/cuda-abi-check: selftests/unit/cuda-abi-check.c tools/lib/cuda-driver.h
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -I$(CUDA_HOME)/include -o $@ $<

tools/gpupath/gpupath: $(CLI_OBJS) tools/lib/libgpupath-private.a tools/lib/libgpupath.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(NL_LIBS) $(PCI_LIBS)

tools/gpupath-bench/gpupath-bench: $(BENCH_OBJS) tools/lib/libgpupath.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) -pthread -o $@ $^ $(NL_LIBS)

# daemon/libnvme-fix.c's scandir() and scandir64(), exported whatever the
# libraries linked, so that libnvme is bound to them.
SCANDIR_FIX := -Wl,--export-dynamic-symbol=scandir -Wl,--export-dynamic-symbol=scandir64

daemon/gpupathd: $(DAEMON_OBJS) tools/lib/libgpupath-private.a tools/lib/libgpupath.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS) $(SCANDIR_FIX) -pthread -o $@ $^ $(NL_LIBS) $(NVME_LIBS) $(SYSTEMD_LIBS) \
		$(Z_LIBS) $(AVAHI_LIBS) $(DM_LIBS) $(MHD_LIBS)

test-bins: $(TEST_BINS) $(CUDA_DOUBLE)

unit-bins: $(UNIT_BINS) $(UNIT_BINS_CUDA) $(CUDA_DOUBLE)

# The unit tests of selftests/unit/*_test.c, built and run with only what
# the build needs (no kernel sources, no QEMU): make unit [TEST="ledger dcb"].
UNIT_TESTS := $(patsubst selftests/unit/%.c,selftests/build/%,$(wildcard selftests/unit/*_test.c))

unit-tests: $(UNIT_TESTS)

unit: unit-tests
	@selftests/unit/run.sh $(TEST)

# The test programs: one source each, some linked with libgpupath (and
# then libnl), headers as dependencies only.
selftests/build/gp-pattern: selftests/vm/pattern.c
selftests/build/gp-io: selftests/vm/gp-io.c tools/lib/libgpupath.a
selftests/build/io-check: selftests/vm/io-check.c selftests/vm/expect.h
selftests/build/gp-priv: selftests/vm/priv.c selftests/vm/expect.h
selftests/build/gp-nvdouble: selftests/vm/nvdouble.c selftests/vm/expect.h
selftests/build/gp-nvdouble: TEST_LDFLAGS := -pthread
selftests/build/gp-faults: selftests/vm/faults.c tools/lib/libgpupath.a
selftests/build/gp-fuzz: selftests/vm/fuzz.c tools/lib/libgpupath.a
selftests/build/nl-check: selftests/vm/nl-check.c tools/lib/libgpupath.a

$(filter-out selftests/build/gp-cufile selftests/build/gp-cuda selftests/build/gp-cufile-clients,$(TEST_BINS)):
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $(TEST_LDFLAGS) -o $@ $(filter %.c %.a,$^) \
		$(if $(filter %.a,$^),$(NL_LIBS))

# Built as a program for NVIDIA's libcufile is: against libcufile.so.0
# (gpupath's, in tools/cufile/compat), and libgpupath for its memory.
selftests/build/gp-cufile: selftests/vm/cufile-test.c tools/cufile/cufile.h \
		tools/cufile/compat/libcufile.so tools/lib/libgpupath.so
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -Itools/cufile -o $@ $< -Ltools/cufile/compat -lcufile -Ltools/lib \
		-lgpupath

selftests/build/json_test: selftests/unit/json_test.c tools/gpupath/json.o tools/lib/text.o
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^

selftests/build/ledger_test: selftests/unit/ledger_test.c daemon/ledger.o daemon/runfile.o
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^

selftests/build/secret_test: selftests/unit/secret_test.c daemon/secret.o
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(Z_LIBS)

# (ana.c's libnvme and log calls are not reached by what the test calls.)
# ana.c is built into the test with UBSan, which stops it on any undefined
# behaviour: a descriptor of the log page read in place, misaligned.
UBSAN := -fsanitize=undefined -fno-sanitize-recover=all
selftests/build/ana_test: selftests/unit/ana_test.c daemon/ana.c daemon/log.o \
		tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $(UBSAN) $(shell pkg-config --cflags libnvme 2>/dev/null) -o $@ $^ \
		$(NVME_LIBS) $(NL_LIBS) $(SYSTEMD_LIBS)

# dcb.c is built into the test with UBSan too; its dcbnl calls are not
# reached by what the test calls.
selftests/build/dcb_test: selftests/unit/dcb_test.c daemon/dcb.c daemon/ledger.o daemon/runfile.o \
		daemon/log.o tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) $(UBSAN) -o $@ $^ $(NL_LIBS) $(SYSTEMD_LIBS)

selftests/build/libnvme_fix_test: selftests/unit/libnvme_fix_test.c daemon/libnvme-fix.o
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $(shell pkg-config --cflags libnvme 2>/dev/null) $(SCANDIR_FIX) -o $@ \
		$^ $(NVME_LIBS)

# (mdns.o's Avahi calls are not reached by what the test calls.)
selftests/build/mdns_test: selftests/unit/mdns_test.c daemon/mdns.o daemon/log.o \
		tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(AVAHI_LIBS) $(NL_LIBS) $(SYSTEMD_LIBS)

selftests/build/text_test: selftests/unit/text_test.c daemon/disclog.o \
		tools/lib/libgpupath-private.a tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $(shell pkg-config --cflags libnvme 2>/dev/null) -o $@ $^ $(NL_LIBS)

selftests/build/ifaddr_test: selftests/unit/ifaddr_test.c tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(NL_LIBS)

selftests/build/model_test: selftests/unit/model_test.c tools/lib/libgpupath.a
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(NL_LIBS)

# Against libgpupath-cufile, found where it was built; libgpupath needed
# by name too, so that the program's run path finds it for the library.
selftests/build/cufile_batch_test: selftests/unit/cufile_batch_test.c selftests/unit/harness.h \
		tools/cufile/cufile.h tools/cufile/libgpupath-cufile.so tools/lib/libgpupath.so
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -pthread -Itools/cufile -o $@ $< -Ltools/cufile -lgpupath-cufile \
		-Ltools/lib -Wl,--no-as-needed -lgpupath \
		-Wl,-rpath,$(CURDIR)/tools/cufile,-rpath,$(CURDIR)/tools/lib

# libFuzzer harnesses (clang), with the library sources they exercise built
# here with the same sanitizers. A crash leaves its input in
# selftests/build/fuzz/work/HARNESS/; replay it with
# selftests/build/fuzz/fuzz_HARNESS FILE.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 1
FUZZ_DIR := selftests/build/fuzz
FUZZ_BINS := $(FUZZ_DIR)/fuzz_conf $(FUZZ_DIR)/fuzz_decode $(FUZZ_DIR)/fuzz_kw \
	$(FUZZ_DIR)/fuzz_daemon
FUZZ_LIB_OBJS := $(patsubst tools/lib/%.o,$(FUZZ_DIR)/lib/%.o,$(LIB_OBJS) $(PRIV_OBJS))
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-std=gnu11 -Wall -Wextra $(WERROR) -MMD -MP -Iuapi -Itools/lib \
	-DGPUPATH_TOOLS_VERSION='"$(VERSION)"' $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)

fuzz-bins: $(FUZZ_BINS)

.SECONDARY: $(FUZZ_LIB_OBJS)

fuzz: fuzz-bins
	@selftests/fuzz/run.sh -t $(FUZZ_SECONDS) -s $(FUZZ_SEED)

$(FUZZ_DIR)/lib/%.o: tools/lib/%.c
	@mkdir -p $(@D)
	$(quiet) FUZZCC $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

# The seeds of the decode harness (selftests/fuzz/corpus/decode) come from this.
$(FUZZ_DIR)/mkcorpus: selftests/fuzz/mkcorpus.c
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $< $(NL_LIBS)

# gpupathd's readers of what comes from the network and from users; ana.c's
# libnvme and log calls are not reached by what the harness calls.
FUZZ_DAEMON_OBJS := $(FUZZ_DIR)/daemon/ana.o $(FUZZ_DIR)/daemon/disclog.o \
	$(FUZZ_DIR)/daemon/log.o
.SECONDARY: $(FUZZ_DAEMON_OBJS)

$(FUZZ_DIR)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(quiet) FUZZCC $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags libnvme 2>/dev/null) -c -o $@ $<

$(FUZZ_DIR)/fuzz_daemon: selftests/fuzz/fuzz_daemon.c $(FUZZ_DAEMON_OBJS) $(FUZZ_LIB_OBJS)
	$(quiet) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags libnvme 2>/dev/null) -o $@ \
		$(filter %.c %.o,$^) $(NL_LIBS) $(NVME_LIBS) $(SYSTEMD_LIBS)

$(FUZZ_DIR)/fuzz_%: selftests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	$(quiet) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^) $(NL_LIBS)

module:
	@test -d "$(KDIR)" || { echo "error: no kernel build tree at $(KDIR)"; \
		echo "       install linux-headers-$(KERNELRELEASE) or pass KDIR=..."; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules

module-or-skip:
	@if [ -d "$(KDIR)" ]; then $(MAKE) --no-print-directory module; else \
		echo "  SKIP     module: no kernel build tree at $(KDIR) (set KDIR=...)"; fi

install: install-user install-module

# The kernel interface's headers go under INCLUDEDIR/gpupath/linux (not
# INCLUDEDIR/linux, the kernel headers' own): libgpupath.pc's -I finds them.
install-user: userspace
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/gpupath/linux \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 tools/gpupath/gpupath daemon/gpupathd tools/gpupath-bench/gpupath-bench \
		$(DESTDIR)$(SBINDIR)/
	install -m 0644 tools/lib/libgpupath.a $(DESTDIR)$(LIBDIR)/
	install -m 0755 tools/lib/libgpupath.so.0 $(DESTDIR)$(LIBDIR)/libgpupath.so.0
	ln -sf libgpupath.so.0 $(DESTDIR)$(LIBDIR)/libgpupath.so
	install -m 0755 tools/lib/libgpupath-cuda.so.0 $(DESTDIR)$(LIBDIR)/
	install -m 0755 tools/cufile/libgpupath-cufile.so.0 $(DESTDIR)$(LIBDIR)/
	ln -sf libgpupath-cufile.so.0 $(DESTDIR)$(LIBDIR)/libgpupath-cufile.so
	install -d $(DESTDIR)$(LIBDIR)/gpupath $(DESTDIR)$(INCLUDEDIR)/gpupath
	install -m 0755 tools/cufile/compat/libcufile.so.0 $(DESTDIR)$(LIBDIR)/gpupath/
	install -m 0644 tools/cufile/cufile.h $(DESTDIR)$(INCLUDEDIR)/gpupath/
	install -m 0644 tools/lib/libgpupath.h tools/lib/libgpupath-admin.h $(DESTDIR)$(INCLUDEDIR)/
	for m in tools/man/*.[0-9]; do \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} || exit 1; done
	install -D -m 0644 tools/completion/gpupath $(DESTDIR)$(COMPLETIONDIR)/gpupath
	ln -sf gpupath $(DESTDIR)$(COMPLETIONDIR)/gpupathd
	install -m 0644 uapi/linux/gpupath.h uapi/linux/gpupath_nl.h $(DESTDIR)$(INCLUDEDIR)/gpupath/linux/
	for pc in tools/lib/libgpupath.pc tools/cufile/libgpupath-cufile.pc; do \
		sed -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
			-e 's|@VERSION@|$(VERSION)|' $$pc.in >$(DESTDIR)$(PKGCONFIGDIR)/$${pc##*/} || exit 1; \
	done
	sed 's|/usr/sbin/|$(SBINDIR)/|' daemon/gpupathd.service > \
		$(DESTDIR)$(UNITDIR)/gpupathd.service
	install -D -m 0644 daemon/69-gpupath.rules $(DESTDIR)$(UDEVRULESDIR)/69-gpupath.rules
	# The configuration is the administrator's: installed once, never overwritten.
	install -d $(DESTDIR)$(SYSCONFDIR)/gpupath
	test -e $(DESTDIR)$(SYSCONFDIR)/gpupath/gpupath.conf || \
		install -m 0644 daemon/gpupath.conf $(DESTDIR)$(SYSCONFDIR)/gpupath/gpupath.conf
	# The dynamic linker's cache, for programs to find the new libraries.
	$(if $(DESTDIR),,ldconfig)

install-module: module
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" INSTALL_MOD_PATH=$(DESTDIR) modules_install

# DKMS builds from a copy of the sources under /usr/src/gpupath-VERSION.
DKMS_SRC := $(DESTDIR)/usr/src/gpupath-$(VERSION)
dkms-install:
	@if dkms status -m gpupath -v $(VERSION) 2>/dev/null | grep -q .; then \
		dkms remove -m gpupath -v $(VERSION) --all; fi
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	cp -r Kbuild Makefile dkms.conf kmod uapi $(DKMS_SRC)/
	dkms add -m gpupath -v $(VERSION)
	dkms build -m gpupath -v $(VERSION) -k $(KERNELRELEASE)
	dkms install -m gpupath -v $(VERSION) -k $(KERNELRELEASE)

dkms-uninstall:
	-dkms remove -m gpupath -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# Debian packages (gpupath, gpupath-dkms, libgpupath0, libgpupath-cufile0,
# libgpupath-dev), built with debhelper from tools/deb/debian in a copy of
# the tree, into DEB_OUT.
DEB_OUT ?= tools/deb/out
deb:
	$(Q)tools/deb/build-deb.sh $(DEB_OUT)

# ---- tests and demo --------------------------------------------------------

deps:
	@selftests/vm/setup-host.sh

kernel: deps
	@selftests/vm/build-kernel.sh >/dev/null

test: deps
	@selftests/run.sh all

host-test: deps
	@selftests/run.sh host

vm-test: deps
	@selftests/run.sh $(if $(TESTS),one,vm)

dkms-test: deps
	@selftests/run.sh dkms

# A million fuzzed netlink and ioctl inputs on the debug kernel (FUZZ_SEED,
# FUZZ_NL, FUZZ_IOCTL); about 15 minutes under emulation.
fuzz-vm: deps
	@selftests/run.sh fuzz

# Fault injection, then STRESS_SECONDS (default 300) of stress, on the debug
# kernel; make test runs both in a short form.
stress: deps
	@selftests/run.sh stress

# The performance lab: guest instructions per I/O under QEMU's icount, both
# test kernels, 3 boots each (LAB_KERNELS, LAB_BOOTS, LAB_ONLY; see
# selftests/lab/run.sh and Documentation/performance.md).
# make bench NODE=1 NODE_TARGET=DEV|FILE: the same reads on this machine, a
# GPU node, as root with the module loaded: GB/s, CPU per GB and the link's
# share (selftests/lab/node.sh).
ifeq ($(NODE),)
bench: deps
	@selftests/lab/run.sh
else
bench: userspace test-bins
	@selftests/lab/node.sh
endif

demo: deps
	@selftests/vm/demo.sh

# The first run on a machine with an NVIDIA GPU, as root: inventory, direct
# I/O into GPU memory, the ends of a CUDA program in I/O; a report in
# gpu-check.txt (tools/gpu-check.sh says what it checks and its settings).
gpu-check: userspace test-bins module
	@tools/gpu-check.sh

checkpatch:
	@selftests/vm/checkpatch.sh

clean:
	rm -f $(ALL_OBJS) $(ALL_OBJS:.o=.d) $(USER_BINS) $(USER_LIBS) $(addsuffix .0,$(filter %.so,$(USER_LIBS)))
	rm -rf selftests/build
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean; fi

-include $(ALL_OBJS:.o=.d) $(wildcard $(FUZZ_DIR)/*.d $(FUZZ_DIR)/lib/*.d)
