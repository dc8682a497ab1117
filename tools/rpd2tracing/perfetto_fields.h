/* perfetto_fields.h - the field numbers of Perfetto's trace protobuf
 * (perfetto.protos.Trace) that proto.c writes; the subset of the schema is
 * tests/proto/perfetto_trace.proto. */
#ifndef RPD2TRACING_PERFETTO_FIELDS_H
#define RPD2TRACING_PERFETTO_FIELDS_H

/* Trace and TracePacket */
#define F_TRACE_PACKET 1
#define F_PKT_TIMESTAMP 8
#define F_PKT_SEQ_ID 10
#define F_PKT_TRACK_EVENT 11
#define F_PKT_INTERNED 12
#define F_PKT_SEQ_FLAGS 13
#define F_PKT_TRACK_DESC 60
#define F_PKT_CLOCK_SNAPSHOT 6
#define F_PKT_CLOCK_ID 58
#define F_PKT_DEFAULTS 59
/* TracePacketDefaults, TrackEventDefaults, ClockSnapshot and its Clock */
#define F_TPD_CLOCK_ID 58
#define F_TPD_TRACK_EVENT 11
#define F_TED_TRACK_UUID 11
#define F_CS_CLOCKS 1
#define F_CLK_ID 1
#define F_CLK_TIMESTAMP 2
#define F_CLK_INCREMENTAL 3
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
#define F_TD_UUID 1
#define F_TD_NAME 2
#define F_TD_PROCESS 3
#define F_TD_THREAD 4
#define F_TD_PARENT 5
#define F_TD_COUNTER 8
#define F_PD_PID 1
#define F_PD_NAME 6
#define F_THD_PID 1
#define F_THD_TID 2
#define F_THD_NAME 5
/* TrackEvent */
#define F_TE_CATEGORY_IIDS 3
#define F_TE_CATEGORIES 22
#define F_TE_DEBUG_ANN 4
#define F_TE_TYPE 9
#define F_TE_NAME_IID 10
#define F_TE_TRACK_UUID 11
#define F_TE_NAME 23
#define F_TE_COUNTER_VALUE 30
#define F_TE_DOUBLE_COUNTER_VALUE 44
/* flow_ids_old / terminating_flow_ids_old: varints (3 bytes for the op
 * ids of a big trace) where flow_ids (47) / terminating_flow_ids (48) are
 * fixed64 (8 bytes); trace_processor reads the old fields when the new ones
 * are absent (TrackEventParser::MaybeParseTrackEventFlows). */
#define F_TE_FLOW_IDS_OLD 36
#define F_TE_TERMINATING_FLOW_IDS_OLD 42
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define TYPE_COUNTER 4
/* DebugAnnotation */
#define F_DA_NAME_IID 1
#define F_DA_NAME 10
#define F_DA_INT 4
#define F_DA_STRING 6
#define F_DA_STRING_IID 17
/* InternedData and its entries (iid = 1, name/str = 2) */
#define F_ID_CATEGORIES 1
#define F_ID_EVENT_NAMES 2
#define F_ID_ANN_NAMES 3
#define F_ID_ANN_STRINGS 29

#endif
