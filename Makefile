# rpdtools - plain make.  See README.md.
#
#   make                 build bin/ and lib/
#   make test            unit + tool tests (ends with "N passed, N failed")
#   make test SANITIZE=1 the same under ASan+UBSan (objects in build/san/)
#   make demo            deps, build, sample trace, run the suite, show results
#   make bench           throughput and peak RSS on generated traces
#   make install PREFIX=/usr/local
#   make deps            install the Debian -dev packages if pkg-config lacks them
#
# Files are discovered: common/LAYER/*.c (and their subfolders) -> lib/librpdcommon.a; views/*.sql are
# embedded into it; augment/*.c and tools/*.c -> one binary each in bin/ (a folder
# augment/NAME/*.c or tools/NAME/*.c -> bin/NAME); raptor/ -> bin/raptor.
# A tool folder is a static library plus a small main: every .c of the folder (and its
# subfolders) except the one holding main() -- main.c, or NAME.c (raptor/raptor.c) --
# goes into obj/FOLDER/libNAME.a, and bin/NAME = main's object + libNAME.a + librpdcommon.a.
# tests/unit/test_*.c -> cmocka test programs; one whose first line is
# "/* links: NAME ... */" also links those tools' libraries (and sees their headers);
# so does a tool folder's main (raptor/raptor.c links rpd-import's rocprofv3 reader).
# Extra rules (shared libraries, ...) live in mk/*.mk.

CC       ?= gcc
PREFIX   ?= /usr/local
PKGS     := sqlite3 zlib libpcre2-8 yajl xlsxwriter
TESTPKGS := cmocka
DEBPKGS  := libsqlite3-dev zlib1g-dev libpcre2-dev libyajl-dev libxlsxwriter-dev \
            libcmocka-dev sqlite3 pkg-config
# optional: headless browser for the HTML page tests, openpyxl and pandas for
# the xlsx/CSV reader tests, clang (libFuzzer) for make fuzz, protoc for the
# protobuf checks, the Python package's runtime and tests (docs/python.md),
# LibreOffice + poppler to render the workbooks to PDF/PNG (tests/tools/reports.sh)
# (mk/*.mk add more: OPTPKGS the packages, OPTCMDS the commands they give)
OPTPKGS  := chromium python3-openpyxl python3-pandas python3-pytest python3-cffi clang protobuf-compiler \
            libreoffice-calc-nogui poppler-utils
OPTCMDS  := chromium clang protoc

ifeq ($(SANITIZE),1)
O        ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
O        ?= .
SANFLAGS :=
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

CFLAGS   ?= -O2 -g
# common/ is layered (docs/architecture.md): util, trace, out, analysis, cli;
# each folder is on the include path so that "rpd.h", "opt.h" stay the names
COMMON_LAYERS := util trace out analysis cli
COMMON_INC := -Icommon $(addprefix -Icommon/,$(COMMON_LAYERS))
CFLAGS   += -Wall -Wextra -std=gnu11 -fPIC $(SANFLAGS) $(PKG_CFLAGS) $(COMMON_INC) -I$(O)/obj
LDFLAGS  += $(SANFLAGS)
LDLIBS   := $(PKG_LIBS) -lm -lpthread -ldl

BIN := $(O)/bin
LIB := $(O)/lib
OBJ := $(O)/obj
TESTBIN := $(OBJ)/testbin

COMMON_SRC := $(wildcard $(foreach l,$(COMMON_LAYERS),common/$(l)/*.c common/$(l)/*/*.c))
COMMON_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(COMMON_SRC)) $(OBJ)/views_embed.o
COMMON_LIB := $(LIB)/librpdcommon.a
# the installed API: rpd.h and the headers it includes (it must compile
# alone against them; tests/tools/install.sh builds a program with it)
PUBLIC_HEADERS := common/rpd.h common/trace/progress.h
VIEWS      := $(sort $(wildcard views/*.sql))

AUG_SRC    := $(wildcard augment/*.c)
TOOL_SRC   := $(wildcard tools/*.c)
# a tool that grew into a folder: tools/NAME/*.c -> bin/NAME
TOOL_DIRS  := $(patsubst %/,%,$(dir $(wildcard tools/*/*.c)))
TOOL_DIR_BINS := $(patsubst tools/%,$(BIN)/%,$(sort $(TOOL_DIRS)))
# an augmenter that grew into a folder: augment/NAME/*.c -> bin/NAME
AUG_DIRS   := $(patsubst %/,%,$(dir $(wildcard augment/*/*.c)))
AUG_DIR_BINS := $(patsubst augment/%,$(BIN)/%,$(sort $(AUG_DIRS)))
SINGLE_BINS := $(patsubst augment/%.c,$(BIN)/%,$(AUG_SRC)) \
               $(patsubst tools/%.c,$(BIN)/%,$(TOOL_SRC)) $(TOOL_DIR_BINS) \
               $(AUG_DIR_BINS)
RAPTOR_BIN := $(if $(wildcard raptor/*.c),$(BIN)/raptor)

# Tool folders: a static library plus a small main (so unit tests and fuzzers
# link a tool's code directly).  TOOLDIR_NAME is the folder of tool NAME.
TOOL_LIB_DIRS := $(sort $(TOOL_DIRS) $(AUG_DIRS)) $(if $(RAPTOR_BIN),raptor)
# raptor/api.c is the library API: only lib/librptor.so (mk/python.mk) links it
TOOL_LIB_SKIP := raptor/api.c
$(foreach d,$(TOOL_LIB_DIRS),$(eval TOOLDIR_$(notdir $(d)) := $(d)))
# the source holding main() of folder $(1): main.c, else NAME.c
tool_main = $(firstword $(wildcard $(1)/main.c $(1)/$(notdir $(1)).c))
# the library's sources of folder $(1): every other .c, subfolders included
tool_lib_src = $(filter-out $(call tool_main,$(1)) $(TOOL_LIB_SKIP),$(sort $(wildcard $(1)/*.c $(1)/*/*.c)))
# the static library of tool $(2) under the object root $(1)
tool_lib = $(1)/$(TOOLDIR_$(2))/lib$(2).a
# the tools named by the first line "/* links: NAME ... */" of file $(1)
links_of = $(strip $(shell sed -n '1s|^/\* *links:\(.*\)\*/.*|\1|p' $(1)))
# check that every tool named in $(2) (by file $(1)) is a tool folder
links_check = $(foreach n,$(2),$(if $(TOOLDIR_$(n)),,$(error $(1): links: '$(n)' is not a tool folder ($(notdir $(TOOL_LIB_DIRS))))))

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(TESTBIN)/%,$(UNIT_SRC))

# Extra targets from mk/*.mk add themselves to EXTRA_ALL (built by `all`) or
# TEST_EXTRA (built by test-run).
EXTRA_ALL :=
TEST_EXTRA :=
-include $(wildcard mk/*.mk)

.PHONY: all test test-run demo bench install clean deps check-deps
.DEFAULT_GOAL := all
# keep objects built through chained pattern rules
.SECONDARY:

all: check-deps $(COMMON_LIB) $(SINGLE_BINS) $(RAPTOR_BIN) $(EXTRA_ALL)

check-deps:
	@pkg-config --exists $(PKGS) || { \
	  echo "rpdtools: missing libraries ($(PKGS)); run 'make deps'"; exit 1; }

deps:
	@if pkg-config --exists $(PKGS) $(TESTPKGS) && command -v sqlite3 >/dev/null; then have=1; else have=0; fi; \
	opt=1; for c in $(OPTCMDS); do command -v $$c >/dev/null || opt=0; done; \
	/usr/bin/python3 -c 'import openpyxl, pandas, pytest' 2>/dev/null || opt=0; \
	if [ $$have = 1 ] && [ $$opt = 1 ]; then \
	  echo "deps: all present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "deps: apt-get install $(DEBPKGS) $(OPTPKGS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBPKGS) $(OPTPKGS) >/dev/null \
	  || { [ $$have = 1 ] && echo "deps: could not install $(OPTPKGS); its tests are skipped"; } \
	  || exit 1; \
	elif [ $$have = 1 ]; then \
	  echo "deps: optional $(OPTPKGS) missing (their tests are skipped); as root: apt-get install $(OPTPKGS)"; \
	else \
	  echo "deps: missing packages; run as root:"; \
	  echo "  apt-get install $(DEBPKGS) $(OPTPKGS)"; exit 1; \
	fi

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/views_embed.c: $(VIEWS) common/trace/embed_views.sh
	@mkdir -p $(dir $@)
	sh common/trace/embed_views.sh $(VIEWS) > $@.tmp && mv $@.tmp $@

$(OBJ)/views_embed.o: $(OBJ)/views_embed.c
	$(CC) $(CFLAGS) -c $< -o $@

$(COMMON_LIB): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/%: $(OBJ)/augment/%.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(COMMON_LIB) $(LDLIBS) -o $@

$(BIN)/%: $(OBJ)/tools/%.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(COMMON_LIB) $(LDLIBS) -o $@

# a one-file tool or augmenter whose first line is "/* links: NAME ... */"
# (tools/rpd-health.c): also those tools' libraries and header folders
define single_links_rule
$(call links_check,$(1),$(2))
$(BIN)/$(basename $(notdir $(1))): $(OBJ)/$(1:.c=.o) $(foreach n,$(2),$(call tool_lib,$(OBJ),$(n))) $(COMMON_LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$^ $$(LDLIBS) -o $$@
$(OBJ)/$(1:.c=.o): CFLAGS += $(foreach n,$(2),-I$(TOOLDIR_$(n)))
endef
$(foreach t,$(TOOL_SRC) $(AUG_SRC),$(if $(call links_of,$(t)),\
  $(eval $(call single_links_rule,$(t),$(call links_of,$(t))))))

# folder $(1) (tool $(notdir $(1))): its library, and the binary from main + library.
# The archive is always written afresh: members may share a base name
# (raptor/options.o, raptor/report/options.o), which `ar r` on an old one would replace.
define tool_dir_rule
$(call tool_lib,$(OBJ),$(notdir $(1))): $(patsubst %.c,$(OBJ)/%.o,$(call tool_lib_src,$(1)))
	rm -f $$@ && ar rcs $$@ $$^
$(BIN)/$(notdir $(1)): $(patsubst %.c,$(OBJ)/%.o,$(call tool_main,$(1))) \
  $(call tool_lib,$(OBJ),$(notdir $(1))) \
  $(foreach n,$(call links_of,$(call tool_main,$(1))),$(call tool_lib,$(OBJ),$(n))) $(COMMON_LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$^ $$(LDLIBS) -o $$@
$(call links_check,$(call tool_main,$(1)),$(call links_of,$(call tool_main,$(1))))
$(patsubst %.c,$(OBJ)/%.o,$(call tool_main,$(1))): \
  CFLAGS += $(foreach n,$(call links_of,$(call tool_main,$(1))),-I$(TOOLDIR_$(n)))
endef
$(foreach d,$(TOOL_LIB_DIRS),$(eval $(call tool_dir_rule,$(d))))

$(TESTBIN)/%: $(OBJ)/tests/unit/%.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(COMMON_LIB) $(LDLIBS) $(CMOCKA_LIBS) -o $@

# a unit test that links tools $(2): their libraries and header folders
define unit_links_rule
$(call links_check,tests/unit/$(1).c,$(2))
$(TESTBIN)/$(1): $(OBJ)/tests/unit/$(1).o $(foreach n,$(2),$(call tool_lib,$(OBJ),$(n))) $(COMMON_LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$^ $$(LDLIBS) $$(CMOCKA_LIBS) -o $$@
$(OBJ)/tests/unit/$(1).o: CFLAGS += $(foreach n,$(2),-I$(TOOLDIR_$(n)))
endef
$(foreach t,$(UNIT_SRC),$(if $(call links_of,$(t)),\
  $(eval $(call unit_links_rule,$(basename $(notdir $(t))),$(call links_of,$(t))))))

test: deps
	@$(MAKE) --no-print-directory test-run

test-run: all $(UNIT_BINS) $(TEST_EXTRA)
	@RPD_BIN=$(abspath $(BIN)) RPD_LIB=$(abspath $(LIB)) RPD_TESTBIN=$(abspath $(TESTBIN)) \
	  RPD_TESTOUT=$(abspath $(OBJ)/testout) RPD_FUZZBIN=$(abspath $(OBJ)/fuzz/bin) \
	  RPD_SANFLAGS='$(SANFLAGS)' sh tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@RPD_BIN=$(abspath $(BIN)) RPD_LIB=$(abspath $(LIB)) sh tests/demo.sh

bench: all
	@RPD_BIN=$(abspath $(BIN)) RPD_LIB=$(abspath $(LIB)) sh tests/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/rpdtools/views
	install -m 755 $(wildcard $(BIN)/*) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard $(LIB)/*) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(PUBLIC_HEADERS) $(wildcard include/*.h) $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(VIEWS) $(DESTDIR)$(PREFIX)/share/rpdtools/views/

clean:
	rm -rf bin lib obj tests/out build demo

-include $(shell find $(OBJ) -name '*.d' -type f 2>/dev/null)
