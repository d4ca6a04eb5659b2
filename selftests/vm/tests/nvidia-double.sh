# SPDX-License-Identifier: GPL-2.0
# CUDA buffers (GPUPATH_IOC_REG_CUDA) against nvfake, a test double of the
# NVIDIA driver's peer-memory API (selftests/vm/nvfake): it binds to the
# ivshmem "GPU" and hands out 64 KiB pages of its BAR2 as "CUDA memory".
# nvfake is NOT the NVIDIA driver: gpupath's use of the real driver (its
# callback context and locking, its page tables) remains untested.
#
#   root port -- switch --+-- ivshmem "GPU", BAR2 64 MiB (bar.img) <- nvfake
#                         '-- NVMe nvme0n1 (nvme.img)
#
#   CUDA address = 0x700000000000 + BAR offset
#   BAR 14 MiB     a read parked in a volume when revoked (never lands)
#       16-17 MiB  read over nvfake's UVM-like region, checked on the host
#       18 MiB     the release/revoke race
#       20-22 MiB  read, checked in the guest and on the host
#       22-24 MiB  read by a buffer held across an unbind, checked on the host
#       24-32 MiB  reads in flight when revoked, checked on the host
#   (between stress.sh's loops below 12 MiB and datapath.sh's bytes from
#   32 MiB, which the host checks after the whole suite)
#
# Checks: on a GPU whose driver registered no P2PDMA region, REG_CUDA fails
# with ENXIO and creates none, and the kernel log names the driver setting;
# with nvidia_bar_region set, two REG_CUDA at once on such a GPU both
# succeed, with one region and one provider (three rounds, the region going
# with each unbind); an unprivileged user may register once the region
# exists, but cannot create it (EPERM); a region the driver registered (as
# UVM does with static BAR1) is taken as it is, by any user; page tables of
# version 1.2 and 2.0 are taken, 3.0 refused (EPROTO) and given back;
# GPUPATH_IOC_ALLOC on the nvidia provider fails (EOPNOTSUPP); NVMe data
# lands in the "GPU" memory directly; cudaFree (nvfake's revoke knob) while
# reads are in flight returns only after all of them completed, later I/O
# fails with ENODEV; cudaFree while a read waits in a volume for a path fails
# the read at once; release racing revoke gives each page table back
# exactly once (nvfake's bad_put and bad_free stay 0, no mapping left);
# unbinding the GPU while a buffer lives waits until it is released, and
# the buffer's pages stay valid meanwhile (no dangling memmap, no crash);
# the provider leaves the list as the unbind begins, and a new one comes
# with the new region.
. /src/selftests/vm/guest-lib.sh

NVD=/usr/libexec/gpupath/gp-nvdouble
PRIV=/usr/libexec/gpupath/gp-priv
NVFAKE=/out/nvfake.ko
FAKE=/sys/kernel/debug/nvfake
NS=/dev/nvme0n1
MiB=1048576
BASE=$((160 * MiB))	# the pattern on the NVMe namespace
VA0=$((0x700000000000))
EPERM=1 ENXIO=6 ENODEV=19 EPROTO=71 EOPNOTSUPP=95
U=1000

va() { echo $((VA0 + $1)); }
fake_stat() { awk -v k="$1" '$1 == k { print $2 }' $FAKE/stats; }
gpu_driver() { basename "$(readlink "/sys/bus/pci/devices/$GPU/driver" 2>/dev/null)"; }
nv_bind() {
	echo nvfake >"/sys/bus/pci/devices/$GPU/driver_override"
	echo "$GPU" >/sys/bus/pci/drivers_probe
	[ "$(gpu_driver)" = nvfake ] || fail "nvfake did not bind to $GPU"
}
nv_unbind() { echo "$GPU" >/sys/bus/pci/drivers/nvfake/unbind; }
providers_of_gpu() {
	$GP provider show -j | jq --arg d "$GPU" '[.providers[] | select(.pci_dev == $d)] | length'
}
# No misuse of the API seen by nvfake; $1 live mappings.
fake_clean() {
	[ "$(fake_stat bad_put)" = 0 ] && [ "$(fake_stat bad_free)" = 0 ] &&
		[ "$(fake_stat live)" = "$1" ] && return 0
	cat $FAKE/stats
	flunk "nvfake saw misuse or leftovers after $2"
}

# A check that fails the test but lets the others run (each is its own
# proof, also against a module without the fixes).
failed=0
flunk() { echo "FAIL: $*"; failed=$((failed + 1)); }

cleanup() {
	[ -z "${hpid:-}" ] || kill "$hpid" 2>/dev/null
	if [ -n "$GPU" ]; then
		[ "$(gpu_driver)" != nvfake ] || nv_unbind
		echo >"/sys/bus/pci/devices/$GPU/driver_override"
	fi
	module_loaded && rmmod gpupath
	[ ! -d /sys/module/nvfake ] || rmmod nvfake
	true
}
GPU=
trap cleanup EXIT

[ -f $NVFAKE ] || fail "no $NVFAKE (the harness builds it)"
load_module
insmod $NVFAKE || fail "insmod $NVFAKE"
GPU=$(gpu_bdf 0) || fail "no ivshmem device"
mark_dmesg
nv_bind
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

# Unbinding the GPU while a CUDA buffer lives waits for the buffer.
rm -f /tmp/hold.in
mkfifo /tmp/hold.in
$NVD hold "$(va $((22 * MiB)))" $((2 * MiB)) $NS $((BASE + 2 * MiB)) </tmp/hold.in >/tmp/hold.out 2>&1 &
hpid=$!
exec 3>/tmp/hold.in
wait_for 20 grep -q '^held' /tmp/hold.out || { cat /tmp/hold.out; fail "no buffer held"; }
nv_unbind &
upid=$!
sleep 3
if kill -0 $upid 2>/dev/null; then
	note "the unbind waits while the buffer lives"
else
	flunk "the unbind did not wait for the CUDA buffer"
fi
[ "$(fake_stat bound)" = 0 ] || flunk "nvfake still bound during the unbind"
# The buffer's pages are still valid: read into them, then let it go.
echo go >&3
exec 3>&-
wait $hpid || flunk "I/O into the held buffer during the unbind"
hpid=
cat /tmp/hold.out
host_expect bar.img $((22 * MiB)) $((2 * MiB)) 961 $((BASE + 2 * MiB))
wait_for 30 sh -c "! kill -0 $upid" || fail "the unbind still waits after the buffer went"
wait $upid || flunk "the unbind failed"
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
insmod $NVFAKE uvm_region=1 || fail "insmod $NVFAKE uvm_region=1"
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
nvfake_as() {
	nv_unbind
	rmmod nvfake || fail "rmmod nvfake"
	insmod $NVFAKE uvm_region=1 "$@" || fail "insmod $NVFAKE $*"
	nv_bind
}
nvfake_as table_version=0x10002
$NVD read "$(va $((16 * MiB)))" $MiB $NS $((BASE + 4 * MiB)) >/dev/null ||
	flunk "read into CUDA memory with a version 1.2 page table"
fake_clean 0 "a version 1.2 page table"
nvfake_as table_version=0x30000
$NVD reg "$(va 0)" 65536 $EPROTO || flunk "REG_CUDA with a version 3.0 page table"
fake_clean 0 "a version 3.0 page table"
[ "$(fake_stat put)" = 1 ] || flunk "the version 3.0 table was not given back"

check_dmesg
nv_unbind
echo >"/sys/bus/pci/devices/$GPU/driver_override"
unload_module
rmmod nvfake || fail "rmmod nvfake"
[ $failed = 0 ] || fail "$failed checks failed (above)"
