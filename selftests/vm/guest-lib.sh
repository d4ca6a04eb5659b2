# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that run inside the VM; sourced by each test.
# The tree is at /src (read-only), this run's work directory at /out.

# The harness puts the project's programs into the initramfs.
GP=/usr/sbin/gpupath
GPD=/usr/sbin/gpupathd
PATTERN=/usr/libexec/gpupath/gp-pattern
NLCHECK=/usr/libexec/gpupath/nl-check
GPIO=/usr/libexec/gpupath/gp-io
IOCHECK=/usr/libexec/gpupath/io-check
KO=/out/gpupath.ko
IP=/usr/sbin/ip		# busybox sh would run its own ip applet otherwise

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
note() { echo "$*"; }

module_loaded() { [ -d /sys/module/gpupath ]; }
load_module() { module_loaded || insmod "$KO" || fail "insmod $KO"; }
unload_module() { ! module_loaded || rmmod gpupath || fail "rmmod gpupath"; }

# The kernel log since the last mark_dmesg; fails the test on WARN/BUG/Oops.
mark_dmesg() { dmesg -c >/dev/null; }
check_dmesg() {
	dmesg >/tmp/dmesg.$$
	if grep -E 'WARNING:|BUG:|Oops|general protection|UBSAN|KASAN|kmemleak:.*new suspected' /tmp/dmesg.$$; then
		fail "kernel complained (above)"
	fi
}

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	t=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.1
	done
}

# PCI device directory in sysfs by vendor and device id.
pci_dev() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ] &&
			{ echo "$d"; return 0; }
	done
	return 1
}

# ---- a fabric inside the guest ---------------------------------------------
#
#   null_blk /dev/nullb0 (memory backed)
#        |
#   nvmet subsystem $NQN, namespace 1 ($UUID)
#        |- port 1: rdma 10.99.0.1:4420 --- rxe0 on veth0
#        '- port 2: tcp  10.99.0.1:4421
#                     veth0 10.99.0.1/24 <===> veth1 10.99.0.2/24
#
# Every address lives inside the guest, which has no network card.

NQN=nqn.2026-11.io.gpupath:selftest
UUID=5e1f7e57-6a70-4c1d-9c2e-0123456789ab
CFG=/sys/kernel/config/nvmet

nvmet_port() {
	mkdir $CFG/ports/$1
	echo "$2" >$CFG/ports/$1/addr_trtype
	echo ipv4 >$CFG/ports/$1/addr_adrfam
	echo 10.99.0.1 >$CFG/ports/$1/addr_traddr
	echo "$3" >$CFG/ports/$1/addr_trsvcid
	ln -s $CFG/subsystems/$NQN $CFG/ports/$1/subsystems/$NQN
}

fabric_setup() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || fail "null_blk"
	modprobe -a nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp rdma_rxe veth || fail "modules"
	$IP link add veth0 type veth peer name veth1 &&
	$IP addr add 10.99.0.1/24 dev veth0 &&
	$IP addr add 10.99.0.2/24 dev veth1 &&
	$IP link set veth0 up &&
	$IP link set veth1 up || fail "veth pair"
	rdma link add rxe0 type rxe netdev veth0 || fail "rxe0"
	mkdir $CFG/subsystems/$NQN &&
	echo 1 >$CFG/subsystems/$NQN/attr_allow_any_host &&
	mkdir $CFG/subsystems/$NQN/namespaces/1 &&
	echo -n /dev/nullb0 >$CFG/subsystems/$NQN/namespaces/1/device_path &&
	echo $UUID >$CFG/subsystems/$NQN/namespaces/1/device_uuid &&
	echo 1 >$CFG/subsystems/$NQN/namespaces/1/enable || fail "nvmet subsystem"
	nvmet_port 1 rdma 4420 && nvmet_port 2 tcp 4421 || fail "nvmet ports"
}

fabric_teardown() {
	nvme disconnect -n $NQN >/dev/null 2>&1
	rm -f $CFG/ports/*/subsystems/$NQN 2>/dev/null
	rmdir $CFG/ports/* 2>/dev/null
	if [ -d $CFG/subsystems/$NQN ]; then
		echo 0 >$CFG/subsystems/$NQN/namespaces/1/enable
		rmdir $CFG/subsystems/$NQN/namespaces/1
		rmdir $CFG/subsystems/$NQN
	fi
	rdma link delete rxe0 2>/dev/null
	$IP link del veth0 2>/dev/null
	for m in nvme_rdma nvme_tcp nvme_fabrics nvmet_rdma nvmet_tcp nvmet rdma_rxe null_blk; do
		rmmod $m 2>/dev/null
	done
	return 0
}

# The namespace's visible block device (nvmeXnY), found by its UUID.
ns_dev() {
	for w in /sys/block/nvme*/wwid; do
		[ "$(cat "$w")" = "uuid.$UUID" ] || continue
		d=${w%/wwid}
		d=${d##*/}
		[ -b /dev/$d ] && { echo "$d"; return 0; }
	done
	return 1
}

# ---- device memory -------------------------------------------------------

# Bind the ivshmem "GPU" to gpupath's stub driver; prints its provider id.
bind_bar() {
	bar=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
	bdf=${bar##*/}
	echo gpupath >"$bar/driver_override"
	echo "$bdf" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$bar/driver")")" = gpupath ] || fail "stub did not bind to $bdf"
	$GP provider show -j | jq -e --arg d "$bdf" '.providers[] | select(.pci_dev == $d) | .id'
}

unbind_bar() {
	bar=$(pci_dev 0x1af4 0x1110) && [ -e "$bar/driver" ] &&
		echo "${bar##*/}" >"$bar/driver/unbind"
	echo >"$bar/driver_override"
}

# expect_io WANT_EXIT WANT_OUTPUT_PATTERN gp-io ARGS...: runs gp-io and checks
# its exit status and the line it prints; the line is left in $io_out.
expect_io() {
	want=$1 pat=$2
	shift 2
	io_out=$($GPIO "$@")
	rc=$?
	echo "gp-io $*: $io_out (exit $rc)"
	[ $rc = "$want" ] || fail "gp-io exited $rc, expected $want"
	echo "$io_out" | grep -Eq "$pat" || fail "gp-io said '$io_out', expected /$pat/"
}

# host_expect FILE OFFSET LEN SEED POS: the harness checks FILE on the host
# (bar.img or nvme.img) for pattern SEED at OFFSET, positions from POS.
host_expect() {
	echo "$*" >>/out/host.expect
}

bar_offset() { echo "$io_out" | sed -n 's/.*bar_offset=\([0-9]*\).*/\1/p'; }
