# mk/remote.mk - remote capture (docs/remote.md):
#   lib/librpd_remote.so  the LD_PRELOAD shim driven by bin/rpdRemote
#   lib/librpdctl.so      the C control API (include/rpd_control.h)
#   tests/libfake_tracer.so, tests/remote_host  stand-ins for tests/tools/remote.sh
# bin/rpdRemote itself is an ordinary tools/ binary.

REMOTE_SO   := $(LIB)/librpd_remote.so
RPDCTL_SO   := $(LIB)/librpdctl.so
FAKE_TRACER := $(TESTBIN)/libfake_tracer.so
REMOTE_HOST := $(TESTBIN)/remote_host

EXTRA_ALL += $(REMOTE_SO) $(RPDCTL_SO) $(FAKE_TRACER) $(REMOTE_HOST)

$(OBJ)/remote/rpdctl.o $(OBJ)/tests/remote_host.o: CFLAGS += -Iinclude
$(OBJ)/remote/rpdctl.o: CFLAGS += -fvisibility=hidden

$(REMOTE_SO): $(OBJ)/remote/rpd_remote.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared $< -lpthread -ldl -o $@

# the common library goes inside, its symbols hidden
$(RPDCTL_SO): $(OBJ)/remote/rpdctl.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared $< $(COMMON_LIB) -Wl,--exclude-libs,ALL $(LDLIBS) -o $@

$(FAKE_TRACER): $(OBJ)/tests/fake_tracer.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared $< $(COMMON_LIB) -Wl,--exclude-libs,ALL $(LDLIBS) -o $@

$(REMOTE_HOST): $(OBJ)/tests/remote_host.o $(RPDCTL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< -L$(LIB) -lrpdctl -Wl,-rpath,$(abspath $(LIB)) -o $@
