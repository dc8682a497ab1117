# mk/fuzz.mk - libFuzzer targets (docs/fuzzing.md).
#
#   make fuzz                 build every fuzz/fuzz_NAME.c, run each for
#                             FUZZ_SECONDS (default 60) on its corpus
#   make fuzz FUZZ_TARGETS="deser trace" FUZZ_SECONDS=300
#   make fuzz-build           only build them ($(OBJ)/fuzz/bin/fuzz_NAME)
#
# Convention: fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput; a first
# line "/* links: rpd-import */" names the tool libraries (the Makefile's
# tool folders) it links besides common/, and adds their folders to the
# include path.  Seeds: fuzz/corpus/NAME/
# (small, committed) plus seeds fuzz/run.sh extracts from ../shared/traces at
# run time; the working corpora and crash artifacts live in $(OBJ)/fuzz/.
# common/ and the linked tool libraries are compiled again with clang
# -fsanitize=fuzzer-no-link,address,undefined into $(OBJ)/fuzz/ (UBSan
# findings abort, as with SANITIZE=1).  Needs clang (Debian
# clang, in `make deps`); without it `make fuzz` says so and the in-test
# slice (tests/tools/fuzz-smoke.sh) skips.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OUT     := $(OBJ)/fuzz
FUZZ_ALL     := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_CFLAGS  := -g -O1 -std=gnu11 $(FUZZ_SAN) $(PKG_CFLAGS) $(COMMON_INC) -Ifuzz -I$(OBJ)
FUZZ_LIB     := $(FUZZ_OUT)/librpdcommon.a
FUZZ_LIBOBJ  := $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(COMMON_SRC)) $(FUZZ_OUT)/obj/views_embed.o
FUZZ_BINS    := $(patsubst %,$(FUZZ_OUT)/bin/fuzz_%,$(FUZZ_ALL))
HAVE_FUZZ_CC := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo 1)

# the in-test slice builds the targets too when clang is there
ifeq ($(HAVE_FUZZ_CC),1)
TEST_EXTRA   += $(FUZZ_BINS)
endif

.PHONY: fuzz fuzz-build

$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_OUT)/obj/views_embed.o: $(OBJ)/views_embed.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIBOBJ)
	rm -f $@ && ar rcs $@ $^

# the clang build of tool $(1)'s library: $(OBJ)/fuzz/obj/FOLDER/libNAME.a
define fuzz_tool_lib_rule
$(call tool_lib,$(FUZZ_OUT)/obj,$(1)): $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(call tool_lib_src,$(TOOLDIR_$(1))))
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach d,$(TOOL_LIB_DIRS),$(eval $(call fuzz_tool_lib_rule,$(notdir $(d)))))

# target $(1) linking tools $(2)
define fuzz_rule
$(call links_check,fuzz/fuzz_$(1).c,$(2))
$(FUZZ_OUT)/bin/fuzz_$(1): fuzz/fuzz_$(1).c $(foreach n,$(2),$(call tool_lib,$(FUZZ_OUT)/obj,$(n))) \
  $(FUZZ_LIB) $(wildcard fuzz/*.h)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(foreach n,$(2),-I$(TOOLDIR_$(n))) -fsanitize=fuzzer \
	  $$(filter %.c %.a,$$^) $(LDLIBS) -o $$@
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_rule,$(t),$(call links_of,fuzz/fuzz_$(t).c))))

fuzz-build: $(FUZZ_BINS)

fuzz:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
	  echo "fuzz: $(FUZZ_CC) not found: run 'make deps' (Debian clang)"; exit 1; }
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_BIN=$(abspath $(FUZZ_OUT)/bin) FUZZ_OUT=$(abspath $(FUZZ_OUT)) \
	  FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh $(FUZZ_TARGETS)
