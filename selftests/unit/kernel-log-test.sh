#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# selftests/vm/check-kernel-log.sh on made-up kernel logs: which reports
# pass as known upstream ones and which fail the run.
dir=$(dirname "$0")/..
check=$dir/vm/check-kernel-log.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# t WANT (pass|fail) WHAT: the log on stdin (t runs in a pipeline's
# subshell: an exit there ends only it, hence the count at the end).
t() {
	cat >"$tmp/log"
	if sh "$check" "$tmp/log" >"$tmp/out"; then got=pass; else got=fail; fi
	[ "$got" = "$1" ] || { cat "$tmp/out"; echo "$2: $got, want $1"; exit 1; }
	echo "$2" >>"$tmp/judged"
}
leak() {
	echo "[ 9.1] unreferenced object 0xffff8c0582d27e40 (size 192): comm \"sh\", pid 3326," \
		"jiffies 4294812423 backtrace: __kmalloc_cache_node_noprof+0x24a/0x2b0 $*"
}
throtl="blk_throtl_init+0x2b/0x140 tg_set_limit+0x2da/0x350 kernfs_fop_write_iter+0x11c/0x200"

printf '[ 1.0] nvme nvme0: 2/0/0 default/read/poll queues\n' | t pass "a quiet log"
{ echo "[ 9.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
  leak "$throtl"; } | t pass "blk-throttle's known leak, shown"
echo "[ 9.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" |
	t fail "a leak counted and never shown"
{ echo "[ 9.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
  leak "$throtl"; } | t fail "two leaks counted, one shown"
leak "gpupath_quota_charge+0x2b/0x140 [gpupath] $throtl" | t fail "gpupath's leak"
leak "kmalloc_trace+0x26/0x90 $throtl" | t fail "blk_throtl_init further down the trace"
leak "nvme_alloc_ns+0x2b/0x140" | t fail "a leak nobody knows"
{ leak "$throtl"; leak "nvme_alloc_ns+0x2b/0x140"; } | t fail "a known leak next to an unknown one"
printf '%s\n' "[ 5.0] WARNING: CPU: 1 PID: 25 at fs/inode.c:1 iput+0x1/0x2" \
	"[ 5.0] Call Trace:" "[ 5.0]  <TASK>" "[ 5.0]  pciehp_unconfigure_device+0x1/0x2" \
	"[ 5.0]  </TASK>" | t pass "pciehp's known lockdep report"
printf '%s\n' "[ 5.0] WARNING: CPU: 1 PID: 25 at kmod/volume.c:1 gpupath_volume_del+0x1/0x2 [gpupath]" \
	"[ 5.0]  pciehp_unconfigure_device+0x1/0x2" "[ 5.0]  </TASK>" |
	t fail "a known report that names gpupath"
n=$(wc -l <"$tmp/judged")
[ "$n" = 10 ] || { echo "$n of 10 logs judged as expected"; exit 1; }
echo "$n kernel logs judged as expected"
