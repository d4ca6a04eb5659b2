# SPDX-License-Identifier: GPL-2.0
# CUDA buffers (GPUPATH_IOC_REG_CUDA) against nvfake, a test double of the
# NVIDIA driver's peer-memory API (selftests/vm/nvfake), written from
# NVIDIA's open kernel modules: it binds to the ivshmem "GPU" and hands out
# 64 KiB pages of its BAR2 as "CUDA memory". It is not the NVIDIA driver.
#
#   root port -- switch --+-- ivshmem "GPU", BAR2 64 MiB (bar.img) <- nvfake
#                         '-- NVMe nvme0n1 (nvme.img)
#
#   CUDA address = 0x700000000000 + BAR offset
#   BAR 14 MiB     a read parked in a volume when revoked (never lands)
#       16-17 MiB  read over nvfake's UVM-like region, checked on the host
#       18 MiB     the release/revoke race
#       20-22 MiB  read, checked in the guest and on the host
#       22-24 MiB  a buffer held across an unbind (its read fails)
#       22-23 MiB  persistent pages read after a cudaFree, checked on the host
#       23-24 MiB  a read still on a path when revoked
#       24-32 MiB  reads in flight when revoked, checked on the host
#   (above the other tests' buffers, which the module allocates from the
#   BAR's start, and below datapath.sh's bytes from 32 MiB; the host checks
#   them after the whole suite)
#
# Checks, first with pages that have a free callback (nvfake refusing
# persistent ones, as the driver does under APM: gpupath falls back): on a
# GPU whose driver registered no P2PDMA region, REG_CUDA fails with ENXIO
# and creates none, and the kernel log names the driver setting; with
# nvidia_bar_region set, two REG_CUDA at once on such a GPU both succeed,
# with one region and one provider (three rounds, the region going with
# each unbind); an unprivileged user may register once the region exists,
# but cannot create it (EPERM); a region the driver registered (as UVM does
# with static BAR1) is taken as it is, by any user; page tables of version
# 1.2 and 2.0 are taken, 3.0 refused (EPROTO) and given back;
# GPUPATH_IOC_ALLOC on the nvidia provider fails (EOPNOTSUPP); NVMe data
# lands in the "GPU" memory directly; cudaFree (nvfake's revoke knob) while
# reads are in flight returns only after all of them completed, later I/O
# fails with ENODEV; cudaFree while a read waits in a volume for a path fails
# the read at once; cudaFree while a read is on a path slower than
# nvidia_revoke_ms returns at that bound, and says so in the kernel log;
# release racing revoke gives each page table back exactly once (nvfake's
# bad_put and bad_free stay 0, no mapping left; a put_pages of a mapping
# whose callback ran as the release decided to put, which NVIDIA
# serialises and answers with nothing done, is counted apart); a buffer freed by another
# process is not given back with a put_pages NVIDIA would ignore, and its
# state waits for the callback; a callback that runs before get_pages has
# returned fails the registration (ENODEV) cleanly; unbinding the GPU while
# a buffer lives does not wait for it, and its I/O then fails with ENODEV;
# the provider leaves the list as the unbind begins, and a new one comes
# with the new region. With a region that UVM takes down at the last
# process's end (570 to 590), a process that ends with a buffer registered
# and its UVM file closed first does not hang, and the next process's
# region is learnt. Then with persistent pages: a cudaFree leaves the
# memory held and the buffer working until it is freed, from any process.
. /src/selftests/vm/guest-lib.sh

NVD=/usr/libexec/gpupath/gp-nvdouble
PRIV=/usr/libexec/gpupath/gp-priv
FAKE=/sys/kernel/debug/nvfake
NS=/dev/nvme0n1
MiB=1048576
BASE=$((160 * MiB))	# the pattern on the NVMe namespace
VA0=$((0x700000000000))
EPERM=1 ENXIO=6 ENODEV=19 EPROTO=71 EOPNOTSUPP=95
NVP=/sys/module/nvfake/parameters
U=1000

va() { echo $((VA0 + $1)); }
fake_stat() { awk -v k="$1" '$1 == k { print $2 }' $FAKE/stats; }
providers_of_gpu() {
	$GP provider show -j | jq --arg d "$GPU" '[.providers[] | select(.pci_dev == $d)] | length'
}
# No misuse of the API seen by nvfake; $1 live mappings.
fake_clean() {
	[ "$(fake_stat bad_put)" = 0 ] && [ "$(fake_stat bad_free)" = 0 ] &&
		[ "$(fake_stat silent_put)" = 0 ] && [ "$(fake_stat live)" = "$1" ] && return 0
	cat $FAKE/stats
	flunk "nvfake saw misuse or leftovers after $2"
}

# A check that fails the test but lets the others run (each is its own
# proof, also against a module without the fixes).
failed=0
flunk() { echo "FAIL: $*"; failed=$((failed + 1)); }

cleanup() {
	[ -z "${hpid:-}" ] || kill "$hpid" 2>/dev/null
	nv_cleanup
}
GPU=
trap cleanup EXIT

mark_dmesg
nv_start persistent=0
$PATTERN fill $NS $BASE $((8 * MiB)) 961 || fail "pattern onto $NS"

# A GPU whose driver registered no P2PDMA region over its BAR: REG_CUDA
# fails with ENXIO and creates none, unless the administrator allows
# gpupath's own region (nvidia_bar_region).
BARREG=/sys/module/gpupath/parameters/nvidia_bar_region
[ "$(cat $BARREG)" = N ] || fail "nvidia_bar_region is $(cat $BARREG) by default"
$NVD reg "$(va 0)" 65536 $ENXIO || flunk "REG_CUDA without a region and without nvidia_bar_region"
[ ! -d "/sys/bus/pci/devices/$GPU/p2pmem" ] || flunk "REG_CUDA created a region by default"
dmesg | grep -q "$GPU: gpupath: BAR 2 has no P2PDMA region; NVIDIA's driver registers one with NVreg_RegistryDwords=\"RMForceStaticBar1=1;RmForceDisableIomapWC=1\"" ||
	flunk "the refusal names no driver setting in the kernel log"
fake_clean 0 "the refused REG_CUDA"
echo 1 >$BARREG || fail "set nvidia_bar_region"

# Two REG_CUDA at once on a GPU without a region: one region, one provider.
race_reg() {
	$NVD race-reg "$(va 0)" "$(va $MiB)" $MiB >/tmp/race.out || flunk "race-reg, round $1"
	cat /tmp/race.out
	[ "$(providers_of_gpu)" = 1 ] || flunk "$(providers_of_gpu) providers for $GPU, round $1"
	fake_clean 0 "race-reg, round $1"
}
[ ! -d "/sys/bus/pci/devices/$GPU/p2pmem" ] || fail "$GPU has P2P memory before any REG_CUDA"
race_reg 1

# Once an admin made the region, users may register.
$PRIV as $U $NVD reg "$(va 0)" 65536 0 || flunk "unprivileged REG_CUDA over an existing region"
$NVD read "$(va $((20 * MiB)))" $((2 * MiB)) $NS $BASE >/tmp/read.out || flunk "read into CUDA memory"
cat /tmp/read.out
prov=$(sed -n 's/^provider=//p' /tmp/read.out)
[ -n "$prov" ] || fail "no nvidia provider"
$PATTERN check "/sys/bus/pci/devices/$GPU/resource2" $((20 * MiB)) $((2 * MiB)) 961 $BASE ||
	flunk "the bytes read are not in the BAR"
host_expect bar.img $((20 * MiB)) $((2 * MiB)) 961 $BASE

# The GPU's BAR is not gpupath's to hand out.
$NVD alloc "$prov" $EOPNOTSUPP || flunk "ALLOC from the nvidia provider"

# cudaFree while reads are in flight. io.max holds the reads at 16 MiB/s so
# that some are still in flight however slow the submission is.
cgroup_setup
mkdir -p $CG/nvslow
echo "$(cat /sys/block/${NS#/dev/}/dev) rbps=$((16 * MiB))" >$CG/nvslow/io.max || fail "io.max"
in_cg nvslow 0 $NVD revoke "$(va $((24 * MiB)))" $((8 * MiB)) $NS $BASE ||
	flunk "revoke with I/O in flight"
rmdir $CG/nvslow
host_expect bar.img $((24 * MiB)) $((8 * MiB)) 961 $BASE
note "the last revocation took $(fake_stat last_revoke_us) us"
fake_clean 0 "revoke"

# Release racing revoke: each table given back exactly once.
$NVD race-release "$(va $((18 * MiB)))" 262144 $NS 200 || flunk "release against revoke"
fake_clean 0 "the release/revoke race"
# (A release that decided to put_pages as the callback ran puts a key the
# callback took back: NVIDIA serialises the two, the second finds nothing.)
note "put_pages after the callback of that mapping (the API's own race): $(fake_stat late_put)"

# Unbinding the GPU while a CUDA buffer lives does not wait for it: the
# buffer holds the region's page map only while its I/O runs. Its I/O
# afterwards fails (ENODEV).
rm -f /tmp/hold.in
mkfifo /tmp/hold.in
$NVD hold "$(va $((22 * MiB)))" $((2 * MiB)) $NS $((BASE + 2 * MiB)) $ENODEV </tmp/hold.in \
	>/tmp/hold.out 2>&1 &
hpid=$!
exec 3>/tmp/hold.in
wait_for 20 grep -q '^held' /tmp/hold.out || { cat /tmp/hold.out; fail "no buffer held"; }
nv_unbind &
upid=$!
wait_for 10 sh -c "! kill -0 $upid" || flunk "the unbind waits for an idle CUDA buffer"
wait $upid || flunk "the unbind failed"
echo go >&3
exec 3>&-
wait $hpid || flunk "I/O into the buffer after the unbind did not fail with ENODEV"
hpid=
cat /tmp/hold.out
# nvfake keeps a mapping past the unbind: the buffer's end gave it back.
[ -z "$(gpu_driver)" ] || flunk "$GPU still bound to $(gpu_driver)"
fake_clean 0 "the unbind"
# Unbound: no CUDA memory, and the provider went as the unbind began; bound
# again: a new region, and a new provider whose page map is the region's
# (the old one's identity would be stale: buffers refused as unknown memory,
# or taken for another provider's).
$NVD reg "$(va 0)" 65536 $ENODEV || flunk "REG_CUDA with the GPU unbound"
$GP provider show -j | jq -e --argjson p "$prov" '[.providers[] | select(.id == $p)] | length == 0' \
	>/dev/null || flunk "the unbound GPU's provider is still listed"
nv_bind
$NVD read "$(va $((20 * MiB)))" $((2 * MiB)) $NS $BASE >/tmp/read.out || flunk "read after rebinding"
cat /tmp/read.out
new=$(sed -n 's/^provider=//p' /tmp/read.out)
[ -n "$new" ] && [ "$new" != "$prov" ] || flunk "the same provider after rebinding ($new)"
prov=$new
fake_clean 0 "rebinding"

# cudaFree while a read of the memory waits in a volume whose only path is
# down: the revocation fails the read and returns, it does not wait for a
# path (the driver's locks are held meanwhile).
volume_new queue-timeout forever
$GP path add "$vol" "$NS" -j >/tmp/np.json || flunk "path add $NS"
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null || flunk "first read of $VOL"
$GP path set "$(jq .id /tmp/np.json)" state down || flunk "path down"
$NVD parked "$(va $((14 * MiB)))" $MiB "$VOL" || flunk "revoke with a read parked in a volume"
$GP volume del "$vol" || flunk "volume del"
fake_clean 0 "the parked revoke"

# The region goes with each unbind of the GPU's driver: race again on a new one.
for round in 2 3; do
	nv_unbind
	nv_bind
	race_reg $round
done

# An unprivileged user cannot have the whole BAR memremapped (the region
# went with the unbind).
nv_unbind
nv_bind
$PRIV as $U $NVD reg "$(va 0)" 65536 $EPERM || flunk "unprivileged REG_CUDA created the region"
[ ! -d "/sys/bus/pci/devices/$GPU/p2pmem" ] || flunk "an unprivileged REG_CUDA created the region"
fake_clean 0 "an unprivileged REG_CUDA"

# The driver's own region, as UVM registers it with static BAR1: taken as
# it is, with nvidia_bar_region off, by any user; never published.
nv_unbind
echo 0 >$BARREG
rmmod nvfake || fail "rmmod nvfake"
insmod $NVFAKE uvm_region=1 persistent=0 || fail "insmod $NVFAKE uvm_region=1"
nv_bind
[ "$(cat "/sys/bus/pci/devices/$GPU/p2pmem/published" 2>/dev/null)" = 0 ] ||
	flunk "nvfake's UVM-like region is not there, or published"
$PRIV as $U $NVD reg "$(va 0)" 65536 0 || flunk "unprivileged REG_CUDA over the driver's region"
$NVD read "$(va $((16 * MiB)))" $MiB $NS $((BASE + 4 * MiB)) >/tmp/read.out ||
	flunk "read into CUDA memory over the driver's region"
cat /tmp/read.out
$PATTERN check "/sys/bus/pci/devices/$GPU/resource2" $((16 * MiB)) $MiB 961 $((BASE + 4 * MiB)) ||
	flunk "the bytes read over the driver's region are not in the BAR"
host_expect bar.img $((16 * MiB)) $MiB 961 $((BASE + 4 * MiB))
fake_clean 0 "the driver's region"

# Page tables of the drivers before 580 (version 1.2) are taken too; a
# major version gpupath does not know is refused (EPROTO) and given back.
nvfake_as uvm_region=1 persistent=0 table_version=0x10002
$NVD read "$(va $((16 * MiB)))" $MiB $NS $((BASE + 4 * MiB)) >/dev/null ||
	flunk "read into CUDA memory with a version 1.2 page table"
fake_clean 0 "a version 1.2 page table"
nvfake_as uvm_region=1 persistent=0 table_version=0x30000
$NVD reg "$(va 0)" 65536 $EPROTO || flunk "REG_CUDA with a version 3.0 page table"
fake_clean 0 "a version 3.0 page table"
[ "$(fake_stat put)" = 1 ] || flunk "the version 3.0 table was not given back"

# A buffer freed by another process (the descriptor shared across a fork)
# is not given back with a put_pages, which NVIDIA ignores from a process
# that did not pin: its state waits for the callback (cudaFree, or the
# owner's end), which then finds it safely.
nvfake_as uvm_region=1 persistent=0
$NVD child-free "$(va 0)" $MiB || flunk "child-free"
[ "$(fake_stat silent_put)" = 0 ] || flunk "put_pages from a process that did not pin"
[ "$(fake_stat live)" = 1 ] || flunk "the mapping freed elsewhere is not kept for its callback"
echo "$(va 0)" >$FAKE/revoke || flunk "the callback of a buffer freed elsewhere"
fake_clean 0 "a buffer freed by another process"

# The callback may run on another thread before get_pages has returned (a
# cudaFree racing the registration): the registration fails, cleanly.
r0=$(fake_stat revoke)
echo 1 >$NVP/revoke_in_get
$NVD reg "$(va 0)" $MiB $ENODEV || flunk "REG_CUDA whose memory was freed during get_pages"
echo 0 >$NVP/revoke_in_get
[ "$(fake_stat revoke)" = $((r0 + 1)) ] || flunk "no callback ran during get_pages"
fake_clean 0 "a callback during get_pages"

# cudaFree while a read is on a path that takes longer than
# nvidia_revoke_ms (io.max holds it at 64 KiB/s): the callback returns at
# the bound, and the kernel log says that I/O was left on a path.
RMS=/sys/module/gpupath/parameters/nvidia_revoke_ms
echo 1000 >$RMS
mkdir -p $CG/nvslow
echo "$(cat /sys/block/${NS#/dev/}/dev) rbps=65536" >$CG/nvslow/io.max || fail "io.max"
rm -f /tmp/bound.in
mkfifo /tmp/bound.in
mark_dmesg
in_cg nvslow 0 $NVD revoke-bound "$(va $((23 * MiB)))" $MiB $NS $BASE 1000 </tmp/bound.in \
	>/tmp/bound.out 2>&1 &
hpid=$!
exec 3>/tmp/bound.in
wait_for 30 grep -q '^lift' /tmp/bound.out || flunk "the revocation did not return"
echo "$(cat /sys/block/${NS#/dev/}/dev) rbps=max" >$CG/nvslow/io.max
echo go >&3
exec 3>&-
wait $hpid || flunk "a revocation with a read on a path"
hpid=
cat /tmp/bound.out
rmdir $CG/nvslow
dmesg | grep -q "gpupath: CUDA memory at $(printf %#x "$(va $((23 * MiB)))") freed with 1 I/O still on a path after 1000 ms" ||
	flunk "the kernel log does not say that I/O was left on a path"
echo 5000 >$RMS
fake_clean 0 "a revocation past its bound"

# UVM of 570 to 590: its region goes when the last process using the GPU
# ends, waiting under its global lock for every reference on the page
# map. A process that ends with a buffer registered, its UVM file released
# before its gpupath one (an ending process releases its files last opened
# first), must not hang there; the next process's region is a new page
# map, which gpupath learns.
exit_held() {
	$NVD exit-held "$(va $((20 * MiB)))" $MiB client,gpupath,uvm >/tmp/exit.out 2>&1 &
	hpid=$!
	wait_for 30 sh -c "! kill -0 $hpid" ||
		fail "a process ending with a registered buffer hangs ($1 pages): $(cat /tmp/exit.out)"
	wait $hpid || flunk "exit-held ($1 pages): $(cat /tmp/exit.out)"
	hpid=
	[ "$(fake_stat uvm_users)" = 0 ] && [ "$(fake_stat uvm_unregister)" -ge 1 ] ||
		flunk "UVM's region did not go at the process's end ($1 pages)"
	NVD_FDS=uvm,client $NVD read "$(va $((20 * MiB)))" $((2 * MiB)) $NS $BASE >/tmp/read.out ||
		flunk "a read over UVM's next region ($1 pages)"
	$PATTERN check "/sys/bus/pci/devices/$GPU/resource2" $((20 * MiB)) $((2 * MiB)) 961 $BASE ||
		flunk "the bytes read over UVM's next region are not in the BAR ($1 pages)"
	fake_clean 0 "a process's end with a registered buffer ($1 pages)"
}
nvfake_as uvm_region=2 persistent=0
exit_held callback
echo 1 >$NVP/persistent
exit_held persistent

# Persistent pages (the drivers from 555 on): a cudaFree of registered
# memory leaves it held, and the buffer reads into it until it is freed;
# freed from another process, it is given back all the same.
nvfake_as uvm_region=1
p0=$(fake_stat get_persistent)
rm -f /tmp/hold.in
mkfifo /tmp/hold.in
$NVD hold "$(va $((22 * MiB)))" $MiB $NS $((BASE + 5 * MiB)) </tmp/hold.in >/tmp/hold.out 2>&1 &
hpid=$!
exec 3>/tmp/hold.in
wait_for 20 grep -q '^held' /tmp/hold.out || { cat /tmp/hold.out; fail "no buffer held"; }
[ "$(fake_stat get_persistent)" = $((p0 + 1)) ] || flunk "not pinned with persistent pages"
echo "$(va $((22 * MiB)))" >$FAKE/revoke || flunk "cudaFree of persistent pages"
[ "$(fake_stat held_freed)" = 1 ] && [ "$(fake_stat live)" = 1 ] ||
	flunk "persistent pages not held past a cudaFree"
echo go >&3
exec 3>&-
wait $hpid || flunk "a read into persistent pages after their cudaFree"
hpid=
cat /tmp/hold.out
host_expect bar.img $((22 * MiB)) $MiB 961 $((BASE + 5 * MiB))
fake_clean 0 "persistent pages after a cudaFree"
$NVD child-free "$(va 0)" $MiB || flunk "child-free of persistent pages"
[ "$(fake_stat put_persistent)" -ge 2 ] || flunk "persistent pages freed elsewhere not given back"
fake_clean 0 "persistent pages freed by another process"

check_dmesg
nv_unbind
echo >"/sys/bus/pci/devices/$GPU/driver_override"
unload_module
rmmod nvfake || fail "rmmod nvfake"
[ $failed = 0 ] || fail "$failed checks failed (above)"
