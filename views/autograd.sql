-- autograd.sql - views joining ext_callstack to ext_autogradapi and
-- rocpd_kernelapi (rpd-autograd).  Texts as the reference rocpd.autograd
-- creates them.  autogradKernel: gpu time per (operator, kernel, sizes).
-- By hand, on a trace with both tables:  sqlite3 trace.rpd < views/autograd.sql
CREATE VIEW IF NOT EXISTS _callstack_autograd_kernel as select A.*, B.sizes, B.autogradname_id, C.kernelname_id from ext_callstack A left join ext_autogradapi B on B.api_ptr_id = A.parent_id left join rocpd_kernelapi C on C.api_ptr_id = A.child_id;
CREATE VIEW IF NOT EXISTS _callstack_autograd_kernel_exclusive as select * from _callstack_autograd_kernel where depth=1 and kernelName_id not null;
CREATE VIEW IF NOT EXISTS _autogradKernel as select autogradName_id, kernelName_id, sizes, count(*) as calls, avg(gpu_time) as avg_gpu, sum(gpu_time) as total_gpu from _callstack_autograd_kernel_exclusive group by autogradName_id, kernelName_id, sizes;
CREATE VIEW IF NOT EXISTS autogradKernel as select B.string as autogradName, C.string as kernelName, sizes, calls, avg_gpu, total_gpu from _autogradKernel A join rocpd_string B on B.id = A.autogradName_id join rocpd_string C on C.id = A.kernelName_id;
