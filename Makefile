# schedreplay: one non-recursive Makefile.
#
#   make                 build ./schedreplay
#   make deps            install the Debian 12 build and test packages (root)
#   make demo            info on the bundled real trace (the README's main job)
#   make check           every test: C unit tests, shell tests, sanitizer run
#   make bench           throughput and memory against trace-cmd and libtracecmd
#   make fuzz            longer libFuzzer runs of every reader (FUZZ_SECONDS=600)
#   make install         PREFIX=/usr/local DESTDIR=
#   DEVELOPER=1          warnings are errors
#   SANITIZE=1           AddressSanitizer + UndefinedBehaviorSanitizer build
#   V=1                  show the commands

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/schedreplay
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INCLUDEDIR ?= $(PREFIX)/include
# headers only, no library: the arch-independent pkg-config directory
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
DOCDIR ?= $(PREFIX)/share/doc/schedreplay

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wstrict-prototypes \
	   -Wmissing-prototypes -Wvla
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),fuzz)
# libFuzzer targets (tests/fuzz): the library instrumented for coverage
BUILD ?= build-fuzz
CC = clang
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
else
BUILD ?= build
SANFLAGS =
endif

ifneq ($(V),1)
Q = @
QUIET_CC = @echo '   CC      ' $@;
QUIET_LINK = @echo '   LINK    ' $@;
QUIET_GEN = @echo '   GEN     ' $@;
endif

# name:minimum-version:debian-package (the versions Debian 12 ships)
PKGS = libtracecmd:1.3.1:libtracecmd-dev \
       libtraceevent:1.7.1:libtraceevent-dev \
       libtracefs:1.6.4:libtracefs-dev \
       babeltrace2:2.0.4:libbabeltrace2-dev \
       sqlite3:3.40.1:libsqlite3-dev \
       ncursesw:6.4:libncurses-dev
PKG_NAMES = $(foreach p,$(PKGS),$(word 1,$(subst :, ,$(p))))

# A missing library is reported by the libs-ok step (scripts/check-libs.sh,
# one line naming the Debian package) before anything compiles, not when this
# file is read: "make demo" and "make check" first run "make deps", which
# installs what is missing, then build in a second make that asks pkg-config
# anew.

PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_NAMES) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKG_NAMES) 2>/dev/null)

VERSION := $(shell cat VERSION)
ALL_CFLAGS = -std=gnu11 $(CFLAGS) $(SANFLAGS) $(WARNINGS) -Iinclude -Isrc -I$(BUILD) \
	     $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

# the library part (everything but main.c) is shared by the binary, unit
# tests and fuzz targets
LIB_SRCS = $(filter-out src/main.c,$(wildcard src/*.c replay/*.c reports/*.c))
LIB_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS)) $(BUILD)/sql-reports.o
# the canned queries of "schedreplay sql", compiled into the binary
REPORT_SQL = $(sort $(wildcard reports/*.sql))
MAIN_OBJ = $(BUILD)/src/main.o
# what a --patch-file pair includes (schedreplay-pairs(7)), installed by make install
PAIR_HEADERS = $(addprefix include/schedreplay/,patch.h balance.h model.h replay.h event.h \
		 pelt.h topology.h)

UNIT_SRCS = $(wildcard tests/unit/*.c)
UNIT_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

ifeq ($(SANITIZE),1)
PROGRAM = $(BUILD)/schedreplay
else
PROGRAM = schedreplay
endif

all: $(PROGRAM)

libs-ok:
	$(Q)scripts/check-libs.sh $(PKGS)

$(BUILD)/version.h: VERSION | libs-ok
	@mkdir -p $(@D)
	$(QUIET_GEN)printf '#define SR_VERSION "%s"\n' "$(VERSION)" > $@

$(BUILD)/%.o: %.c $(BUILD)/version.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/sql-reports.c: $(REPORT_SQL) scripts/embed-sql.sh | libs-ok
	@mkdir -p $(@D)
	$(QUIET_GEN)sh scripts/embed-sql.sh $@ $(REPORT_SQL)

$(BUILD)/sql-reports.o: $(BUILD)/sql-reports.c
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libschedreplay.a: $(LIB_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# whole archive: patch pairs register themselves from their own files, and
# -rdynamic lets a --patch-file shared object call back into the program
$(PROGRAM): $(MAIN_OBJ) $(BUILD)/libschedreplay.a
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -rdynamic -o $@ $(MAIN_OBJ) \
		-Wl,--whole-archive $(BUILD)/libschedreplay.a -Wl,--no-whole-archive $(PKG_LIBS) -lm -ldl

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libschedreplay.a tests/unit/unit.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
		-Wl,--whole-archive $(BUILD)/libschedreplay.a -Wl,--no-whole-archive $(PKG_LIBS) -lm -ldl

unit: $(UNIT_BINS)

FUZZ_BINS = $(patsubst tests/fuzz/fuzz-%.c,$(BUILD)/fuzz/fuzz-%,$(wildcard tests/fuzz/fuzz-*.c))

$(BUILD)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-common.h $(BUILD)/libschedreplay.a
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(BUILD)/libschedreplay.a $(PKG_LIBS) -lm -ldl

fuzz-targets: $(FUZZ_BINS)

deps:
	$(Q)scripts/install-deps.sh

DEMO_TRACE = tests/fixtures/tracedat/numa/numa-6.12-forks
DEMO_PATCHES = -p wake-affine-equal -p exit-sync-mel -p exit-sync-peterz -p kthread-per-cpu \
	       -p nohz-first -p newidle-bail

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)
	./schedreplay info $(DEMO_TRACE).dat
	./schedreplay replay -f -o $(BUILD)/demo.db -m mainline $(DEMO_PATCHES) \
		-t $(DEMO_TRACE).topo $(DEMO_TRACE).dat
	./schedreplay report $(BUILD)/demo.db
	@echo "browse it: ./schedreplay tui $(BUILD)/demo.db"

# make check builds the normal and the sanitizer binaries, then runs every
# test; the bad-input corpus also runs under the sanitizers
check: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 all
	$(Q)tests/run-tests.sh

bench: all
	$(Q)bench/run.sh

fuzz:
	$(Q)tests/fuzz/run.sh $${FUZZ_SECONDS:-600}

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)/reports $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 schedreplay $(DESTDIR)$(BINDIR)/schedreplay
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/*.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 644 $(REPORT_SQL) $(DESTDIR)$(DATADIR)/reports/
	install -m 644 completion/schedreplay.bash $(DESTDIR)$(BASHCOMPDIR)/schedreplay
	install -d $(DESTDIR)$(INCLUDEDIR)/schedreplay $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(DOCDIR)/examples
	install -m 644 $(PAIR_HEADERS) $(DESTDIR)$(INCLUDEDIR)/schedreplay/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e "s|@VERSION@|$$(cat VERSION)|" \
		-e "s|@ABI@|$$(sed -n 's/^#define SR_PATCH_ABI \([0-9]*\)$$/\1/p' include/schedreplay/patch.h)|" \
		include/schedreplay.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/schedreplay.pc
	install -m 644 tests/fixtures/patch-file/wake-wide-double.c $(DESTDIR)$(DOCDIR)/examples/

clean:
	rm -rf build build-san build-fuzz schedreplay

.PHONY: all libs-ok unit fuzz-targets deps demo check bench fuzz install clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
