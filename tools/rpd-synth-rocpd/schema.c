/* schema.c - rpd-synth-rocpd: rocprofv3's rocpd schema as data: the
 * per-guid tables (columns after "id" and "guid") and the derived views,
 * in our own text with rocprofv3's names, columns and declared types. */
#include "synth.h"

#define J "JSONB DEFAULT '{}' NOT NULL"
const tdef rocpd_tables[] = {
  { "rocpd_metadata", "\"tag\" TEXT NOT NULL, \"value\" TEXT NOT NULL" },
  { "rocpd_string", "\"string\" TEXT NOT NULL UNIQUE ON CONFLICT ABORT" },
  { "rocpd_info_node", "\"hash\" BIGINT NOT NULL UNIQUE, \"machine_id\" TEXT NOT NULL UNIQUE,"
    " \"system_name\" TEXT, \"hostname\" TEXT, \"release\" TEXT, \"version\" TEXT,"
    " \"hardware_name\" TEXT, \"domain_name\" TEXT" },
  { "rocpd_info_process", "\"nid\" INTEGER NOT NULL, \"ppid\" INTEGER, \"pid\" INTEGER NOT NULL,"
    " \"init\" BIGINT, \"fini\" BIGINT, \"start\" BIGINT, \"end\" BIGINT, \"command\" TEXT,"
    " \"environment\" " J ", \"extdata\" " J },
  { "rocpd_info_thread", "\"nid\" INTEGER NOT NULL, \"ppid\" INTEGER, \"pid\" INTEGER NOT NULL,"
    " \"tid\" INTEGER NOT NULL, \"name\" TEXT, \"start\" BIGINT, \"end\" BIGINT, \"extdata\" " J },
  { "rocpd_info_agent", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL,"
    " \"type\" TEXT CHECK (\"type\" IN ('CPU', 'GPU')), \"absolute_index\" INTEGER,"
    " \"logical_index\" INTEGER, \"type_index\" INTEGER, \"uuid\" INTEGER, \"name\" TEXT,"
    " \"model_name\" TEXT, \"vendor_name\" TEXT, \"product_name\" TEXT, \"user_name\" TEXT,"
    " \"extdata\" " J },
  { "rocpd_info_queue", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"name\" TEXT,"
    " \"extdata\" " J },
  { "rocpd_info_stream", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"name\" TEXT,"
    " \"extdata\" " J },
  { "rocpd_info_pmc", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"agent_id\" INTEGER,"
    " \"target_arch\" TEXT CHECK (\"target_arch\" IN ('CPU', 'GPU')), \"event_code\" INT,"
    " \"instance_id\" INTEGER, \"name\" TEXT NOT NULL, \"symbol\" TEXT NOT NULL,"
    " \"description\" TEXT, \"long_description\" TEXT DEFAULT '', \"component\" TEXT,"
    " \"units\" TEXT DEFAULT '', \"value_type\" TEXT CHECK (\"value_type\" IN"
    " ('ABS', 'ACCUM', 'RELATIVE')), \"block\" TEXT, \"expression\" TEXT,"
    " \"is_constant\" INTEGER, \"is_derived\" INTEGER, \"extdata\" " J },
  { "rocpd_info_code_object", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL,"
    " \"agent_id\" INTEGER, \"uri\" TEXT, \"load_base\" BIGINT, \"load_size\" BIGINT,"
    " \"load_delta\" BIGINT, \"storage_type\" TEXT CHECK (\"storage_type\" IN"
    " ('FILE', 'MEMORY')), \"extdata\" " J },
  { "rocpd_info_kernel_symbol", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL,"
    " \"code_object_id\" INTEGER NOT NULL, \"kernel_name\" TEXT, \"display_name\" TEXT,"
    " \"kernel_object\" INTEGER, \"kernarg_segment_size\" INTEGER,"
    " \"kernarg_segment_alignment\" INTEGER, \"group_segment_size\" INTEGER,"
    " \"private_segment_size\" INTEGER, \"sgpr_count\" INTEGER, \"arch_vgpr_count\" INTEGER,"
    " \"accum_vgpr_count\" INTEGER, \"extdata\" " J },
  { "rocpd_track", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER, \"tid\" INTEGER,"
    " \"name_id\" INTEGER, \"extdata\" " J },
  { "rocpd_event", "\"category_id\" INTEGER, \"stack_id\" INTEGER, \"parent_stack_id\" INTEGER,"
    " \"correlation_id\" INTEGER, \"call_stack\" " J ", \"line_info\" " J ", \"extdata\" " J },
  { "rocpd_arg", "\"event_id\" INTEGER NOT NULL, \"position\" INTEGER NOT NULL,"
    " \"type\" TEXT NOT NULL, \"name\" TEXT NOT NULL, \"value\" TEXT, \"extdata\" " J },
  { "rocpd_pmc_event", "\"event_id\" INTEGER, \"pmc_id\" INTEGER NOT NULL,"
    " \"value\" REAL DEFAULT 0.0, \"extdata\" JSONB DEFAULT '{}'" },
  { "rocpd_region", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"tid\" INTEGER NOT NULL,"
    " \"start\" BIGINT NOT NULL, \"end\" BIGINT NOT NULL, \"name_id\" INTEGER NOT NULL,"
    " \"event_id\" INTEGER, \"extdata\" " J },
  { "rocpd_sample", "\"track_id\" INTEGER NOT NULL, \"timestamp\" BIGINT NOT NULL,"
    " \"event_id\" INTEGER, \"extdata\" " J },
  { "rocpd_kernel_dispatch", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"tid\" INTEGER,"
    " \"agent_id\" INTEGER NOT NULL, \"kernel_id\" INTEGER NOT NULL,"
    " \"dispatch_id\" INTEGER NOT NULL, \"queue_id\" INTEGER NOT NULL,"
    " \"stream_id\" INTEGER NOT NULL, \"start\" BIGINT NOT NULL, \"end\" BIGINT NOT NULL,"
    " \"private_segment_size\" INTEGER, \"group_segment_size\" INTEGER,"
    " \"workgroup_size_x\" INTEGER NOT NULL, \"workgroup_size_y\" INTEGER NOT NULL,"
    " \"workgroup_size_z\" INTEGER NOT NULL, \"grid_size_x\" INTEGER NOT NULL,"
    " \"grid_size_y\" INTEGER NOT NULL, \"grid_size_z\" INTEGER NOT NULL,"
    " \"region_name_id\" INTEGER, \"event_id\" INTEGER, \"extdata\" " J },
  { "rocpd_memory_copy", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"tid\" INTEGER,"
    " \"start\" BIGINT NOT NULL, \"end\" BIGINT NOT NULL, \"name_id\" INTEGER NOT NULL,"
    " \"dst_agent_id\" INTEGER, \"dst_address\" INTEGER, \"src_agent_id\" INTEGER,"
    " \"src_address\" INTEGER, \"size\" INTEGER NOT NULL, \"queue_id\" INTEGER,"
    " \"stream_id\" INTEGER, \"region_name_id\" INTEGER, \"event_id\" INTEGER,"
    " \"extdata\" " J },
  { "rocpd_memory_allocate", "\"nid\" INTEGER NOT NULL, \"pid\" INTEGER NOT NULL, \"tid\" INTEGER,"
    " \"agent_id\" INTEGER, \"type\" TEXT CHECK (\"type\" IN ('ALLOC', 'FREE', 'REALLOC',"
    " 'RECLAIM')), \"level\" TEXT CHECK (\"level\" IN ('REAL', 'VIRTUAL', 'SCRATCH')),"
    " \"start\" BIGINT NOT NULL, \"end\" BIGINT NOT NULL, \"address\" INTEGER,"
    " \"size\" INTEGER NOT NULL, \"queue_id\" INTEGER, \"stream_id\" INTEGER,"
    " \"event_id\" INTEGER, \"extdata\" " J },
};
#undef J
const int rocpd_ntables = sizeof rocpd_tables / sizeof rocpd_tables[0];

/* Derived views (our text; same names and columns as rocprofv3's). */
const char *const rocpd_views[] = {
  "CREATE VIEW processes AS SELECT N.id AS nid, N.machine_id, N.system_name,"
  " N.hostname, N.release AS system_release, N.version AS system_version, P.guid,"
  " P.ppid, P.pid, P.init, P.start, P.end, P.fini, P.command"
  " FROM rocpd_info_process P JOIN rocpd_info_node N ON N.id = P.nid AND N.guid = P.guid",

  "CREATE VIEW threads AS SELECT N.id AS nid, N.machine_id, N.system_name,"
  " N.hostname, N.release AS system_release, N.version AS system_version, P.guid,"
  " P.ppid, P.pid, T.tid, T.start, T.end, T.name FROM rocpd_info_thread T"
  " JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid"
  " JOIN rocpd_info_node N ON N.id = T.nid AND N.guid = T.guid",

  "CREATE VIEW kernel_symbols AS SELECT KS.id, KS.guid, KS.nid, P.pid,"
  " KS.code_object_id, KS.kernel_name, KS.display_name, KS.kernel_object,"
  " KS.kernarg_segment_size, KS.kernarg_segment_alignment, KS.group_segment_size,"
  " KS.private_segment_size, KS.sgpr_count, KS.arch_vgpr_count, KS.accum_vgpr_count,"
  " json_extract(KS.extdata, '$.size') AS kernel_symbol_size,"
  " json_extract(KS.extdata, '$.kernel_id') AS kernel_id,"
  " json_extract(KS.extdata, '$.kernel_code_entry_byte_offset') AS kernel_code_entry_byte_offset,"
  " json_extract(KS.extdata, '$.formatted_kernel_name') AS formatted_kernel_name,"
  " json_extract(KS.extdata, '$.demangled_kernel_name') AS demangled_kernel_name,"
  " json_extract(KS.extdata, '$.truncated_kernel_name') AS truncated_kernel_name,"
  " json_extract(KS.extdata, '$.kernel_address.handle') AS kernel_address"
  " FROM rocpd_info_kernel_symbol KS"
  " JOIN rocpd_info_process P ON P.id = KS.pid AND P.guid = KS.guid",

  "CREATE VIEW regions AS SELECT R.id, R.guid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, S.string AS name, R.nid, P.pid, T.tid, R.start, R.end,"
  " (R.end - R.start) AS duration, R.event_id, E.stack_id, E.parent_stack_id,"
  " E.correlation_id AS corr_id, E.extdata, E.call_stack, E.line_info"
  " FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  " JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid"
  " JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid"
  " JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid",

  "CREATE VIEW region_args AS SELECT R.id, R.guid, R.nid, P.pid, A.type, A.name,"
  " A.value FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  " JOIN rocpd_arg A ON A.event_id = E.id AND A.guid = R.guid"
  " JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid",

  "CREATE VIEW kernels AS SELECT K.id, K.guid, T.tid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, R.string AS region, S.display_name AS name, K.nid, P.pid,"
  " A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,"
  " A.type_index AS agent_type_index, A.type AS agent_type,"
  " S.code_object_id AS code_object_id, K.kernel_id, K.dispatch_id, K.stream_id,"
  " K.queue_id, Q.name AS queue, ST.name AS stream, K.start, K.end,"
  " (K.end - K.start) AS duration, K.grid_size_x AS grid_x, K.grid_size_y AS grid_y,"
  " K.grid_size_z AS grid_z, K.workgroup_size_x AS workgroup_x,"
  " K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z,"
  " K.group_segment_size AS lds_size, K.private_segment_size AS scratch_size,"
  " S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,"
  " S.group_segment_size AS static_lds_size, S.private_segment_size AS static_scratch_size,"
  " E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id"
  " FROM rocpd_kernel_dispatch K"
  " JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid"
  " JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid"
  " JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid"
  " JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
  " LEFT JOIN rocpd_info_stream ST ON ST.id = K.stream_id AND ST.guid = K.guid"
  " LEFT JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid"
  " JOIN rocpd_info_process P ON P.id = Q.pid AND P.guid = Q.guid"
  " JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid",

  "CREATE VIEW memory_copies AS SELECT M.id, M.guid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, M.nid, P.pid, T.tid, M.start, M.end, (M.end - M.start) AS duration,"
  " S.string AS name, R.string AS region_name, M.stream_id, M.queue_id,"
  " ST.name AS stream_name, Q.name AS queue_name, M.size, DA.name AS dst_device,"
  " DA.absolute_index AS dst_agent_abs_index, DA.logical_index AS dst_agent_log_index,"
  " DA.type_index AS dst_agent_type_index, DA.type AS dst_agent_type, M.dst_address,"
  " SA.name AS src_device, SA.absolute_index AS src_agent_abs_index,"
  " SA.logical_index AS src_agent_log_index, SA.type_index AS src_agent_type_index,"
  " SA.type AS src_agent_type, M.src_address, E.stack_id, E.parent_stack_id,"
  " E.correlation_id AS corr_id FROM rocpd_memory_copy M"
  " JOIN rocpd_string S ON S.id = M.name_id AND S.guid = M.guid"
  " LEFT JOIN rocpd_string R ON R.id = M.region_name_id AND R.guid = M.guid"
  " JOIN rocpd_info_agent DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid"
  " JOIN rocpd_info_agent SA ON SA.id = M.src_agent_id AND SA.guid = M.guid"
  " LEFT JOIN rocpd_info_queue Q ON Q.id = M.queue_id AND Q.guid = M.guid"
  " LEFT JOIN rocpd_info_stream ST ON ST.id = M.stream_id AND ST.guid = M.guid"
  " JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"
  " JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid"
  " JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid",

  "CREATE VIEW memory_allocations AS SELECT M.id, M.guid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, M.nid, P.pid, T.tid, M.start, M.end, (M.end - M.start) AS duration,"
  " M.type, M.level, A.name AS agent_name, A.absolute_index AS agent_abs_index,"
  " A.logical_index AS agent_log_index, A.type_index AS agent_type_index,"
  " A.type AS agent_type, M.address, M.size, M.queue_id, Q.name AS queue_name,"
  " M.stream_id, ST.name AS stream_name, E.stack_id, E.parent_stack_id,"
  " E.correlation_id AS corr_id FROM rocpd_memory_allocate M"
  " LEFT JOIN rocpd_info_agent A ON A.id = M.agent_id AND A.guid = M.guid"
  " LEFT JOIN rocpd_info_queue Q ON Q.id = M.queue_id AND Q.guid = M.guid"
  " LEFT JOIN rocpd_info_stream ST ON ST.id = M.stream_id AND ST.guid = M.guid"
  " JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"
  " JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid"
  " JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid",

  "CREATE VIEW pmc_events AS SELECT PE.id, PE.guid, PE.pmc_id, E.id AS event_id,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, (SELECT display_name FROM rocpd_info_kernel_symbol KS"
  " WHERE KS.id = K.kernel_id AND KS.guid = K.guid) AS name, K.nid, P.pid,"
  " K.dispatch_id, K.start, K.end, (K.end - K.start) AS duration,"
  " PI.name AS counter_name, PE.value AS counter_value FROM rocpd_pmc_event PE"
  " JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid"
  " JOIN rocpd_event E ON E.id = PE.event_id AND E.guid = PE.guid"
  " JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid"
  " JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid",

  "CREATE VIEW code_objects AS SELECT CO.id, CO.guid, CO.nid, P.pid,"
  " A.absolute_index AS agent_abs_index, CO.uri, CO.load_base, CO.load_size,"
  " CO.load_delta, CO.storage_type AS storage_type_str,"
  " json_extract(CO.extdata, '$.size') AS code_object_size,"
  " json_extract(CO.extdata, '$.storage_type') AS storage_type,"
  " json_extract(CO.extdata, '$.memory_base') AS memory_base,"
  " json_extract(CO.extdata, '$.memory_size') AS memory_size"
  " FROM rocpd_info_code_object CO"
  " JOIN rocpd_info_agent A ON A.id = CO.agent_id AND A.guid = CO.guid"
  " JOIN rocpd_info_process P ON P.id = CO.pid AND P.guid = CO.guid",

  "CREATE VIEW pmc_info AS SELECT PI.id, PI.guid, PI.nid, P.pid,"
  " A.absolute_index AS agent_abs_index, PI.is_constant, PI.is_derived, PI.name,"
  " PI.description, PI.block, PI.expression FROM rocpd_info_pmc PI"
  " JOIN rocpd_info_agent A ON A.id = PI.agent_id AND A.guid = PI.guid"
  " JOIN rocpd_info_process P ON P.id = PI.pid AND P.guid = PI.guid",

  "CREATE VIEW events_args AS SELECT E.id AS event_id,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, E.stack_id, E.parent_stack_id, E.correlation_id,"
  " A.position AS arg_position, A.type AS arg_type, A.name AS arg_name,"
  " A.value AS arg_value, E.call_stack, E.line_info, A.extdata"
  " FROM rocpd_event E JOIN rocpd_arg A ON A.event_id = E.id AND A.guid = E.guid",

  "CREATE VIEW stream_args AS SELECT A.id AS argument_id, A.event_id AS event_id,"
  " A.position AS arg_position, A.type AS arg_type, A.value AS arg_value,"
  " json_extract(A.extdata, '$.stream_id') AS stream_id, S.nid, P.pid,"
  " S.name AS stream_name, S.extdata AS extdata FROM rocpd_arg A"
  " JOIN rocpd_info_stream S ON S.id = json_extract(A.extdata, '$.stream_id')"
  " AND S.guid = A.guid JOIN rocpd_info_process P ON P.id = S.pid AND P.guid = S.guid"
  " WHERE A.name = 'stream'",

  "CREATE VIEW scratch_memory AS SELECT M.id, M.guid, M.nid, P.pid,"
  " M.type AS operation, A.name AS agent_name, A.absolute_index AS agent_abs_index,"
  " A.logical_index AS agent_log_index, A.type_index AS agent_type_index,"
  " A.type AS agent_type, M.queue_id, T.tid,"
  " json_extract(M.extdata, '$.flags') AS alloc_flags, M.start, M.end,"
  " (M.end - M.start) AS duration, M.size, M.address, E.correlation_id,"
  " E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, E.extdata AS event_extdata FROM rocpd_memory_allocate M"
  " LEFT JOIN rocpd_info_agent A ON A.id = M.agent_id AND A.guid = M.guid"
  " JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"
  " JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid"
  " JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid"
  " WHERE M.level = 'SCRATCH' ORDER BY M.start",

  "CREATE VIEW counters_collection AS SELECT min(PE.id) AS id, PE.guid,"
  " K.dispatch_id, K.kernel_id, E.id AS event_id, E.correlation_id, E.stack_id,"
  " E.parent_stack_id, P.pid, T.tid, K.agent_id, A.absolute_index AS agent_abs_index,"
  " A.logical_index AS agent_log_index, A.type_index AS agent_type_index,"
  " A.type AS agent_type, K.queue_id, K.grid_size_x AS grid_size_x,"
  " K.grid_size_y AS grid_size_y, K.grid_size_z AS grid_size_z,"
  " (K.grid_size_x * K.grid_size_y * K.grid_size_z) AS grid_size,"
  " S.display_name AS kernel_name, (SELECT string FROM rocpd_string R"
  " WHERE R.id = K.region_name_id AND R.guid = K.guid) AS kernel_region,"
  " K.workgroup_size_x AS workgroup_size_x, K.workgroup_size_y AS workgroup_size_y,"
  " K.workgroup_size_z AS workgroup_size_z,"
  " (K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z) AS workgroup_size,"
  " K.group_segment_size AS lds_block_size, K.private_segment_size AS scratch_size,"
  " S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,"
  " PI.name AS counter_name, PI.symbol AS counter_symbol, PI.component,"
  " PI.description, PI.block, PI.expression, PI.value_type, PI.id AS counter_id,"
  " sum(PE.value) AS value, K.start, K.end, PI.is_constant, PI.is_derived,"
  " (K.end - K.start) AS duration,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, K.nid, E.extdata, S.code_object_id FROM rocpd_pmc_event PE"
  " JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid"
  " JOIN rocpd_event E ON E.id = PE.event_id AND E.guid = PE.guid"
  " JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid"
  " JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid"
  " JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
  " JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid"
  " JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid"
  " GROUP BY PE.guid, K.dispatch_id, PI.name, K.agent_id",

  "CREATE VIEW samples AS SELECT R.id, R.guid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, (SELECT string FROM rocpd_string N WHERE N.id = T.name_id"
  " AND N.guid = T.guid) AS name, T.nid, P.pid, TH.tid, R.timestamp, R.event_id,"
  " E.stack_id AS stack_id, E.parent_stack_id AS parent_stack_id,"
  " E.correlation_id AS corr_id, E.extdata AS extdata, E.call_stack AS call_stack,"
  " E.line_info AS line_info FROM rocpd_sample R"
  " JOIN rocpd_track T ON T.id = R.track_id AND T.guid = R.guid"
  " JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  " JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid"
  " JOIN rocpd_info_thread TH ON TH.id = T.tid AND TH.guid = T.guid",

  "CREATE VIEW sample_regions AS SELECT R.id, R.guid,"
  " (SELECT string FROM rocpd_string C WHERE C.id = E.category_id AND C.guid = E.guid)"
  " AS category, (SELECT string FROM rocpd_string N WHERE N.id = T.name_id"
  " AND N.guid = T.guid) AS name, T.nid, P.pid, TH.tid, R.timestamp AS start,"
  " R.timestamp AS \"END\", (R.timestamp - R.timestamp) AS duration, R.event_id,"
  " E.stack_id AS stack_id, E.parent_stack_id AS parent_stack_id,"
  " E.correlation_id AS corr_id, E.extdata AS extdata, E.call_stack AS call_stack,"
  " E.line_info AS line_info FROM rocpd_sample R"
  " JOIN rocpd_track T ON T.id = R.track_id AND T.guid = R.guid"
  " JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  " JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid"
  " JOIN rocpd_info_thread TH ON TH.id = T.tid AND TH.guid = T.guid",

  "CREATE VIEW regions_and_samples AS SELECT * FROM regions"
  " UNION ALL SELECT * FROM sample_regions",

  "CREATE VIEW top AS SELECT name, count(*) AS total_calls,"
  " sum(duration) / 1000.0 AS total_duration,"
  " (sum(duration) / count(*)) / 1000.0 AS average,"
  " sum(duration) * 100.0 / total_time AS percentage FROM ("
  " SELECT S.display_name AS name, (K.end - K.start) AS duration"
  " FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S"
  " ON S.id = K.kernel_id AND S.guid = K.guid"
  " UNION ALL SELECT N.string, (M.end - M.start) FROM rocpd_memory_copy M"
  " JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid"
  " UNION ALL SELECT N.string, (R.end - R.start) FROM rocpd_region R"
  " JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid)"
  " CROSS JOIN (SELECT sum(e - s) AS total_time FROM ("
  " SELECT end AS e, start AS s FROM rocpd_kernel_dispatch"
  " UNION ALL SELECT end, start FROM rocpd_memory_copy"
  " UNION ALL SELECT end, start FROM rocpd_region))"
  " GROUP BY name ORDER BY total_duration DESC",

  "CREATE VIEW busy AS SELECT A.agent_id, AG.type, GpuTime, WallTime,"
  " GpuTime * 1.0 / WallTime AS Busy FROM ("
  " SELECT agent_id, guid, sum(e - s) AS GpuTime FROM ("
  " SELECT agent_id, guid, end AS e, start AS s FROM rocpd_kernel_dispatch"
  " UNION ALL SELECT dst_agent_id, guid, end, start FROM rocpd_memory_copy)"
  " GROUP BY agent_id, guid) A"
  " JOIN (SELECT max(e) - min(s) AS WallTime FROM ("
  " SELECT end AS e, start AS s FROM rocpd_kernel_dispatch"
  " UNION ALL SELECT end, start FROM rocpd_memory_copy)) W ON 1 = 1"
  " JOIN rocpd_info_agent AG ON AG.id = A.agent_id AND AG.guid = A.guid",

  "CREATE VIEW top_kernels AS SELECT S.display_name AS name,"
  " count(K.kernel_id) AS total_calls, sum(K.end - K.start) / 1000.0 AS total_duration,"
  " (sum(K.end - K.start) / count(K.kernel_id)) / 1000.0 AS average,"
  " sum(K.end - K.start) * 100.0 / (SELECT sum(A.end - A.start) FROM"
  " rocpd_kernel_dispatch A) AS percentage FROM rocpd_kernel_dispatch K"
  " JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
  " GROUP BY name ORDER BY total_duration DESC",
};
const int rocpd_nviews = sizeof rocpd_views / sizeof rocpd_views[0];
