# mk/tracing.mk - json_check, the trace-event JSON validator/counter used by
# tests/tools/rpd2tracing.sh (yajl parses the whole output).
$(TESTBIN)/json_check: $(OBJ)/tests/json_check.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LDLIBS) -o $@

EXTRA_ALL += $(TESTBIN)/json_check

# proto_check, the Perfetto protobuf reader of the same tests.
$(TESTBIN)/proto_check: $(OBJ)/tests/proto_check.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LDLIBS) -o $@

EXTRA_ALL += $(TESTBIN)/proto_check
