-- opClass: the ONE classification of GPU ops by their opType string
-- (docs/schema.md "Op classes").  Every tool reads it: C code runs the
-- SELECT below through rpd_opclass_load (common/opclass.h), the views busy,
-- top and ktop join it.  class is one of
--   kernel   a kernel ran: KernelExecution (rpd_tracer v2/v3, rpd-import),
--            Task (kernels replayed by a HIP graph), NativeKernel,
--            KERNEL_DISPATCH / DispatchKernel (rocprofv3 names)
--   copy     memory moved or set by the GPU: Copy* (CopyHostToDevice,
--            CopyDeviceToHost2D, ...), FillBuffer, FillImage, Memcpy*,
--            Memset*, MEMORY_COPY*, MemoryCopy*
--   barrier  ordering only: Barrier*, Marker*, MarkerWait
--   other    anything else (MapBuffer, UnmapMemObject, unknown types)
-- GPU work (busy time, idle, the report's timeline) = kernel + copy.
DROP VIEW IF EXISTS opClass;
CREATE VIEW opClass AS SELECT id AS opType_id, string AS opType,
  CASE
    WHEN string IN ('KernelExecution', 'Task', 'NativeKernel',
                    'KERNEL_DISPATCH', 'DispatchKernel') THEN 'kernel'
    WHEN string GLOB 'Copy*' OR string GLOB 'Memcpy*' OR string GLOB 'Memset*'
      OR string GLOB 'MEMORY_COPY*' OR string GLOB 'MemoryCopy*'
      OR string GLOB 'MEMORY_SET*' OR string IN ('FillBuffer', 'FillImage')
      THEN 'copy'
    WHEN string GLOB 'Barrier*' OR string GLOB 'Marker*'
      OR string GLOB 'BARRIER*' OR string GLOB 'MARKER*' THEN 'barrier'
    ELSE 'other'
  END AS class
  FROM rocpd_string WHERE id IN (SELECT opType_id FROM rocpd_op);
