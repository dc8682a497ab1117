# mk/python.mk - the Python package rpdtools (python/, docs/python.md):
#   lib/librptor.so   the raptor engine as a library (raptor/api.h), which
#                     python/rpdtools calls through ctypes
#   make install      also installs the package into $(PYDIR) with the path
#                     of the installed libraries written into it
PYTHON  ?= python3
PYDIR   ?= $(PREFIX)/lib/python3/dist-packages
RPTOR_SO := $(LIB)/librptor.so
PY_SRC  := $(wildcard python/rpdtools/*.py python/rpdtools/*.json)

EXTRA_ALL += $(RPTOR_SO)

# the engine (raptor.h: it never prints) and the API, with the common
# library; no main(), no writers (output.c, xlsx, the report)
RPTOR_OBJ := $(patsubst %,$(OBJ)/raptor/%.o,api options names load zero analyze opmerge)
# and rpd-import's rocprofv3 reader, as bin/raptor (api.c registers it):
# a rocprofv3 database reads as it does on the command line
RPTOR_IMPORT := $(call tool_lib,$(OBJ),rpd-import)
$(OBJ)/raptor/api.o: CFLAGS += -Itools/rpd-import
$(RPTOR_SO): $(RPTOR_OBJ) $(RPTOR_IMPORT) $(COMMON_LIB) mk/python.map mk/python.mk
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared $(RPTOR_OBJ) $(RPTOR_IMPORT) $(COMMON_LIB) \
	  -Wl,--version-script=mk/python.map $(LDLIBS) -o $@

.PHONY: install-python
install: install-python
install-python: all
	install -d $(DESTDIR)$(PYDIR)/rpdtools
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYDIR)/rpdtools/
	printf '# written by make install\nLIBDIR = %s\n' "'$(PREFIX)/lib'" \
	  >$(DESTDIR)$(PYDIR)/rpdtools/_config.py
