# smcr-sim — one Makefile for the whole tree.
#   make            build the smcr-sim binary and the test programs
#   make demo       install missing Debian packages, build, run the default scenario
#   make check      install missing Debian packages, build, run every test (summary at the end)
#   make check SAN=1  the same with AddressSanitizer + UndefinedBehaviorSanitizer
#   make deps       install (as root) or list the Debian packages the project needs (plain
#                   `make` names the ones the build lacks and points here)
#   make traces     regenerate the sample captures traces/trace-*.pcapng
#   make bench-peers  install Debian's ns-3, build bench/peers/, run our benchmarks beside them
#   make bench-hosts  the host profiles beside published SMC-R-versus-TCP measurements
#   make fit-hosts  the search that fitted the linux host profile (FIT_ARGS='--iterations N')
#   make compare-outputs REF=BIN [SEEDS=1000]  this build's visible outputs against another binary's
#   make compile_commands.json  the compilation database for clangd and clang-tidy
#   make install [PREFIX=/usr/local DESTDIR=]  binary, man pages, completion, libsmcr-model (make uninstall)
#   make fuzz       build the libFuzzer targets (fuzz/, clang) and run each FUZZ_S seconds
#   make fuzz-build only build them (build-fuzz/); make fuzz-corpus: seed corpora from traces/
#
# Sources are found by wildcard: model/*.c (the sans-I/O protocol core, libc only),
# sim/*/*.c (one folder per subsystem, sim/layers.txt lists them), tools/*.c (the CLI),
# tests/**/test_*.c (one Criterion program per file, in tests/model/ and tests/sim/FOLDER/).
# Adding a file needs no Makefile edit.

comma   := ,
CC      ?= gcc
SAN     ?= 0
WERROR  ?= 1
PKGS    := glib-2.0 libpcap libibverbs
BUILD   ?= $(if $(filter 1,$(SAN)),build-san,build)

WARN    := -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion -Wswitch-enum \
           -Wmissing-prototypes -Wstrict-prototypes -Wpointer-arith -Wvla \
           -Wno-missing-field-initializers $(if $(filter 1,$(WERROR)),-Werror)
OPT     := $(if $(filter 1,$(SAN)),-O1 -g -fno-omit-frame-pointer -fsanitize=address$(comma)undefined -fno-sanitize-recover=undefined,-O2 -g)
BASECFLAGS := -std=gnu11 $(OPT) $(WARN) -D_GNU_SOURCE -I. -MMD -MP
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRIT_LIBS  = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
LDFLAGS_SAN := $(if $(filter 1,$(SAN)),-fsanitize=address$(comma)undefined)
EXTRA_LIBS := -lm

# MPI (`sweep` and `swarm` over the ranks of a job, sim/sweep/sweep_mpi.c): built in when
# Open MPI's development files are there (pkg-config ompi-c, else mpicc --showme), left out
# otherwise (`smcr-sim --version` says mpi: no). Its headers are system headers here, so the
# strict warnings apply to our code only.
MPI_PC_OK := $(shell pkg-config --exists ompi-c 2>/dev/null && echo yes)
MPI_INC   := $(if $(MPI_PC_OK),$(shell pkg-config --cflags ompi-c 2>/dev/null),$(shell mpicc --showme:compile 2>/dev/null))
MPI_LIBS  := $(if $(MPI_PC_OK),$(shell pkg-config --libs ompi-c 2>/dev/null),$(shell mpicc --showme:link 2>/dev/null))
MPI_CFLAGS := $(if $(strip $(MPI_LIBS)),-DSMCR_HAVE_MPI $(patsubst -I%,-isystem %,$(filter -I%,$(MPI_INC))))
EXTRA_LIBS += $(if $(strip $(MPI_CFLAGS)),$(MPI_LIBS))

MODEL_SRC := $(sort $(wildcard model/*.c))
SIM_SRC   := $(sort $(wildcard sim/*/*.c))
TOOL_SRC  := $(sort $(wildcard tools/*.c))
# Criterion programs: tests/**/test_*.c (tests/model/, tests/sim/FOLDER/), each built to
# $(BUILD)/tests/ under the same path
TEST_SRC  := $(sort $(shell find tests -name 'test_*.c'))
TESTLIB_SRC := $(sort $(wildcard tests/support/*.c))
HW_SRC    := $(sort $(wildcard tests/hw/*.c))
INTEROP_SRC := $(sort $(wildcard tests/interop/*.c))
WIRESHARK_SRC := $(sort $(wildcard tests/wireshark/*.c))

MODEL_OBJ := $(MODEL_SRC:%.c=$(BUILD)/%.o)
SIM_OBJ   := $(SIM_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
HW_BIN    := $(HW_SRC:tests/%.c=$(BUILD)/tests/%)
INTEROP_BIN := $(INTEROP_SRC:tests/%.c=$(BUILD)/tests/%)
WIRESHARK_BIN := $(WIRESHARK_SRC:tests/%.c=$(BUILD)/tests/%)

LIBMODEL  := $(BUILD)/libsmcr-model.a
LIBSIM    := $(BUILD)/libsmcr-sim.a
BIN       := $(BUILD)/smcr-sim

.PHONY: all deps demo check check-unit check-hw check-interop traces pictures peers bench-peers bench-hosts fit-hosts compare-outputs clean \
        compile_commands.json FORCE fuzz fuzz-build fuzz-corpus
all: $(BIN) $(TEST_BIN) $(HW_BIN) $(INTEROP_BIN) $(WIRESHARK_BIN)

# `smcr-sim --version` (tools/version.c): VERSION, `git describe` of the tree it was built
# from (VERSION again where there is no git, as in a release tarball) and the versions of the
# libraries it was built with. The header is rewritten only when a value changed.
VERSION_TEXT := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_DESC     := $(shell git describe --always --dirty 2>/dev/null)
VERSION_H    := $(BUILD)/gen/version.h
$(VERSION_H): FORCE
	@mkdir -p $(@D)
	@{ echo '#define SMCR_SIM_VERSION "$(VERSION_TEXT)"'; \
	  echo '#define SMCR_SIM_GIT "$(GIT_DESC)"'; \
	  echo '#define SMCR_SIM_VERBS_VERSION "$(shell pkg-config --modversion libibverbs 2>/dev/null)"'; \
	  echo '#define SMCR_SIM_GLIB_BUILD "$(shell pkg-config --modversion glib-2.0 2>/dev/null)"'; \
	  echo '#define SMCR_SIM_DATADIR "$(DATADIR)"'; } >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/tools/version.o: $(VERSION_H)
# rebuilt when MPI comes or goes (its flags are in the stamp)
MPI_STAMP := $(BUILD)/gen/mpi.stamp
$(MPI_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(MPI_CFLAGS) $(MPI_LIBS)' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/sim/sweep/sweep_mpi.o: $(MPI_STAMP)
$(BUILD)/sim/sweep/sweep_mpi.o: BASECFLAGS += $(MPI_CFLAGS)
$(BIN): $(MPI_STAMP)
$(BUILD)/tools/version.o: BASECFLAGS += -I$(BUILD)/gen

# Plain `make` on a machine without the development packages says which Debian packages
# are missing and how to install them (make deps), before a compiler says glib.h is not
# there: every object waits for this check (tools/install-deps --check; quick, no root).
.PHONY: need-deps
need-deps:
	@CC="$(CC)" tools/install-deps --check

# model/ is the sans-I/O core: it is compiled without GLib or any I/O headers on purpose.
$(BUILD)/model/%.o: model/%.c | need-deps
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) -c $< -o $@

$(BUILD)/sim/%.o: sim/%.c | need-deps
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/tools/%.o: tools/%.c | need-deps
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | need-deps
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) $(PKG_CFLAGS) -Wno-missing-prototypes -c $< -o $@

$(LIBMODEL): $(MODEL_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBSIM): $(SIM_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BIN): $(TOOL_OBJ) $(LIBSIM) $(LIBMODEL)
	$(CC) $(LDFLAGS_SAN) -o $@ $(TOOL_OBJ) $(LIBSIM) $(LIBMODEL) $(PKG_LIBS) $(EXTRA_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TESTLIB_OBJ) $(LIBSIM) $(LIBMODEL)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(TESTLIB_OBJ) $(LIBSIM) $(LIBMODEL) $(PKG_LIBS) $(CRIT_LIBS) $(EXTRA_LIBS)

# tests/hw/*.c: programs that run on a real RDMA device (in the check-hw VM), no Criterion.
$(BUILD)/tests/hw/%: $(BUILD)/tests/hw/%.o $(LIBSIM) $(LIBMODEL)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(LIBSIM) $(LIBMODEL) $(PKG_LIBS) $(EXTRA_LIBS)

# tests/interop/*.c: the Linux side of the interoperability test (AF_SMC, netlink), no Criterion.
$(BUILD)/tests/interop/%: $(BUILD)/tests/interop/%.o $(LIBSIM)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(LIBSIM) -lpthread

# tests/wireshark/*.c: programs that write capture files for the Wireshark Lua dissector
# test (tests/captures/t_wireshark_lua.sh), no Criterion.
$(BUILD)/tests/wireshark/%: $(BUILD)/tests/wireshark/%.o $(LIBSIM) $(LIBMODEL)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(LIBSIM) $(LIBMODEL) $(PKG_LIBS) $(EXTRA_LIBS)

deps:
	@tools/install-deps

demo: deps
	$(MAKE) --no-print-directory $(BIN)
	tools/demo $(BIN)

# The whole test suite: Criterion programs, scenario runs, tshark checks, CHECK_JOBS at a
# time (the machine's CPUs by default; CHECK_JOBS=1 runs one after another). The runner
# prints the results in a fixed order and one summary at the end (the logs stay in
# $(BUILD)/test-logs/), and fails if anything failed.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	@tools/install-deps --mpi || echo "make check: Open MPI could not be installed; the MPI sweep test will skip" >&2
	@tools/install-deps --slurm >/dev/null 2>&1 || echo "make check: Slurm could not be installed; the Slurm sweep test will skip" >&2
	@tools/install-deps --pictures >/dev/null 2>&1 || echo "make check: Chromium could not be installed; the picture render test will skip" >&2
	$(MAKE) --no-print-directory all
	tests/run-tests -j $(CHECK_JOBS) $(BUILD)

# The real-hardware tests: in a QEMU VM with Debian's kernel and Soft-RoCE (rxe-setup/).
check-hw: all
	@tools/install-deps --hw
	KERNEL=$(KERNEL) rxe-setup/check-hw.sh $(BUILD)

# The sample captures in traces/ (tools/make-traces; tests/captures/t_traces.sh checks they
# are current).
traces: $(BIN)
	tools/make-traces $(BIN)

# The pictures in docs/pictures/ (tools/make-pictures; tests/cli/t_pictures.sh checks the SVGs
# are current): SVG from the binary, PNG through headless Chromium (install-deps --pictures).
pictures: $(BIN)
	@tools/install-deps --pictures
	tools/make-pictures $(BIN)

# Interoperability with the Linux kernel's SMC-R over Soft-RoCE: two VMs, both directions.
# KERNEL=6.12 (7.3, …): that Debian kernel, fetched into $(BUILD)/kernels (rxe-setup/kernel-fetch.sh).
check-interop: all
	@tools/install-deps --interop
	KERNEL=$(KERNEL) rxe-setup/interop/check-interop.sh $(BUILD)

# The ns-3 peers of the benchmarks (bench/peers/*.cc, C++ against Debian's ns-3 3.37), never
# part of `all` or `check`: ns-3 is large to install and slow to compile against. Only the
# libraries come from pkg-config: Debian's ns-3 .pc files carry a broken -I/usr; in their
# Cflags, and the headers are in /usr/include/ns3 anyway. `make bench-peers` runs
# tools/bench-peers: ours and theirs alternately, three times each, medians and ratios.
CXX       ?= g++
NS3_PKGS  := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications
PEER_SRC  := $(sort $(wildcard bench/peers/*.cc))
PEER_BIN  := $(PEER_SRC:bench/peers/%.cc=$(BUILD)/peers/%)
PEERS_ARGS ?=

$(BUILD)/peers/%: bench/peers/%.cc bench/peers/peer_result.h
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O2 -Wall -Wextra -Werror -o $@ $< $$(pkg-config --libs $(NS3_PKGS))

peers: $(PEER_BIN)

# tools/bench-hosts: the host profiles beside published SMC-R-versus-TCP measurements
# (docs/hosts.md: calibration and validation points, printed as they come out).
bench-hosts: $(BIN)
	tools/bench-hosts $(BUILD)

# tools/fit-hosts: the search that fitted the linux profile to [wg22] (docs/hosts.md)
fit-hosts: $(BIN)
	tools/fit-hosts $(BUILD) $(FIT_ARGS)

bench-peers: $(BIN)
	@tools/install-deps --peers
	$(MAKE) --no-print-directory peers
	tools/bench-peers $(PEERS_ARGS) $(BUILD)

# Every visible output of this build against another binary's (REF, say main's): the
# outputs digest, the first SEEDS swarm worlds run every way, the incast scenarios with
# their event streams and statistics (tools/outputs-compare). For changes that remove or
# merge engine events; about ten minutes with SEEDS=1000. `make check` runs a small part
# of it within this build, event-free hops against every hop an event (t_hops.sh).
SEEDS ?= 1000
compare-outputs: $(BIN)
	@test -n "$(REF)" || { echo "make compare-outputs REF=path/to/other/smcr-sim [SEEDS=N]"; exit 2; }
	tools/outputs-compare -n $(SEEDS) $(REF) $(BIN)

# The compilation database editors, clangd and clang-tidy read: one entry per source with
# the exact flags this Makefile uses (model/ without GLib's include paths, as it is built).
compile_commands.json:
	@{ echo '['; sep=' '; \
	for f in $(MODEL_SRC); do \
		printf '%s{ "directory": "%s", "file": "%s", "command": "%s -c %s -o %s" }\n' "$$sep" "$(CURDIR)" "$$f" "$(CC) $(BASECFLAGS)" "$$f" "$(BUILD)/$${f%.c}.o"; sep=','; \
	done; \
	for f in $(SIM_SRC) $(TOOL_SRC); do \
		printf '%s{ "directory": "%s", "file": "%s", "command": "%s -c %s -o %s" }\n' "$$sep" "$(CURDIR)" "$$f" "$(CC) $(BASECFLAGS) $(PKG_CFLAGS)" "$$f" "$(BUILD)/$${f%.c}.o"; \
	done; \
	for f in $(TEST_SRC) $(TESTLIB_SRC) $(HW_SRC) $(INTEROP_SRC) $(WIRESHARK_SRC); do \
		printf '%s{ "directory": "%s", "file": "%s", "command": "%s -c %s -o %s" }\n' "$$sep" "$(CURDIR)" "$$f" "$(CC) $(BASECFLAGS) $(PKG_CFLAGS) -Wno-missing-prototypes" "$$f" "$(BUILD)/$${f%.c}.o"; \
	done; echo ']'; } > $@
	@echo "wrote $@ ($$(grep -c '"file"' $@) sources)"

check-unit: all
	tests/run-tests -j $(CHECK_JOBS) $(BUILD) --unit-only

# Fuzzing (fuzz/README.md): one libFuzzer target per fuzz/fuzz_*.c, built with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer in build-fuzz/ (every model/ and sim/
# source compiled again with coverage instrumentation; the gcc builds are untouched).
# `make fuzz` runs each target FUZZ_S seconds (FUZZ_TARGETS="clc llc": only those) and
# prints executions, executions per second and coverage per target.
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_S       ?= 60
# optimisation of the targets: -O1 for fuzzing; tests/tree/t_fuzz_corpus.sh builds its own
# with -O0 in build-fuzz-check/ (it only runs the committed inputs, once each)
FUZZ_OPT     ?= -O1
FUZZ_TARGETS ?=
FUZZ_SAN     := -fsanitize=address$(comma)undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   = -std=gnu11 $(FUZZ_OPT) -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                $(WARN) -D_GNU_SOURCE -I. -MMD -MP
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:fuzz/%.c=$(FUZZ_BUILD)/%)
# what the targets share: fuzz/common/, and the two-core harness of tests/support
FUZZ_SHARED_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(sort $(wildcard fuzz/common/*.c)) \
                   tests/support/duo.c)
FUZZ_LIBMODEL := $(FUZZ_BUILD)/libsmcr-model.a
FUZZ_LIBSIM   := $(FUZZ_BUILD)/libsmcr-sim.a

$(FUZZ_BUILD)/model/%.o: model/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/sim/%.o: sim/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/fuzz/%.o: fuzz/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -Wno-missing-prototypes -c $< -o $@

$(FUZZ_LIBMODEL): $(MODEL_SRC:%.c=$(FUZZ_BUILD)/%.o)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_LIBSIM): $(SIM_SRC:%.c=$(FUZZ_BUILD)/%.o)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_SHARED_OBJ) $(FUZZ_LIBSIM) $(FUZZ_LIBMODEL)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_SHARED_OBJ) $(FUZZ_LIBSIM) $(FUZZ_LIBMODEL) \
		$(PKG_LIBS) $(EXTRA_LIBS)

# keep the objects of the targets (intermediate files to make otherwise)
.SECONDARY: $(FUZZ_SHARED_OBJ) $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/%.o)

fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_S) $(FUZZ_TARGETS)

# The seed corpora fuzz/corpus/TARGET/ from the captures in traces/ and tests/data/ (single
# CLC, LLC and CDC messages, frames, CLC streams, short captures): built with the plain
# build, it needs no clang.
$(BUILD)/fuzz/make_corpus: $(BUILD)/fuzz/make_corpus.o $(LIBSIM) $(LIBMODEL)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(LIBSIM) $(LIBMODEL) $(PKG_LIBS) $(EXTRA_LIBS)

$(BUILD)/fuzz/%.o: fuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) $(PKG_CFLAGS) -c $< -o $@

fuzz-corpus: $(BUILD)/fuzz/make_corpus
	$(BUILD)/fuzz/make_corpus fuzz/corpus traces/*.pcap* tests/data/replay/*.pcap scenarios/*.scn tests/data/*.scn


# ---- install -------------------------------------------------------------------------
#   make install [PREFIX=/usr/local] [DESTDIR=…]   make uninstall (same variables)
# The binary, its man pages (built by tools/gen-man from the --help texts and
# docs/scenario-format.md), bash completion, the scenarios as examples, the Wireshark
# dissector, and the protocol core as a library: libsmcr-model.a, libsmcr-model.so.VERSION
# (soname libsmcr-model.so.MAJOR, built from -fPIC objects of model/), its public headers
# in include/smcr/ (with <smcr/…> includes) and smcr-model.pc for pkg-config.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/smcr-sim
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
MODEL_PUBLIC_H := $(addprefix model/,smcr.h smcr_transport.h smcr_err.h clc.h llc.h cdc.h byteorder.h decode_err.h)
SO_MAJOR    := $(firstword $(subst ., ,$(VERSION_TEXT)))
LIBMODEL_SO := $(BUILD)/libsmcr-model.so.$(VERSION_TEXT)
PIC_OBJ     := $(MODEL_SRC:%.c=$(BUILD)/pic/%.o)
MAN_PAGES   := $(BUILD)/man/smcr-sim.1 $(BUILD)/man/smcr-scenario.5
PUBLIC_H    := $(MODEL_PUBLIC_H:model/%=$(BUILD)/include/smcr/%)

.PHONY: lib man install uninstall
lib: $(LIBMODEL) $(LIBMODEL_SO) $(PUBLIC_H) $(BUILD)/smcr-model.pc
man: $(MAN_PAGES)

$(BUILD)/pic/model/%.o: model/%.c
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) -fPIC -c $< -o $@

# no sanitizer in the shared library: a program that embeds it need not be built with one
$(LIBMODEL_SO): $(PIC_OBJ)
	$(CC) -shared -Wl,-soname,libsmcr-model.so.$(SO_MAJOR) -o $@ $^

# the headers as installed: "model/x.h" becomes <smcr/x.h>
$(BUILD)/include/smcr/%.h: model/%.h
	@mkdir -p $(@D)
	sed 's|^#include "model/\([a-z_]*\.h\)"|#include <smcr/\1>|' $< >$@

# rewritten when PREFIX, LIBDIR, INCLUDEDIR or the version change (as version.h)
$(BUILD)/smcr-model.pc: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: smcr-model' 'Description: the sans-I/O SMC-R (RFC 7609) protocol core of smcr-sim' \
		'Version: $(VERSION_TEXT)' 'Libs: -L$${libdir} -lsmcr-model' 'Cflags: -I$${includedir}' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(MAN_PAGES) &: $(BIN) tools/gen-man man/smcr-sim.1.in man/smcr-scenario.5.in docs/scenario-format.md
	tools/gen-man $(BIN) docs/scenario-format.md $(BUILD)/man $(DATADIR) >/dev/null

# the pages name where the data is, so install writes them for its own DATADIR
install: $(BIN) lib
	tools/gen-man $(BIN) docs/scenario-format.md $(BUILD)/man-install $(DATADIR) >/dev/null
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/smcr \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPLETIONDIR) \
		$(DESTDIR)$(DATADIR)/smcr-sim/scenarios $(DESTDIR)$(DATADIR)/smcr-sim/wireshark $(DESTDIR)$(DOCDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/smcr-sim
	install -m 644 $(LIBMODEL) $(DESTDIR)$(LIBDIR)/libsmcr-model.a
	install -m 755 $(LIBMODEL_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libsmcr-model.so.$(VERSION_TEXT) $(DESTDIR)$(LIBDIR)/libsmcr-model.so.$(SO_MAJOR)
	ln -sf libsmcr-model.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libsmcr-model.so
	install -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/smcr/
	install -m 644 $(BUILD)/smcr-model.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 $(BUILD)/man-install/smcr-sim.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/man-install/smcr-scenario.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 tools/smcr-sim.bash $(DESTDIR)$(COMPLETIONDIR)/smcr-sim
	install -m 644 scenarios/*.scn $(DESTDIR)$(DATADIR)/smcr-sim/scenarios/
	install -m 644 tools/wireshark/smcr.lua $(DESTDIR)$(DATADIR)/smcr-sim/wireshark/
	install -m 644 tools/wireshark/README.md tools/wireshark/smcr.colorfilters $(DESTDIR)$(DATADIR)/smcr-sim/wireshark/
	install -m 644 examples/loopback-echo.c examples/README.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/smcr-sim $(DESTDIR)$(LIBDIR)/libsmcr-model.a \
		$(DESTDIR)$(LIBDIR)/libsmcr-model.so $(DESTDIR)$(LIBDIR)/libsmcr-model.so.$(SO_MAJOR) \
		$(DESTDIR)$(LIBDIR)/libsmcr-model.so.$(VERSION_TEXT) $(DESTDIR)$(LIBDIR)/pkgconfig/smcr-model.pc \
		$(DESTDIR)$(MANDIR)/man1/smcr-sim.1 $(DESTDIR)$(MANDIR)/man5/smcr-scenario.5 \
		$(DESTDIR)$(COMPLETIONDIR)/smcr-sim
	rm -rf $(DESTDIR)$(INCLUDEDIR)/smcr $(DESTDIR)$(DATADIR)/smcr-sim $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-san build-fuzz build-fuzz-check

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
