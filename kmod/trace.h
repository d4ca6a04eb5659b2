/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM gpupath

#if !defined(_GPUPATH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GPUPATH_TRACE_H

#include <linux/tracepoint.h>

/*
 * One event per I/O: what it asked for and how it was served. A file's I/O
 * names its file system's device and its inode number (ino); a block
 * device's has ino 0.
 */
TRACE_EVENT(gpupath_io,
	    TP_PROTO(u32 provider, dev_t dev, u64 ino, u32 op, u64 dev_offset, u64 len,
		     u32 mode, u32 reason, int ret),
	TP_ARGS(provider, dev, ino, op, dev_offset, len, mode, reason, ret),
	TP_STRUCT__entry(
		__field(u32, provider)
		__field(dev_t, dev)
		__field(u64, ino)
		__field(u32, op)
		__field(u64, dev_offset)
		__field(u64, len)
		__field(u32, mode)
		__field(u32, reason)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->provider = provider;
		__entry->dev = dev;
		__entry->ino = ino;
		__entry->op = op;
		__entry->dev_offset = dev_offset;
		__entry->len = len;
		__entry->mode = mode;
		__entry->reason = reason;
		__entry->ret = ret;
	),
	TP_printk("provider=%u dev=%d:%d ino=%llu op=%s offset=%llu len=%llu mode=%s reason=%u ret=%d",
		  __entry->provider, MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->op == 1 ? "read" : "write", __entry->dev_offset, __entry->len,
		  __print_symbolic(__entry->mode, { 0, "none" }, { 1, "direct" },
				   { 2, "host" }),
		  __entry->reason, __entry->ret)
);

#endif /* _GPUPATH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
