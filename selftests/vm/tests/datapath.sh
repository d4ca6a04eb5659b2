# SPDX-License-Identifier: GPL-2.0
# The data path on the switch topology: the emulated NVMe controller and the
# ivshmem "GPU" sit behind one PCIe switch, so the NVMe model DMAs straight
# into the BAR. Reads land in the BAR (checked on the host in bar.img),
# writes come from it (checked on the host in nvme.img), 0 bytes bounce.
#
#   root port -- switch --+-- ivshmem BAR2 (provider, gpupath stub driver)
#                         '-- NVMe (nvme0n1, backing file nvme.img)
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
load_module
prov=$(bind_bar) || fail "no provider for the BAR"
note "BAR is provider $prov"
nvme=$(pci_dev 0x1b36 0x0010)
$GP provider show "$prov" -j | tee /tmp/prov.json
jq -e --arg n "${nvme##*/}" '.owned == true and .driver == "gpupath" and .bar == 2 and
	.size == 67108864 and .type == "p2pdma" and
	(.peers | map(.pci_dev) | index($n))' /tmp/prov.json >/dev/null || fail "provider details wrong"

# Adopt the NVMe CMB that nvme-pci published; bad adds are refused clearly.
$GP provider add "${nvme##*/}" -j >/tmp/cmb.json || fail "cannot adopt the CMB"
cmb=$(jq .id /tmp/cmb.json)
jq -e '.driver == "nvme" and .owned == false and .bar != null' /tmp/cmb.json >/dev/null ||
	fail "CMB details: $(cat /tmp/cmb.json)"
t() { want=$1; shift; out=$("$@" 2>&1); echo "$* -> $out"
	echo "$out" | grep -q "$want" || fail "expected '$want'"; }
t "is a provider already" $GP provider add "${nvme##*/}"
t "no such PCI device" $GP provider add 0000:7f:1f.7
t "must look like" $GP provider add not-a-bdf
t "publishes no P2P memory" $GP provider add 0000:00:00.0
t "no provider with this id" $GP provider del 4242
$GP provider del "$cmb" || fail "cannot drop the CMB provider"

# The namespace holds pattern 101 in its first 32 MiB.
MiB=1048576
$PATTERN gen $((32 * MiB)) 101 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null
# What the host checks must not be overwritten later: these reads land at
# 32 MiB and up in the BAR, every other buffer of the tests stays below.
boff=$((32 * MiB))
total=0
for size in 4096 131072 $MiB $((16 * MiB)); do
	expect_io 0 'mode=direct reason=none' -p direct -o $boff read "$prov" $NS $MiB $size 101
	host_expect bar.img "$(bar_offset)" $size 101 $MiB
	boff=$((boff + size))
	total=$((total + size))
done
# Host memory the library allocates (gpupath_buf_host_alloc: a host
# buffer; the compat path's 4 MiB bounce buffer) comes from huge pages when
# asked to (GPUPATH_HUGEPAGES=1) and the system has some: held by gp-io -H,
# the pool shows them taken, and the bytes read through them are right
# (gp-io checks them). Not asked, or the pool short, the heap serves.
hp_free() { awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo; }
echo 4 >/proc/sys/vm/nr_hugepages
[ "$(hp_free)" = 4 ] || fail "4 huge pages reserved: $(grep -i huge /proc/meminfo | tr '\n' ' ')"
# hp_held WANT-FREE GP-IO-ARGS...: gp-io's read, its memory held while the
# pool is looked at.
hp_held() {
	local want=$1 pid
	shift
	rm -f /tmp/hp.fifo && mkfifo /tmp/hp.fifo
	$GPIO -H "$@" </tmp/hp.fifo >/tmp/hp.out &
	pid=$!
	exec 3>/tmp/hp.fifo
	wait_for 10 grep -q 'mode=' /tmp/hp.out || fail "gp-io $*: $(cat /tmp/hp.out)"
	free=$(hp_free)
	exec 3>&-
	wait $pid || fail "gp-io $*: $(cat /tmp/hp.out) (the bytes read are wrong)"
	note "GPUPATH_HUGEPAGES=${GPUPATH_HUGEPAGES:-} gp-io $*: $(cat /tmp/hp.out); huge pages free while held: $free"
	[ "$free" = "$want" ] || fail "gp-io $*: $free huge pages free while held, $want expected"
	[ "$(hp_free)" = 4 ] || fail "gp-io $*: huge pages not given back ($(hp_free) free)"
}
hp_held 4 -p compat read "$prov" $NS 0 $((6 * MiB)) 101
export GPUPATH_HUGEPAGES=1
hp_held 3 read host $NS $MiB $MiB 101
grep -q 'mode=host reason=none' /tmp/hp.out || fail "host read: $(cat /tmp/hp.out)"
hp_held 2 -p compat read "$prov" $NS 0 $((6 * MiB)) 101
grep -q 'mode=bounce' /tmp/hp.out || fail "compat read: $(cat /tmp/hp.out)"
# A pool too small for the bounce buffer: the heap serves it.
echo 1 >/proc/sys/vm/nr_hugepages
expect_io 0 'mode=bounce' -p compat read "$prov" $NS $MiB $((5 * MiB)) 101
unset GPUPATH_HUGEPAGES
echo 0 >/proc/sys/vm/nr_hugepages

# The other way: device memory -> namespace, checked in nvme.img on the host.
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $NS $((64 * MiB)) $((4 * MiB)) 102
host_expect nvme.img $((64 * MiB)) $((4 * MiB)) 102 $((64 * MiB))
total=$((total + 4 * MiB))
echo 3 >/proc/sys/vm/drop_caches
$PATTERN check $NS $((64 * MiB)) $((4 * MiB)) 102 || fail "the write did not reach the namespace"

# Batched: 16 reads of 128 KiB in one submit, reaped through an eventfd,
# landing at 50 MiB of the BAR; 8 writes of 512 KiB the other way.
expect_io 0 'mode=direct reason=none ios=16' -b 16 -p direct -o $((50 * MiB)) \
	read "$prov" $NS $((2 * MiB)) $((2 * MiB)) 101
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 101 $((2 * MiB))
expect_io 0 'mode=direct reason=none ios=8' -b 8 -p direct write "$prov" $NS $((80 * MiB)) \
	$((4 * MiB)) 103
host_expect nvme.img $((80 * MiB)) $((4 * MiB)) 103 $((80 * MiB))
total=$((total + 6 * MiB))

# Several processes at once, each with its own buffer.
pids=
for i in 1 2 3 4; do
	$GPIO -p direct read "$prov" $NS $((i * MiB)) $MiB 101 >/tmp/par$i &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a parallel reader failed: $(cat /tmp/par*)"; done
grep -h . /tmp/par*
total=$((total + 4 * MiB))

$GP stats -j >/tmp/stats.json
jq -e --argjson id "$prov" --argjson b $total '.providers[] | select(.id == $id) |
	.stats.direct_bytes == $b and .stats.direct_ios == 33 and .stats.errors == 0 and
	.stats.refused == {}' /tmp/stats.json >/dev/null ||
	fail "counters wrong: $(cat /tmp/stats.json)"
note "direct: $total bytes in 33 I/Os (24 of them batched), 0 bytes bounced"

# A provider with memory in use cannot be deleted.
mkfifo /tmp/hold
$GPIO -H -p direct read "$prov" $NS 0 4096 101 </tmp/hold >/tmp/held &
exec 3>/tmp/hold
wait_for 10 grep -q mode= /tmp/held || fail "holder did not start"
t "memory of this provider is allocated" $GP provider del "$prov"
exec 3>&-
wait

# Unbinding the stub while its memory is allocated: the provider leaves at
# once, the memory is taken back from the holder (provider-remove.sh checks
# what the holder sees then), and the unbind returns without waiting for
# the holder to free it.
bar=$(pci_dev 0x1af4 0x1110)
mkfifo /tmp/hold2
$GPIO -H -p direct read "$prov" $NS 0 4096 101 </tmp/hold2 >/tmp/held2 &
holder=$!
exec 4>/tmp/hold2
wait_for 10 grep -q mode= /tmp/held2 || fail "holder did not start"
# (without the fifo's write end, or the holder would never see its end)
(exec 4>&-; echo "${bar##*/}" >"$bar/driver/unbind") &
unbinder=$!
wait_for 20 sh -c "! kill -0 $unbinder 2>/dev/null" ||
	fail "the unbind waits for the allocated memory"
$GP provider show -j | jq -e '.providers == []' >/dev/null || fail "provider listed after unbinding"
[ ! -e "$bar/driver" ] || fail "still bound after the unbind"
exec 4>&-
wait $holder || fail "the holder's read failed"
note "unbind took the allocated memory back and finished, the holder's read was good"
unbind_bar
$GP provider show -j | jq -e '.providers == []' >/dev/null || fail "provider left after unbind"
