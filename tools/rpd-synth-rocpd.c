/* rpd-synth-rocpd - write a deterministic synthetic rocprofv3 database
 * (rocprofiler-sdk "rocpd" schema, what `rocprofv3` writes by default since
 * ROCm 7) of any size, for tests and benchmarks of rpd-import.
 *
 * One set of per-guid tables per process (rocpd_region_<guid>, ...), the
 * UNION ALL views over them (rocpd_region, ...) and the derived views users
 * query (regions, kernels, ...).  Every table rocprofv3 fills is filled:
 * strings, node, processes, threads, agents, queues, streams, code object,
 * kernel symbols (two of them truncate to the same short name "kentry"),
 * events with args, HIP/HSA/marker/RCCL regions, kernel dispatches, memory
 * copies, allocations, samples, PMC counters and events.  The same options
 * always give the same bytes.  See docs/rpd-synth-rocpd.md. */
static const char usage[] =
"usage: rpd-synth-rocpd [OPTIONS] -o OUT.db\n"
"Write a deterministic synthetic rocprofv3 database (rocpd schema).\n"
"\n"
"  -o, --output FILE   the database to write (temp file, renamed at the end)\n"
"  --seed N            random seed (default 1): same options = same bytes\n"
"  --dispatches N      kernel dispatches per process (default 1000); each\n"
"                      has its hipLaunchKernel region with 4 args; every 8th\n"
"                      an HSA region, every 16th a marker, every 32nd an RCCL\n"
"                      call and a hipMemcpyAsync with its memory copy, every\n"
"                      64th an allocation\n"
"  --guids N           processes, one table set (guid) each (default 1)\n"
"  --force             replace an existing OUT\n"
"  -q, --quiet         no summary line\n"
"  -h, --help          this text\n"
"\n"
"Kernel identity case: dispatch i runs symbol i %% 12 (symbols 0..8 are\n"
"ordinary kernels); i %% 12 = 9 or 10 runs ck_tile kentry A, i %% 12 = 11\n"
"runs kentry B: different full names, the same truncated name 'kentry'.\n"
"Prints one summary line (rows per table) on stdout.\n";

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"

/* ------------------------------------------------------------ schema */

/* The per-guid tables: base name and columns after "id" and "guid" (our
 * own text of rocprofv3's column names and declared types). */
typedef struct tdef {
  const char *name, *cols;
} tdef;

#define J "JSONB DEFAULT '{}' NOT NULL"
static const tdef tables[] = {
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
enum { NTABLES = sizeof tables / sizeof tables[0] };

/* Derived views (our text; same names and columns as rocprofv3's). */
static const char *const derived_views[] = {
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

/* ------------------------------------------------------------ data */

/* Fixed strings of every guid; ids are their index + 1. */
enum { S_HIP_CAT = 1, S_HSA_CAT, S_MARKER_CAT, S_RCCL_CAT, S_KD_CAT, S_COPY_CAT,
       S_ALLOC_CAT, S_LAUNCH, S_MEMCPY, S_HSA_FN, S_RCCL_FN, S_FWD, S_BWD,
       S_H2D, S_D2H, S_TRACK, S_NSTR };
static const char *const strs[S_NSTR] = { NULL,
  "HIP_RUNTIME_API_EXT", "HSA_CORE_API", "MARKER_CORE_API", "RCCL_API",
  "KERNEL_DISPATCH", "MEMORY_COPY", "MEMORY_ALLOCATION", "hipLaunchKernel",
  "hipMemcpyAsync", "hsa_signal_store_screlease", "ncclAllReduce", "forward",
  "backward", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
  "host_sample"
};

/* Kernel symbols: full (demangled) name and rocprofv3's truncated name. */
typedef struct ksym {
  const char *full, *truncated;
  int base_ns;
} ksym;
static const ksym syms[] = {
  { "void gemm_kernel<float, 64>(float*, float const*, float const*, int)", "gemm_kernel", 9000 },
  { "void softmax_warp_forward<float, float, 10>(float*, float const*, int)", "softmax_warp_forward", 2000 },
  { "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, int)", "rms_norm_kernel", 1500 },
  { "void vllm::paged_attention_v1_kernel<c10::BFloat16, 128, 16>(c10::BFloat16*, int)", "paged_attention_v1_kernel", 7000 },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, float*)", "vectorized_elementwise_kernel", 800 },
  { "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI16x16x16x1(int, int)", "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI16x16x16x1", 11000 },
  { "void rotary_embedding_kernel<c10::Half, true>(long const*, c10::Half*, int)", "rotary_embedding_kernel", 1200 },
  { "void reduce_kernel<512, 1>(float*, float const*, int)", "reduce_kernel", 2500 },
  { "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer.kd", 600 },
  { "void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::TileGemmShape<ck_tile::sequence<256, 256, 64> >, float> >(ck_tile::BatchedGemmKernelArgs)", "kentry", 17000 },
  { "void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::TileGemmShape<ck_tile::sequence<128, 128, 32> >, float> >(ck_tile::BatchedGemmKernelArgs)", "kentry", 17400 },
};
enum { NSYMS = sizeof syms / sizeof syms[0], NGPUS = 2 };

/* Symbol index of dispatch i: the identity case (see the usage text). */
static int sym_of(int64_t i)
{
  int s = (int)(i % 12);
  return s <= 8 ? s : (s <= 10 ? 9 : 10);
}

typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r)   /* splitmix64 */
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Table insert statements of the guid being written, by tables[] index. */
enum { T_META, T_STR, T_NODE, T_PROC, T_THREAD, T_AGENT, T_QUEUE, T_STREAM, T_PMC,
       T_CO, T_SYM, T_TRACK, T_EVENT, T_ARG, T_PMCEV, T_REGION, T_SAMPLE, T_KD,
       T_COPY, T_ALLOC };

typedef struct gen {
  sqlite3 *db;
  rng r;
  int64_t dispatches;
  int guids;
  char guid[40], sfx[40];
  sqlite3_stmt *ev, *arg, *region, *kd, *copy, *alloc, *pmcev, *sample;
  int64_t nid, pid, tid[2];
  int64_t corr, n_rows[NTABLES];
} gen;

/* Run SQL with a sticky rc (SQLITE_OK while all went well). */
static int exec(gen *g, int rc, const char *sql)
{
  return rc ? rc : sqlite3_exec(g->db, sql, NULL, NULL, NULL);
}

/* The per-guid table name of tables[t], quoted: caller sqlite3_free()s. */
static char *qt(const gen *g, int t)
{
  return sqlite3_mprintf("\"%w_%w\"", tables[t].name, g->sfx);
}

static int create_tables(gen *g)
{
  int rc = SQLITE_OK;
  for (int t = 0; t < NTABLES && !rc; t++) {
    char *n = qt(g, t);
    char *sql = t == T_META
      ? sqlite3_mprintf("CREATE TABLE %s (\"id\" INTEGER NOT NULL PRIMARY KEY"
                        " AUTOINCREMENT, %s)", n, tables[t].cols)
      : sqlite3_mprintf("CREATE TABLE %s (\"id\" INTEGER NOT NULL PRIMARY KEY"
                        " AUTOINCREMENT, \"guid\" TEXT DEFAULT %Q NOT NULL, %s)",
                        n, g->guid, tables[t].cols);
    rc = exec(g, rc, sql);
    sqlite3_free(sql);
    sqlite3_free(n);
  }
  return rc;
}

/* Prepare "INSERT INTO <table t>(cols) VALUES (?, ...)" with n params. */
static int prep(gen *g, int t, const char *cols, int n, sqlite3_stmt **st)
{
  char q[128] = "";
  for (int i = 0; i < n && 3 * i + 3 < (int)sizeof q; i++)
    strcat(q, i ? ",?" : "?");
  char *tn = qt(g, t);
  char *sql = sqlite3_mprintf("INSERT INTO %s(%s) VALUES (%s)", tn, cols, q);
  int rc = sqlite3_prepare_v2(g->db, sql, -1, st, NULL);
  sqlite3_free(sql);
  sqlite3_free(tn);
  return rc;
}

/* Bind int64 values 1..n and step once (counting a row of table t). */
static int put(gen *g, sqlite3_stmt *st, int t, int n, const int64_t *v)
{
  for (int i = 0; i < n; i++)
    sqlite3_bind_int64(st, i + 1, v[i]);
  int s = sqlite3_step(st);
  sqlite3_reset(st);
  if (s != SQLITE_DONE)
    return s;
  g->n_rows[t]++;
  return SQLITE_OK;
}

/* The fixed rows of one guid: metadata, strings, node, process, threads,
 * agents, queues, streams, pmc counters, code object, symbols, track. */
static int fixed_rows(gen *g, int k)
{
  int rc = SQLITE_OK;
  char *sql;
#define RUN(...) do { sql = sqlite3_mprintf(__VA_ARGS__); rc = exec(g, rc, sql); \
                      sqlite3_free(sql); } while (0)
  char *tn[NTABLES];
  for (int t = 0; t < NTABLES; t++)
    tn[t] = qt(g, t);
  RUN("INSERT INTO %s(tag, value) VALUES ('schema_version', '3'), ('uuid', '_%q'),"
      " ('guid', %Q)", tn[T_META], g->sfx, g->guid);
  for (int s = 1; s < S_NSTR; s++)
    RUN("INSERT INTO %s(id, string) VALUES (%d, %Q)", tn[T_STR], s, strs[s]);
  RUN("INSERT INTO %s(id, hash, machine_id, system_name, hostname, release, version,"
      " hardware_name, domain_name) VALUES (%lld, %lld, 'synth-machine-%d', 'Linux',"
      " 'synth-host', '6.8.0', '#1 SMP', 'x86_64', '(none)')", tn[T_NODE],
      (long long)g->nid, (long long)g->nid, k);
  RUN("INSERT INTO %s(id, nid, ppid, pid, init, fini, start, end, command) VALUES"
      " (%lld, %lld, 1, %lld, %lld, %lld, %lld, %lld, 'python3 synth.py --run %d')",
      tn[T_PROC], (long long)g->pid, (long long)g->nid, (long long)g->pid,
      (long long)(1000000 + g->pid), (long long)(2000000000000LL + g->pid),
      (long long)(1000000 + g->pid), (long long)(2000000000000LL + g->pid), k);
  for (int i = 0; i < 2; i++)
    RUN("INSERT INTO %s(id, nid, ppid, pid, tid, name, start, end) VALUES"
        " (%lld, %lld, 1, %lld, %lld, 'python3', 0, 0)", tn[T_THREAD],
        (long long)g->tid[i], (long long)g->nid, (long long)g->pid,
        (long long)g->tid[i]);
  RUN("INSERT INTO %s(id, nid, pid, type, absolute_index, logical_index, type_index,"
      " uuid, name, model_name, vendor_name, product_name, user_name) VALUES"
      " (0, %lld, %lld, 'CPU', 0, 0, 0, 0, 'Synth CPU', '', 'CPU', 'Synth CPU', 'Synth CPU')",
      tn[T_AGENT], (long long)g->nid, (long long)g->pid);
  for (int i = 0; i < NGPUS; i++) {
    RUN("INSERT INTO %s(id, nid, pid, type, absolute_index, logical_index, type_index,"
        " uuid, name, model_name, vendor_name, product_name, user_name) VALUES"
        " (%d, %lld, %lld, 'GPU', %d, %d, %d, %d, 'gfx942', 'mi300x', 'AMD',"
        " 'AMD Instinct MI300X', 'AMD Instinct MI300X')", tn[T_AGENT], i + 1,
        (long long)g->nid, (long long)g->pid, i + 1, i + 1, i, 1000 + i);
    RUN("INSERT INTO %s(id, nid, pid, name) VALUES (%d, %lld, %lld, 'Queue %d')",
        tn[T_QUEUE], i + 1, (long long)g->nid, (long long)g->pid, i);
    RUN("INSERT INTO %s(id, nid, pid, name) VALUES (%d, %lld, %lld, 'Stream %d')",
        tn[T_STREAM], i + 1, (long long)g->nid, (long long)g->pid, i);
  }
  RUN("INSERT INTO %s(id, nid, pid, name) VALUES (0, %lld, %lld, 'Default Stream')",
      tn[T_STREAM], (long long)g->nid, (long long)g->pid);
  RUN("INSERT INTO %s(id, nid, pid, agent_id, target_arch, event_code, instance_id,"
      " name, symbol, description, component, value_type, block, expression,"
      " is_constant, is_derived) VALUES (1, %lld, %lld, 1, 'GPU', 4, 0, 'SQ_WAVES',"
      " 'SQ_WAVES', 'Waves dispatched', 'sq', 'ABS', 'SQ', '', 0, 0), (2, %lld, %lld,"
      " 1, 'GPU', 0, 0, 'GRBM_COUNT', 'GRBM_COUNT', 'GPU clock cycles', 'grbm', 'ABS',"
      " 'GRBM', '', 0, 0)", tn[T_PMC], (long long)g->nid, (long long)g->pid,
      (long long)g->nid, (long long)g->pid);
  RUN("INSERT INTO %s(id, nid, pid, agent_id, uri, load_base, load_size, load_delta,"
      " storage_type, extdata) VALUES (1, %lld, %lld, 1, 'file:///synth/kernels.hsaco',"
      " 139000000000000, 65536, 0, 'FILE', '{\"size\":88}')", tn[T_CO],
      (long long)g->nid, (long long)g->pid);
  for (int s = 0; s < NSYMS; s++)
    RUN("INSERT INTO %s(id, nid, pid, code_object_id, kernel_name, display_name,"
        " kernel_object, kernarg_segment_size, kernarg_segment_alignment,"
        " group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count,"
        " accum_vgpr_count, extdata) VALUES (%d, %lld, %lld, 1, '_Z%dsynth_kernel_%d.kd',"
        " %Q, %d, 64, 16, %d, 0, 32, 64, 0, json_object('size', 88, 'kernel_id', %d,"
        " 'formatted_kernel_name', %Q, 'demangled_kernel_name', %Q,"
        " 'truncated_kernel_name', %Q))", tn[T_SYM], s + 1, (long long)g->nid,
        (long long)g->pid, s + 1, s + 1, syms[s].full, 139000000001000 + 64 * s,
        (s % 3) * 1024, s + 1, syms[s].full, syms[s].full, syms[s].truncated);
  RUN("INSERT INTO %s(id, nid, pid, tid, name_id) VALUES (1, %lld, %lld, %lld, %d)",
      tn[T_TRACK], (long long)g->nid, (long long)g->pid, (long long)g->tid[0], S_TRACK);
#undef RUN
  for (int t = 0; t < NTABLES; t++)
    sqlite3_free(tn[t]);
  g->n_rows[T_META] += 3;
  g->n_rows[T_STR] += S_NSTR - 1;
  g->n_rows[T_NODE]++;
  g->n_rows[T_PROC]++;
  g->n_rows[T_THREAD] += 2;
  g->n_rows[T_AGENT] += 1 + NGPUS;
  g->n_rows[T_QUEUE] += NGPUS;
  g->n_rows[T_STREAM] += 1 + NGPUS;
  g->n_rows[T_PMC] += 2;
  g->n_rows[T_CO]++;
  g->n_rows[T_SYM] += NSYMS;
  g->n_rows[T_TRACK]++;
  return rc;
}

static int prepare_guid(gen *g)
{
  int rc = prep(g, T_EVENT, "category_id, stack_id, parent_stack_id, correlation_id",
                4, &g->ev);
  if (!rc)
    rc = prep(g, T_ARG, "event_id, position, type, name, value", 5, &g->arg);
  if (!rc)
    rc = prep(g, T_REGION, "nid, pid, tid, start, end, name_id, event_id", 7, &g->region);
  if (!rc)
    rc = prep(g, T_KD, "nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,"
              " stream_id, start, end, private_segment_size, group_segment_size,"
              " workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x,"
              " grid_size_y, grid_size_z, region_name_id, event_id", 20, &g->kd);
  if (!rc)
    rc = prep(g, T_COPY, "nid, pid, tid, start, end, name_id, dst_agent_id, dst_address,"
              " src_agent_id, src_address, size, queue_id, stream_id, region_name_id,"
              " event_id", 15, &g->copy);
  if (!rc)
    rc = prep(g, T_ALLOC, "nid, pid, tid, agent_id, start, end, address, size,"
              " queue_id, stream_id, event_id, type, level", 13, &g->alloc);
  if (!rc)
    rc = prep(g, T_PMCEV, "event_id, pmc_id, value", 3, &g->pmcev);
  if (!rc)
    rc = prep(g, T_SAMPLE, "track_id, timestamp, event_id", 3, &g->sample);
  return rc;
}

static void finalize_guid(gen *g)
{
  sqlite3_stmt **v[] = { &g->ev, &g->arg, &g->region, &g->kd, &g->copy, &g->alloc,
                         &g->pmcev, &g->sample };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    sqlite3_finalize(*v[i]);
    *v[i] = NULL;
  }
}

/* An event row; returns its id in *id. */
static int event(gen *g, int cat, int64_t stack, int64_t *id)
{
  int64_t v[4] = { cat, stack, 0, 0 };
  int rc = put(g, g->ev, T_EVENT, 4, v);
  *id = sqlite3_last_insert_rowid(g->db);
  return rc;
}

/* One argument row of event ev. */
static int arg(gen *g, int64_t ev, int pos, const char *type, const char *name,
               const char *value)
{
  sqlite3_bind_int64(g->arg, 1, ev);
  sqlite3_bind_int(g->arg, 2, pos);
  sqlite3_bind_text(g->arg, 3, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(g->arg, 4, name, -1, SQLITE_STATIC);
  sqlite3_bind_text(g->arg, 5, value, -1, SQLITE_TRANSIENT);
  return put(g, g->arg, T_ARG, 0, NULL);
}

/* A region (category cat, name) of thread tid over [start, end] with nargs
 * args; *corr_out = its correlation (stack) id. */
static int region(gen *g, int cat, int name, int64_t tid, int64_t start, int64_t end,
                  int nargs, int64_t *corr_out)
{
  static const char *const an[] = { "stream", "function_address", "numBlocks", "sharedMemBytes" };
  static const char *const at[] = { "hipStream_t", "void const*", "dim3", "unsigned int" };
  int64_t ev, corr = ++g->corr;
  int rc = event(g, cat, corr, &ev);
  for (int a = 0; a < nargs && !rc; a++) {
    char val[48];
    snprintf(val, sizeof val, a == 2 ? "{%" PRIu64 ", 1, 1}" : "0x%" PRIx64,
             (uint64_t)(rng_next(&g->r) % (a == 2 ? 4096u : UINT64_C(0x7fffffffffff))));
    rc = arg(g, ev, a, at[a], an[a], val);
  }
  int64_t v[7] = { g->nid, g->pid, tid, start, end, name, ev };
  if (!rc)
    rc = put(g, g->region, T_REGION, 7, v);
  *corr_out = corr;
  return rc;
}

/* Dispatch i of the guid (host time base t0) and what comes with it. */
static int step(gen *g, int64_t i, int64_t t0)
{
  int64_t h = t0 + i * 10000, tid = g->tid[i % 2], corr, ev;
  int gpu = (int)(i % NGPUS), s = sym_of(i);
  int rc = region(g, S_HIP_CAT, S_LAUNCH, tid, h, h + 3000, 4, &corr);
  int64_t start = h + 5000, dur = syms[s].base_ns + (int64_t)(rng_next(&g->r) % 500);
  if (!rc)
    rc = event(g, S_KD_CAT, corr, &ev);
  int64_t kd[20] = { g->nid, g->pid, tid, gpu + 1, s + 1, i + 1, gpu + 1, gpu + 1,
                     start, start + dur, 0, (s % 3) * 1024, 256, 1, 1,
                     4096 * (1 + s % 4), 1, 1, S_LAUNCH, ev };
  if (!rc)
    rc = put(g, g->kd, T_KD, 20, kd);
  for (int p = 1; p <= 2 && !rc && i % 4 == 0; p++) {
    int64_t pv[2] = { ev, p };
    sqlite3_bind_double(g->pmcev, 3, p == 1 ? 64.0 * (1 + s) : (double)dur * 2.1);
    rc = put(g, g->pmcev, T_PMCEV, 2, pv);
  }
  if (!rc && i % 8 == 0)
    rc = region(g, S_HSA_CAT, S_HSA_FN, tid, h + 3100, h + 3400, 2, &corr);
  if (!rc && i % 16 == 0)
    rc = region(g, S_MARKER_CAT, (i / 16) % 2 ? S_BWD : S_FWD, tid, h, h + 9000, 0, &corr);
  if (!rc && i % 32 == 0)
    rc = region(g, S_RCCL_CAT, S_RCCL_FN, tid, h + 3500, h + 4500, 3, &corr);
  if (!rc && i % 32 == 16) {
    int h2d = (i / 32) % 2 == 0;
    rc = region(g, S_HIP_CAT, S_MEMCPY, tid, h + 3500, h + 4000, 3, &corr);
    if (!rc)
      rc = event(g, S_COPY_CAT, corr, &ev);
    int64_t cv[15] = { g->nid, g->pid, tid, h + 4100, h + 4900, h2d ? S_H2D : S_D2H,
                       h2d ? gpu + 1 : 0, 0x7f0000000000 + i, h2d ? 0 : gpu + 1,
                       0x7e0000000000 + i, 1 << (12 + i % 8), gpu + 1, gpu + 1,
                       S_MEMCPY, ev };
    if (!rc)
      rc = put(g, g->copy, T_COPY, 15, cv);
  }
  if (!rc && i % 64 == 0) {
    rc = event(g, S_ALLOC_CAT, 0, &ev);
    int64_t av[11] = { g->nid, g->pid, tid, gpu + 1, h + 100, h + 200,
                       0x7d0000000000 + i, 1 << 20, gpu + 1, gpu + 1, ev };
    sqlite3_bind_text(g->alloc, 12, "ALLOC", -1, SQLITE_STATIC);
    sqlite3_bind_text(g->alloc, 13, "REAL", -1, SQLITE_STATIC);
    if (!rc)
      rc = put(g, g->alloc, T_ALLOC, 11, av);
  }
  if (!rc && i % 16 == 8) {
    rc = event(g, S_HIP_CAT, 0, &ev);
    int64_t sv[3] = { 1, h + 50, ev };
    if (!rc)
      rc = put(g, g->sample, T_SAMPLE, 3, sv);
  }
  return rc;
}

/* The guid of process k: a fixed pattern from the seed (uuid text form). */
static void make_guid(gen *g, uint64_t seed, int k)
{
  rng r = { seed * 1000003u + (uint64_t)k };
  uint64_t a = rng_next(&r), b = rng_next(&r);
  snprintf(g->guid, sizeof g->guid, "%08x-%04x-%04x-%04x-%012" PRIx64,
           (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xffff,
           (unsigned)(b >> 48), (uint64_t)(b & UINT64_C(0xffffffffffff)));
  for (size_t i = 0; i <= strlen(g->guid); i++)
    g->sfx[i] = g->guid[i] == '-' ? '_' : g->guid[i];
}

static int write_guid(gen *g, uint64_t seed, int k)
{
  make_guid(g, seed, k);
  g->nid = 1966000000 + k;
  g->pid = 4000 + k;
  g->tid[0] = g->pid;
  g->tid[1] = g->pid + 7;
  g->corr = 0;
  int rc = create_tables(g);
  if (!rc)
    rc = fixed_rows(g, k);
  if (!rc)
    rc = prepare_guid(g);
  /* runs back to back in time, as a longer capture would be */
  int64_t t0 = 1000000000000LL + (int64_t)k * (g->dispatches * 10000 + 1000000);
  for (int64_t i = 0; i < g->dispatches && !rc; i++)
    rc = step(g, i, t0);
  finalize_guid(g);
  return rc;
}

/* The UNION ALL views over every guid's tables, then the derived views. */
static int create_views(gen *g, uint64_t seed)
{
  int rc = SQLITE_OK;
  for (int t = 0; t < NTABLES && !rc; t++) {
    rpd_buf b = {0};
    rpd_buf_printf(&b, "CREATE VIEW \"%s\" AS ", tables[t].name);
    for (int k = 0; k < g->guids; k++) {
      make_guid(g, seed, k);
      char *n = qt(g, t);
      rpd_buf_printf(&b, "%sSELECT * FROM %s", k ? " UNION ALL " : "", n);
      sqlite3_free(n);
    }
    rc = exec(g, rc, b.s);
    rpd_buf_free(&b);
  }
  for (size_t v = 0; v < sizeof derived_views / sizeof derived_views[0]; v++)
    rc = exec(g, rc, derived_views[v]);
  return rc;
}

/* ------------------------------------------------------------ main */

static int parse_num(const char *opt, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
  char *end;
  if (!v)
    return rpd_usage_error("%s needs a value", opt);
  long long n = strtoll(v, &end, 10);
  if (end == v || *end || n < lo || n > hi)
    return rpd_usage_error("%s: '%s' is not a number in %lld..%lld", opt, v,
                           (long long)lo, (long long)hi);
  *out = n;
  return 0;
}

int main(int argc, char **argv)
{
  static gen g;
  const char *out = NULL;
  int64_t seed = 1, disp = 1000, guids = 1;
  int force = 0, quiet = 0, rc = 0;
  rpd_outfile of = {0};

  if (rpd_cli_init(argc, argv, usage))
    return 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (!v)
        return rpd_usage_error("%s needs a file", a);
      out = v; i++;
    } else if (!strcmp(a, "--seed")) {
      rc = parse_num(a, v, 0, INT64_MAX / 2, &seed); i++;
    } else if (!strcmp(a, "--dispatches")) {
      rc = parse_num(a, v, 1, INT64_C(100000000), &disp); i++;
    } else if (!strcmp(a, "--guids")) {
      rc = parse_num(a, v, 1, 64, &guids); i++;
    } else if (!strcmp(a, "--force"))
      force = 1;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
      quiet = 1;
    else
      return rpd_usage_error("unknown argument '%s'", a);
  }
  if (rc)
    return rc;
  if (!out)
    return rpd_usage_error("need -o OUT.db");
  if (rpd_output_check(out, NULL, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!force && !access(out, F_OK))
    return rpd_fail("'%s' exists; use --force to replace it", out);
  if (rpd_outfile_begin(&of, out, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  fclose(of.fp);
  of.fp = NULL;

  g.r.s = (uint64_t)seed;
  g.dispatches = disp;
  g.guids = (int)guids;
  rc = sqlite3_open_v2(of.tmp, &g.db, SQLITE_OPEN_READWRITE, NULL);
  rc = exec(&g, rc, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
            " PRAGMA cache_size = -32768; BEGIN");
  for (int k = 0; k < g.guids && !rc; k++)
    rc = write_guid(&g, (uint64_t)seed, k);
  if (!rc)
    rc = create_views(&g, (uint64_t)seed);
  rc = exec(&g, rc, "COMMIT");
  if (rc)
    rpd_fail("cannot write '%s': %s", out, g.db ? sqlite3_errmsg(g.db) : "out of memory");
  if (sqlite3_close(g.db) != SQLITE_OK && !rc)
    rc = rpd_fail("cannot close '%s'", out);
  if (!rc && rpd_outfile_commit(&of))
    rc = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (rc) {
    rpd_outfile_abort(&of);
    return 1;
  }
  if (!quiet) {
    printf("rpd-synth-rocpd: wrote %s (seed %" PRId64 ", %d guid%s):", out, seed,
           g.guids, g.guids > 1 ? "s" : "");
    static const int shown[] = { T_EVENT, T_ARG, T_REGION, T_KD, T_COPY, T_ALLOC,
                                 T_PMCEV, T_SAMPLE, T_SYM };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
      printf("%s %s %" PRId64, i ? "," : "", tables[shown[i]].name + 6,
             g.n_rows[shown[i]]);
    printf("\n");
    if (rpd_finish_stdout())
      return rpd_fail("%s", rpd_errmsg());
  }
  return 0;
}
