# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that run inside the VM; sourced by each test.
# The tree is at /src (read-only), this run's work directory at /out.

# The harness puts the project's programs into the initramfs.
GP=/usr/sbin/gpupath
# gpupathd as far as a guest without systemd can run it as its unit does:
# the unit's capability bounding set (read from the unit) and no new
# privileges. gpd_start (below) runs the unit itself where systemd is init.
GPD_CAPS=$(sed -n 's/^CapabilityBoundingSet=//p' /src/daemon/gpupathd.service |
	tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
GPD="/usr/bin/setpriv --bounding-set=-all,$GPD_CAPS --no-new-privs /usr/sbin/gpupathd"
PATTERN=/usr/libexec/gpupath/gp-pattern
NLCHECK=/usr/libexec/gpupath/nl-check
GPIO=/usr/libexec/gpupath/gp-io
CUFILE="env LD_LIBRARY_PATH=/usr/lib/gpupath /usr/libexec/gpupath/gp-cufile"
IOCHECK=/usr/libexec/gpupath/io-check
KO=/out/gpupath.ko
IP=/usr/sbin/ip		# busybox sh would run its own ip applet otherwise
SYSTEMCTL=/bin/systemctl

# guest-run.sh stops a test past its time limit with SIGTERM: the test's
# EXIT trap (its cleanup) runs then as at any other end.
trap 'exit 143' TERM
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
# skip_part WHAT WHY: a part of the test this kernel cannot run; the rest
# goes on. Reported as a skipped test point of its own (guest-run.sh).
skip_part() { echo "SKIP-PART: $1 # $2"; }
note() { echo "$*"; }

module_loaded() { [ -d /sys/module/gpupath ]; }
load_module() { module_loaded || insmod "$KO" || fail "insmod $KO"; }
unload_module() { ! module_loaded || rmmod gpupath || fail "rmmod gpupath"; }

# The kernel log since the last mark_dmesg; fails the test on WARN/BUG/Oops.
# gone PID: the process has exited (a zombie not yet waited for counts).
gone() { ! [ -e /proc/"$1"/stat ] || [ "$(cut -d' ' -f3 /proc/"$1"/stat)" = Z ]; }
# wait_gone SECONDS PID: until PID is gone; 1 if it still runs then.
wait_gone() { wait_for "$1" gone "$2"; }
mark_dmesg() { dmesg -c >/dev/null; }
check_dmesg() {
	dmesg >/tmp/dmesg.$$
	sh /src/selftests/vm/check-kernel-log.sh /tmp/dmesg.$$ >/tmp/klog.$$ ||
		{ cat /tmp/klog.$$; fail "kernel complained (above)"; }
}

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	local t=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.1
	done
}

# gpd_start LOG [OPTION...]: gpupathd --foreground --verbose OPTION... in
# the background, its output in LOG; $gpd is its PID.
#
# In a guest booted with systemd as init (GUEST_INIT=systemd), this starts
# the shipped gpupathd.service: its sandbox, capability bounding set,
# watchdog, notify protocol and --check-config before the start are the
# unit's. A drop-in adds only the test's options (to --check-config too),
# sends the output to LOG, leaves restarts to the test (Restart=no) and
# stretches the watchdog's period to 120 s: under emulation, beside another
# guest on two host cores, one scan of 128 controllers' sysfs while they
# reconnect took over 30 s (tests-rails/daemon-scale; on hardware it takes
# milliseconds), and a kill there would cost the rest of the guest's tests.
# Elsewhere it runs $GPD. ($SYSTEMCTL: daemon-autoconnect puts a stand-in of
# its own in PATH.)
gpd_start() {
	local log=$1 i
	shift
	if [ ! -d /run/systemd/system ]; then
		$GPD --foreground --verbose "$@" >"$log" 2>&1 &
		gpd=$!
		return
	fi
	mkdir -p /run/systemd/system/gpupathd.service.d
	cat >/run/systemd/system/gpupathd.service.d/test.conf <<EOF
[Service]
ExecStartPre=
ExecStartPre=/usr/sbin/gpupathd --check-config $*
ExecStart=
ExecStart=/usr/sbin/gpupathd --foreground --verbose $*
StandardOutput=append:$log
StandardError=inherit
Restart=no
WatchdogSec=120
EOF
	: >"$log"
	$SYSTEMCTL daemon-reload || fail "systemctl daemon-reload"
	$SYSTEMCTL reset-failed gpupathd.service 2>/dev/null
	$SYSTEMCTL start --no-block gpupathd.service || fail "systemctl start gpupathd"
	# The main process exists once --check-config has passed.
	for i in $(seq 300); do
		gpd=$($SYSTEMCTL show -P MainPID gpupathd.service)
		[ "${gpd:-0}" = 0 ] || { gpd_sandboxed; return; }
		$SYSTEMCTL -q is-failed gpupathd.service &&
			fail "gpupathd.service failed to start: $($SYSTEMCTL status gpupathd.service; cat "$log")"
		sleep 0.1
	done
	fail "gpupathd.service has no main process after 30 s: $($SYSTEMCTL status gpupathd.service)"
}

# gpd_sandboxed: gpupathd ($gpd), once it runs, has the unit's sandbox as
# the kernel shows it: no new privileges, a seccomp filter, the capability
# bounding set CAP_NET_ADMIN and CAP_SYS_ADMIN (bits 12 and 21), and a
# mount namespace of its own (ProtectSystem=, PrivateTmp=).
gpd_sandboxed() {
	wait_for 30 grep -qx gpupathd /proc/$gpd/comm ||
		fail "gpupathd.service's process $gpd is not gpupathd: $(cat /proc/$gpd/comm)"
	grep -q "^NoNewPrivs:[[:space:]]*1$" /proc/$gpd/status &&
		grep -q "^Seccomp:[[:space:]]*2$" /proc/$gpd/status &&
		grep -q "^CapBnd:[[:space:]]*0000000000201000$" /proc/$gpd/status ||
		fail "gpupathd runs without the unit's sandbox: $(grep -E '^(NoNewPrivs|Seccomp|Cap)' /proc/$gpd/status)"
	[ "$(readlink /proc/$gpd/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] ||
		fail "gpupathd shares the tests' mount namespace"
}

# gpd_ended: gpupathd.service is inactive or failed.
gpd_ended() {
	case $($SYSTEMCTL show -P ActiveState gpupathd.service) in
	inactive | failed) return 0 ;;
	esac
	return 1
}

# gpd_stop [SIGNAL]: SIGNAL (TERM) to gpupathd, and wait for its end; its
# exit status, or 128 + the signal that ended it.
gpd_stop() {
	local pid=${gpd:-} code st
	gpd=
	[ -n "$pid" ] || return 0
	kill -s "${1:-TERM}" "$pid" 2>/dev/null
	if [ ! -d /run/systemd/system ]; then
		wait "$pid"
		return
	fi
	wait_for 120 gpd_ended || fail "gpupathd.service did not stop: $($SYSTEMCTL status gpupathd.service)"
	code=$($SYSTEMCTL show -P ExecMainCode gpupathd.service)
	st=$($SYSTEMCTL show -P ExecMainStatus gpupathd.service)
	# ExecMainCode: 1, exited with ExecMainStatus; else killed by that signal.
	[ "$code" = 1 ] && return "$st"
	return $((128 + st))
}

# qmp JSON: one command to QEMU's monitor, through the host (run-vm.sh);
# prints the answer, and fails when QEMU answers with an error.
qmp() {
	rm -f /out/qmp.rep
	echo "$1" >/out/qmp.req.tmp && mv /out/qmp.req.tmp /out/qmp.req
	wait_for 20 test -e /out/qmp.rep || fail "QMP: no answer to $1"
	qmp_out=$(cat /out/qmp.rep)
	rm -f /out/qmp.rep
	echo "$qmp_out"
	case $qmp_out in *'"error"'*) return 1 ;; esac
}

# prom_check NAME: `gpupath stats --prometheus` left in /out/NAME.prom for
# the host's promtool, and each of its samples equal to what `gpupath stats
# -j` says (stats-prom.jq), none missing, none extra. Call it with no I/O
# running.
prom_check() {
	$GP stats -j >/tmp/stats.json || fail "gpupath stats -j"
	$GP stats --prometheus >"/out/$1.prom" || fail "gpupath stats --prometheus"
	jq -r -f /src/selftests/vm/stats-prom.jq /tmp/stats.json >/tmp/expect.prom ||
		fail "stats-prom.jq"
	awk '
	FNR == NR {
		if ($0 ~ /^#/ || !NF) next
		v = $NF; $NF = ""; sub(/ +$/, ""); got[$0] = v; n++; next
	}
	{
		scale = $NF; want = $(NF - 1); $NF = ""; $(NF - 1) = ""; sub(/ +$/, "")
		m++
		if (!($0 in got)) { print "missing: " $0; bad++; next }
		d = got[$0] * scale - want
		if (d < -0.5 || d > 0.5) { print "differs: " $0 ": " got[$0] ", -j says " want; bad++ }
	}
	END {
		if (m != n) { print "--prometheus has " n " samples, -j gives " m; bad++ }
		print m " samples of gpupath stats --prometheus agree with -j"
		exit bad > 0
	}' "/out/$1.prom" /tmp/expect.prom || fail "gpupath stats --prometheus and -j disagree"
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
# fabric_setup:
#
#   null_blk /dev/nullb0 (memory backed)
#        |
#   nvmet subsystem $NQN, namespace 1 ($UUID)
#        |- port 1: rdma 10.99.0.1:4420 --- rxe0 on veth0
#        '- port 2: tcp  10.99.0.1:4421
#                     veth0 10.99.0.1/24 <===> veth1 10.99.0.2/24
#
# rails_setup: the same subsystem and TCP port, no rxe0 and no port 1, but
# two RDMA "rails", each its own veth pair and soft-RoCE device, and the host
# connected over all three paths (three controllers, three block devices
# with one wwid; boot with nvme_core.multipath=N):
#
#   rail  transport  nvmet port  traddr:trsvcid   host_traddr  veth pair
#   0     tcp        2           10.99.0.1:4421   10.99.0.2    veth0 = veth1
#   1     rdma       11          10.99.1.1:4420   10.99.1.2    rail1 = rail1p, rxe1 on rail1
#   2     rdma       12          10.99.2.1:4420   10.99.2.2    rail2 = rail2p, rxe2 on rail2
#
# rails_list, rail_ns N, rail_ctrl N find the host's side of a rail;
# rail_down N and rail_up N take one away and bring it back (any of 0, 1, 2).
#
# Both addresses of a RDMA rail sit on the same end, the one with the rxe
# device: target and host share the guest's one network namespace, so the
# traffic never crosses the veth (the kernel routes local addresses over lo),
# and rxe only takes a packet from lo when sender and receiver are the same
# rxe device (measured: rxe on both ends and host_traddr on the far end ->
# "rdma connection establishment failed (-104)"; rxe only on the far end ->
# nvmet cannot bind, -19). The peer ends rail1p/rail2p carry no address; a
# rail is down when its pair has no carrier (rxeN's port then goes DOWN).
#
# Every address lives inside the guest; its only network cards (the rails
# topology's NICs) are on QEMU hubs of their own and get no address.

NQN=nqn.2026-11.io.gpupath:selftest
UUID=5e1f7e57-6a70-4c1d-9c2e-0123456789ab
CFG=/sys/kernel/config/nvmet

# nvmet_port ID TRTYPE TRADDR SVCID: a port with the subsystem linked into it.
nvmet_port() {
	mkdir $CFG/ports/$1 &&
	echo "$2" >$CFG/ports/$1/addr_trtype &&
	echo ipv4 >$CFG/ports/$1/addr_adrfam &&
	echo "$3" >$CFG/ports/$1/addr_traddr &&
	echo "$4" >$CFG/ports/$1/addr_trsvcid &&
	nvmet_link "$1"
}

# nvmet_link ID: (re)link the subsystem into port ID, which enables the port.
# An rdma port cannot bind before its rxe device has the address in its GID
# table, which is filled asynchronously: retried for up to 5 s.
nvmet_link() {
	wait_for 5 ln -s $CFG/subsystems/$NQN $CFG/ports/$1/subsystems/$NQN
}

# nvmet_subsys NQN DEV [ATTR=VALUE]...: a subsystem any host may use, of one
# namespace on DEV with those namespace attributes, enabled, on no port yet.
nvmet_subsys() {
	local ns=$CFG/subsystems/$1/namespaces/1 a
	mkdir $CFG/subsystems/$1 &&
	echo 1 >$CFG/subsystems/$1/attr_allow_any_host &&
	mkdir $ns &&
	echo -n "$2" >$ns/device_path || return
	shift 2
	for a in "$@"; do
		echo "${a#*=}" >$ns/"${a%%=*}" || return
	done
	echo 1 >$ns/enable
}

# veth_pair: veth0 (10.99.0.1, the targets' side) and veth1 (10.99.0.2), up.
veth_pair() {
	$IP link add veth0 type veth peer name veth1 &&
	$IP addr add 10.99.0.1/24 dev veth0 &&
	$IP addr add 10.99.0.2/24 dev veth1 &&
	$IP link set veth0 up &&
	$IP link set veth1 up
}

# The modules, the memory-backed namespace, veth0/veth1 and the TCP port:
# what fabric_setup and rails_setup have in common.
fabric_common() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || fail "null_blk"
	modprobe -a nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp rdma_rxe veth || fail "modules"
	veth_pair || fail "veth pair"
	nvmet_subsys $NQN /dev/nullb0 device_uuid=$UUID || fail "nvmet subsystem"
	nvmet_port 2 tcp 10.99.0.1 4421 || fail "nvmet tcp port"
}

# The discovery subsystem; two more subsystems' names for tests that add some.
DISC=nqn.2014-08.org.nvmexpress.discovery
NQN2=${NQN}-two
NQN3=${NQN}-three

# subsys_new NQN FILE: a subsystem of one namespace on FILE (64 MiB; buffered:
# a tmpfs file has no O_DIRECT before 6.6), on no port yet; subsys_del NQN
# takes it off every port and away.
subsys_new() {
	truncate -s 64M "$2" && nvmet_subsys "$1" "$2" buffered_io=1
}
subsys_del() {
	rm -f $CFG/ports/*/subsystems/$1
	[ -d $CFG/subsystems/$1 ] || return 0
	echo 0 >$CFG/subsystems/$1/namespaces/1/enable
	rmdir $CFG/subsystems/$1/namespaces/1 $CFG/subsystems/$1
}
# subsys_extra: NQN2 and NQN3 made (rails_targets first); subsys_extra_del:
# the volumes and every controller gone, the two subsystems and the rails.
subsys_extra() {
	subsys_new $NQN2 /tmp/two.img || fail "subsystem two"
	subsys_new $NQN3 /tmp/three.img || fail "subsystem three"
}
subsys_extra_del() {
	volumes_del_all
	nvme disconnect-all >/dev/null 2>&1
	subsys_del $NQN2
	subsys_del $NQN3
	rails_teardown
}

# fabric_ns TRANSPORT: the namespace device of the controller on that
# transport; fabric_connect TRANSPORT PORT: connect to fabric_setup's target
# there and wait for the namespace.
# ctrl_ns ATTR VALUE: the name of the namespace device of the first
# controller whose sysfs ATTR (transport, subsysnqn) is VALUE.
ctrl_ns() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/$1")" = "$2" ] || continue
		for d in "$c"/nvme*n*; do
			[ -b "/dev/${d##*/}" ] && { echo "${d##*/}"; return 0; }
		done
	done
	return 1
}
fabric_ns() { _ns=$(ctrl_ns transport "$1") && echo "/dev/$_ns"; }
fabric_connect() {
	nvme connect -t "$1" -a 10.99.0.1 -s "$2" -n $NQN >/dev/null || fail "$1: connect"
	wait_for 20 fabric_ns "$1" || fail "$1: no namespace"
}

fabric_setup() {
	fabric_common
	rdma link add rxe0 type rxe netdev veth0 || fail "rxe0"
	nvmet_port 1 rdma 10.99.0.1 4420 || fail "nvmet rdma port"
}

# fabric_paths MIB SEED: fabric_setup with pattern SEED in the first MIB MiB
# of the namespace, connected over RDMA and TCP; sets $RDMA and $TCP to the
# two block devices of that one namespace.
fabric_paths() {
	fabric_setup
	$PATTERN gen $(($1 << 20)) "$2" | dd of=/dev/nullb0 bs=1048576 conv=fsync 2>/dev/null ||
		fail "pattern onto the namespace"
	fabric_connect rdma 4420
	fabric_connect tcp 4421
	RDMA=$(fabric_ns rdma) TCP=$(fabric_ns tcp)
	note "paths: rdma $RDMA, tcp $TCP"
}

# Removes whatever fabric_setup or rails_setup (or a test half-way through
# either) created; also the rails_teardown. Safe under set -e.
fabric_teardown() {
	local l d m
	nvme disconnect -n $NQN >/dev/null 2>&1 || true
	rm -f $CFG/ports/*/subsystems/$NQN 2>/dev/null || true
	rmdir $CFG/ports/* 2>/dev/null || true
	if [ -d $CFG/subsystems/$NQN/namespaces/1 ]; then
		echo 0 >$CFG/subsystems/$NQN/namespaces/1/enable || true
		rmdir $CFG/subsystems/$NQN/namespaces/1 || true
	fi
	! [ -d $CFG/subsystems/$NQN ] || rmdir $CFG/subsystems/$NQN || true
	for l in $(rdma link show 2>/dev/null | sed -n 's|^link \(rxe[^/]*\)/.*|\1|p'); do
		rdma link delete "$l" || true
	done
	for d in veth0 rail1 rail2; do
		! [ -e /sys/class/net/$d ] || $IP link del $d || true
	done
	for m in nvme_rdma nvme_tcp nvme_fabrics nvmet_rdma nvmet_tcp nvmet rdma_rxe null_blk; do
		! [ -d /sys/module/$m ] || rmmod $m || true
	done
	return 0
}
rails_teardown() { fabric_teardown; }

# The namespace's visible block device (nvmeXnY), found by its UUID; the
# first one where there are several (rails: use rail_ns).
ns_dev() {
	for w in /sys/block/nvme*/wwid; do
		[ "$(cat "$w")" = "uuid.$UUID" ] || continue
		d=${w%/wwid}
		d=${d##*/}
		[ -b /dev/$d ] && { echo "$d"; return 0; }
	done
	return 1
}

# ---- rails (see the table above) -------------------------------------------

RAILS="1 2 0"		# rails_list order: the RDMA rails, then TCP

rails_setup() {
	local n
	rails_targets
	for n in $RAILS; do
		rail_connect $n || fail "rail $n: $rail_err"
	done
}

# The target side of rails_setup, nothing connected.
rails_targets() {
	local n
	fabric_common
	for n in 1 2; do
		$IP link add rail$n type veth peer name rail${n}p &&
		$IP addr add 10.99.$n.1/24 dev rail$n &&
		$IP addr add 10.99.$n.2/24 dev rail$n &&
		$IP link set rail$n up &&
		$IP link set rail${n}p up || fail "rail $n: veth pair"
		rdma link add rxe$n type rxe netdev rail$n || fail "rail $n: rxe$n"
		nvmet_port $((10 + n)) rdma 10.99.$n.1 4420 || fail "rail $n: nvmet port"
	done
}

# Rail N's pieces: its nvmet port, its transport, the netdevs of its veth.
rail_port() { if [ "$1" = 0 ]; then echo 2; else echo $((10 + $1)); fi; }
rail_netdevs() { if [ "$1" = 0 ]; then echo veth0 veth1; else echo rail$1 rail${1}p; fi; }

# rail_ctrl N: the host's controller (nvmeX) on rail N, if connected.
rail_ctrl() { _rail_ctrl "$1" && echo "$_ctrl"; }

# Sets $_ctrl; reads sysfs with builtins only (a fork costs ~10 ms under TCG).
_rail_ctrl() {
	local want c nqn tr addr
	if [ "$1" = 0 ]; then
		want=tcp:traddr=10.99.0.1,trsvcid=4421,host_traddr=10.99.0.2
	else
		want=rdma:traddr=10.99.$1.1,trsvcid=4420,host_traddr=10.99.$1.2
	fi
	for c in /sys/class/nvme/nvme*; do
		read -r nqn <"$c/subsysnqn" 2>/dev/null && [ "$nqn" = $NQN ] || continue
		read -r tr <"$c/transport" && read -r addr <"$c/address" || continue
		# nvme-tcp appends ",src_addr=..."
		case $tr:$addr in
		"$want" | "$want",*) _ctrl=${c##*/}; return 0 ;;
		esac
	done
	return 1
}

# rail_ns N: rail N's namespace block device (nvmeXnY), once it can be opened.
rail_ns() {
	local d w
	_rail_ctrl "$1" || return 1
	for d in /sys/class/nvme/$_ctrl/nvme*n*; do
		read -r w <"$d/wwid" 2>/dev/null && [ "$w" = "uuid.$UUID" ] &&
			[ -b "/dev/${d##*/}" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# rails_list: one line per connected rail: RAIL TRANSPORT CONTROLLER BLOCKDEV
# (BLOCKDEV "-" while the namespace is not there yet), e.g. "1 rdma nvme1 nvme1n1".
rails_list() {
	local n tr
	for n in $RAILS; do
		_rail_ctrl $n || continue
		read -r tr </sys/class/nvme/$_ctrl/transport
		echo "$n $tr $_ctrl $(rail_ns $n || echo -)"
	done
}

# rxe_active N: rxeN's port is ACTIVE (it follows its netdev's carrier).
rxe_active() {
	local st
	read -r st </sys/class/infiniband/rxe$1/ports/1/state 2>/dev/null && [ "$st" = "4: ACTIVE" ]
}

# rail_connect N: connect the host over rail N and wait until the namespace
# device is there. Returns 1 with the reason in $rail_err.
rail_connect() {
	if [ "$1" = 0 ]; then
		set -- 0 tcp 10.99.0.1 4421 10.99.0.2
	else
		# nvme-rdma cannot connect while rxeN's port is DOWN.
		wait_for 10 rxe_active "$1" ||
			{ rail_err="rxe$1 not ACTIVE"; return 1; }
		set -- "$1" rdma 10.99.$1.1 4420 10.99.$1.2
	fi
	_rail_ctrl "$1" ||
		nvme connect -t "$2" -a "$3" -s "$4" -w "$5" -n $NQN >/dev/null ||
		{ rail_err="nvme connect -t $2 -a $3 -s $4 -w $5 failed"; return 1; }
	wait_for 20 rail_ns "$1" || { rail_err="no namespace device"; return 1; }
}

# rail_down N: rail N goes away: the host's controller is deleted, the
# subsystem unlinked from the rail's nvmet port (which disables the port),
# then both ends of its veth pair set down. In this order on purpose: with
# the links down first, nvmet-rdma's teardown of the old queues over a DOWN
# rxe port got stuck and the next connect on that rail failed after ~100 s
# (-104). Returns when all of that is done, the rail's block device gone
# (0.2-0.5 s under TCG); 1 and $rail_err on failure. Idempotent.
rail_down() {
	# What nvme disconnect -d does, without starting nvme-cli (slow under TCG).
	! _rail_ctrl "$1" || echo 1 >/sys/class/nvme/$_ctrl/delete_controller ||
		{ rail_err="cannot delete controller $_ctrl"; return 1; }
	rm -f "$CFG/ports/$(rail_port "$1")/subsystems/$NQN" ||
		{ rail_err="cannot unlink port $(rail_port "$1")"; return 1; }
	rail_links "$1" down || { rail_err="cannot set rail $1's links down"; return 1; }
	! _rail_ctrl "$1" || { rail_err="controller $_ctrl still there"; return 1; }
}

# rail_links N up|down: both ends of rail N's veth pair, with one ip command.
rail_links() {
	local d
	for d in $(rail_netdevs "$1"); do
		echo "link set $d $2"
	done | $IP -batch -
}

# rail_up N: the reverse: links up, subsystem linked into the port again,
# host connected (nvme connect); returns once the namespace device is there
# (rail_ns N; 0.7-1.3 s under TCG), 1 and $rail_err on failure. Polls, at
# most 10 s for rxeN's port, 5 s for the port to bind, 20 s for the
# namespace. Idempotent.
rail_up() {
	local p
	rail_links "$1" up || { rail_err="cannot set rail $1's links up"; return 1; }
	p=$(rail_port "$1")
	[ -L "$CFG/ports/$p/subsystems/$NQN" ] || nvmet_link "$p" ||
		{ rail_err="cannot link port $p"; return 1; }
	rail_connect "$1"
}

# ---- PCI topology (run-vm.sh --topology rails) -----------------------------

# The wwid both NVMe controllers' namespace has (see run-vm.sh).
RAILS_WWID=nvme.1b36-7261696c73-51454d55204e564d65204374726c-00000001

# rails_any_ns: a namespace device of the shared namespace, whatever its
# name now (after controllers left and came back).
rails_any_ns() {
	local b
	for b in /sys/block/nvme*n1; do
		[ "$(cat "$b/wwid" 2>/dev/null)" = $RAILS_WWID ] && { echo "${b##*/}"; return 0; }
	done
	return 1
}

# gpu_bdf N: PCI address of "GPU" N, the N-th ivshmem device from 0 in
# address order (rails: GPU0 is the one under the first switch).
gpu_bdf() {
	local i=0 d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ] || continue
		[ $i = "$1" ] && { echo "${d##*/}"; return 0; }
		i=$((i + 1))
	done
	return 1
}

# nvfake, the test double of NVIDIA's peer-memory API (selftests/vm/nvfake),
# on "GPU" $GPU: the driver it is bound to; binding and unbinding it; and
# nvfake_as PARAM...: nvfake loaded again with PARAMs, bound.
NVFAKE=/out/nvfake.ko
gpu_driver() { basename "$(readlink "/sys/bus/pci/devices/$GPU/driver" 2>/dev/null)"; }
nv_bind() {
	echo nvfake >"/sys/bus/pci/devices/$GPU/driver_override"
	echo "$GPU" >/sys/bus/pci/drivers_probe
	[ "$(gpu_driver)" = nvfake ] || fail "nvfake did not bind to $GPU"
}
nv_unbind() { echo "$GPU" >/sys/bus/pci/drivers/nvfake/unbind; }
nvfake_as() {
	nv_unbind
	rmmod nvfake || fail "rmmod nvfake"
	insmod $NVFAKE "$@" || fail "insmod $NVFAKE $*"
	nv_bind
}
# nv_start PARAM...: the module, and nvfake loaded with PARAMs and bound to
# "GPU" 0, $GPU.
nv_start() {
	[ -f $NVFAKE ] || fail "no $NVFAKE (the harness builds it)"
	load_module
	insmod $NVFAKE "$@" || fail "insmod $NVFAKE $*"
	GPU=$(gpu_bdf 0) || fail "no ivshmem device"
	nv_bind
}
# nv_cleanup: nvfake unbound and unloaded, and the module.
nv_cleanup() {
	if [ -n "$GPU" ]; then
		[ "$(gpu_driver)" != nvfake ] || nv_unbind
		echo >"/sys/bus/pci/devices/$GPU/driver_override"
	fi
	module_loaded && rmmod gpupath
	[ ! -d /sys/module/nvfake ] || rmmod nvfake
	true
}

# pci_switch BDF: the upstream port of the PCIe switch the endpoint BDF sits
# behind (the parent of its downstream port); 1 where it is not behind one.
pci_switch() {
	local p dn up
	p=$(readlink -f "/sys/bus/pci/devices/$1") || return 1
	dn=${p%/*}
	up=${dn%/*}
	case ${dn##*/}:${up##*/} in
	*:*:*.*:*:*:*.*) echo "${up##*/}" ;;
	*) return 1 ;;
	esac
}

# switch_nic BDF: the PCI addresses of the NICs (functions with a network
# interface; one a line) under the same switch as BDF, e.g. GPU0's own NIC.
switch_nic() {
	local sw found n p
	sw=$(pci_switch "$1") || return 1
	found=1
	for n in /sys/class/net/*; do
		[ -e "$n/device" ] || continue
		p=$(readlink -f "$n/device")
		case $p in
		*/"$sw"/*) p=${p%/virtio*}; echo "${p##*/}"; found=0 ;;
		esac
	done
	return $found
}

# switch_nvme BDF: the NVMe block devices (nvmeXnY, one a line) whose PCI
# controller sits under the same switch as BDF, e.g. GPU0's own NVMe:
# switch_nvme "$(gpu_bdf 0)".
switch_nvme() {
	local sw found b
	sw=$(pci_switch "$1") || return 1
	found=1
	for b in /sys/block/nvme*; do
		case $(readlink -f "$b") in
		*/"$sw"/*) echo "${b##*/}"; found=0 ;;
		esac
	done
	return $found
}

# ---- volumes -------------------------------------------------------------

# volume_new [ARGS...]: gpupath volume add ARGS; sets $vol (its id) and $VOL
# (its block device).
volume_new() {
	$GP volume add "$@" -j >/tmp/vol.json || fail "volume add $*"
	vol=$(jq .id /tmp/vol.json)
	VOL=/dev/$(jq -r .name /tmp/vol.json)
}

# stack_paths N (stack topology): the per-path devices of namespace N, one
# per controller.
stack_paths() { ls /sys/block | grep -E "^nvme[0-9]+n$1\$" | sort; }

# stack_volumes (stack topology): a volume over the two paths of each of the
# two namespaces; sets vol1 and VOL1, vol2 and VOL2.
stack_volumes() {
	local n p
	[ "$(stack_paths 1 | wc -l)" = 2 ] && [ "$(stack_paths 2 | wc -l)" = 2 ] ||
		fail "two paths to each of two namespaces expected: $(ls /sys/block | tr '\n' ' ')"
	for n in 1 2; do
		volume_new
		for p in $(stack_paths $n); do
			$GP path add "$vol" "/dev/$p" >/dev/null || fail "path add /dev/$p"
		done
		eval "vol$n=$vol VOL$n=$VOL"
	done
	note "volumes: $VOL1 over $(stack_paths 1 | tr '\n' ' '), $VOL2 over $(stack_paths 2 | tr '\n' ' ')"
}

# direct_ios VOLUME_ID: the direct I/Os its paths have counted.
direct_ios() { $GP volume show "$1" -j | jq '[.path_list[].stats.direct_ios] | add // 0'; }

# stack_direct DEVICE SEED BAR_MIB WHAT (after stack_volumes; $prov): device
# memory direct both ways through DEVICE, stacked on $VOL1 and $VOL2: 4 MiB
# of pattern SEED written to DEVICE from host memory are read direct into
# the BAR at BAR_MIB MiB (checked on the host); 2 MiB of pattern SEED+50
# written direct from device memory at 8 MiB read back from DEVICE; each
# volume counts direct I/O of its own.
stack_direct() {
	local dev=$1 seed=$2 off=$(($3 << 20)) what=$4 d1 d2 n1 n2
	d1=$(direct_ios "$vol1") d2=$(direct_ios "$vol2")
	$PATTERN gen $((4 << 20)) "$seed" | dd of="$dev" bs=1M oflag=direct 2>/dev/null ||
		fail "$what: writing the pattern"
	expect_io 0 "mode=direct reason=none" -p direct -o $off read "$prov" "$dev" \
		0 $((4 << 20)) "$seed"
	host_expect bar.img "$(bar_offset)" $((4 << 20)) "$seed" 0
	expect_io 0 "mode=direct reason=none" -p direct write "$prov" "$dev" $((8 << 20)) \
		$((2 << 20)) $((seed + 50))
	dd if="$dev" of=/tmp/stack.w bs=1M skip=8 count=2 iflag=direct 2>/dev/null &&
		$PATTERN check /tmp/stack.w 0 $((2 << 20)) $((seed + 50)) $((8 << 20)) ||
		fail "$what: the direct write through $dev is not on it"
	n1=$(($(direct_ios "$vol1") - d1)) n2=$(($(direct_ios "$vol2") - d2))
	note "$what: direct through $dev; direct I/Os on the volumes: $n1, $n2"
	[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "$what: a volume below had no direct I/O"
}

# path_of RAIL: the id of $vol's path on that rail.
path_of() {
	$GP volume show "$vol" -j | jq -e --argjson r "$1" '.path_list[] | select(.rail == $r) | .id'
}

# pcie_flap R (rails topology): the NVMe controller under GPU R's switch
# ($g0 or $g1) leaves the PCI bus and comes back by a rescan; $vol's path on
# rail R is deleted and the new namespace added there. Sets flap_ctrl (the
# controller's address) and flap_ns (the new namespace); on failure flap_err
# says why.
pcie_flap() {
	local r=$1 g n old
	eval g=\$g$r
	n=$(switch_nvme "$g" | head -1) || { flap_err="no namespace under rail $r's switch"; return 1; }
	flap_ctrl=$(basename "$(readlink -f "/sys/block/$n/device/device")")
	old=$(path_of "$r") || { flap_err="no path on rail $r"; return 1; }
	echo 1 >"/sys/bus/pci/devices/$flap_ctrl/remove" || { flap_err="remove $flap_ctrl"; return 1; }
	$GP path del "$old" || { flap_err="path del $old"; return 1; }
	sleep 1
	echo 1 >/sys/bus/pci/rescan
	wait_for 30 switch_nvme "$g" || { flap_err="rail $r's namespace did not come back"; return 1; }
	flap_ns=$(switch_nvme "$g" | head -1)
	$GP path add "$vol" "/dev/$flap_ns" rail "$r" >/dev/null ||
		{ flap_err="path add /dev/$flap_ns"; return 1; }
}

# volumes_del_all: remove every volume there is (for cleanups).
volumes_del_all() {
	$GP volume show -j 2>/dev/null | jq -r '.volumes[].id' 2>/dev/null |
		while read -r v; do $GP volume del "$v"; done
}

# failover_due BEFORE AFTER: whether the volume's statistics from
# BEFORE to AFTER (files of "gpupath volume show ID -j") must count a
# failover when a path's controller was deleted under I/O. An I/O retried
# on another path is one. Without one, a kernel that tells a disk's holder
# of its deletion (the "path-removal" feature) may have taken the path out
# of use before any I/O failed on it: nothing needed to fail over, and the
# function says so in $failover_why. Elsewhere the next I/O on the deleted
# disk fails, and is retried.
failover_due() {
	retry_due $(( $(jq .stats.retries "$2") - $(jq .stats.retries "$1") ))
}
# retry_due RETRIED: the same from the number of I/Os RETRIED.
retry_due() {
	failover_why=
	[ "$1" -gt 0 ] && return 0
	$GP show -j | jq -e '.module.features | index("path-removal")' >/dev/null || return 0
	failover_why="no I/O was retried: the kernel told the volume of each deletion first"
	return 1
}

# ---- tenants: cgroups and users --------------------------------------------

CG=/sys/fs/cgroup
# cgroup_setup: cgroup v2 mounted at $CG, the io controller on for its children.
cgroup_setup() {
	grep -qs " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG || fail "mount cgroup2"
	grep -qw io $CG/cgroup.controllers || fail "no io controller in cgroup2"
	echo +io >$CG/cgroup.subtree_control || fail "enable the io controller"
}
# in_cg CG UID CMD...: CMD as user UID (group UID, no other groups) in cgroup CG.
in_cg() {
	local cg=$1 uid=$2
	shift 2
	sh -c 'echo $$ >"$0" && exec "$@"' "$CG/$cg/cgroup.procs" \
		/usr/bin/setpriv --reuid "$uid" --regid "$uid" --clear-groups "$@"
}

# ---- device memory -------------------------------------------------------

# bind_bar [BDF]: bind the ivshmem "GPU" (the first one, or BDF) to
# gpupath's stub driver; prints its provider id.
bind_bar() {
	if [ -n "${1:-}" ]; then
		bar=/sys/bus/pci/devices/$1
	else
		bar=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
	fi
	bdf=${bar##*/}
	echo gpupath >"$bar/driver_override"
	echo "$bdf" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$bar/driver")")" = gpupath ] || fail "stub did not bind to $bdf"
	$GP provider show -j | jq -e --arg d "$bdf" '.providers[] | select(.pci_dev == $d) | .id'
}

unbind_bar() {	# [BDF], as bind_bar
	if [ -n "${1:-}" ]; then
		bar=/sys/bus/pci/devices/$1
	else
		bar=$(pci_dev 0x1af4 0x1110) || return 0
	fi
	[ -e "$bar/driver" ] && echo "${bar##*/}" >"$bar/driver/unbind"
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

# cufile_file_direct PROVIDER FILE SEED: the cuFile program (gp-cufile,
# built against libcufile) on FILE, 8 MiB of pattern SEED: its reads and its
# write (pattern SEED+1 at 6 MiB) must go direct, the write reach the file.
cufile_file_direct() {
	$CUFILE "$1" "$2" "$3" >/tmp/cuf.out 2>&1 || { cat /tmp/cuf.out; fail "gp-cufile on $2"; }
	grep '^io ' /tmp/cuf.out
	grep -q '^io registered.* mode=direct reason=none$' /tmp/cuf.out ||
		fail "cuFileRead not direct"
	grep -q '^io write mode=direct reason=none$' /tmp/cuf.out || fail "cuFileWrite not direct"
	$PATTERN check "$2" $((6 << 20)) $((1 << 20)) $(($3 + 1)) ||
		fail "the cuFile write did not reach $2"
}

# host_expect FILE OFFSET LEN SEED POS: the harness checks FILE on the host
# (bar.img or nvme.img; bar0.img or bar1.img in the rails topology) for
# pattern SEED at OFFSET, positions from POS.
host_expect() {
	echo "$*" >>/out/host.expect
}

bar_offset() { echo "$io_out" | sed -n 's/.*bar_offset=\([0-9]*\).*/\1/p'; }

# fio_start LOOPS: fio writing and verifying (crc32c) 16 MiB at 32 MiB of
# $VOL, in the background; fio_check WHAT waits and fails the test on any
# error.
fio_start() {
	fio --name=v --filename="$VOL" --rw=randwrite --bs=64k --offset=32M --size=16M \
		--verify=crc32c --verify_state_save=0 --direct=1 --ioengine=libaio --iodepth=8 \
		--loops="$1" >/tmp/fio.out 2>&1 &
	fio_pid=$!
}
fio_check() {
	wait "$fio_pid" || { cat /tmp/fio.out; fail "fio verify failed ($1)"; }
	fio_pid=
	grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors ($1)"; }
}

# fio_loop_start: fio verify (as fio_start) run after run in the background
# until fio_loop_stop, which fails the test unless every run passed and sets
# $fio_runs. For phases of unknown length.
fio_loop_start() {
	rm -f /tmp/fio.stop /tmp/fio.out /tmp/fio.runs
	(
		n=0
		while [ ! -e /tmp/fio.stop ]; do
			fio --name=v --filename="$VOL" --rw=randwrite --bs=64k --offset=32M \
				--size=16M --verify=crc32c --verify_state_save=0 --direct=1 \
				--ioengine=libaio --iodepth=8 >/tmp/fio.last 2>&1 &&
				grep -q "err= 0" /tmp/fio.last ||
				{ cat /tmp/fio.last >>/tmp/fio.out; echo failed >/tmp/fio.runs; exit 1; }
			n=$((n + 1))
			echo "$n" >/tmp/fio.runs
		done
	) &
	fio_pid=$!
}
fio_loop_stop() {
	touch /tmp/fio.stop
	[ -n "${fio_pid:-}" ] || return 0
	wait "$fio_pid" || fail "fio verify failed ($1): $(cat /tmp/fio.out)"
	fio_pid=
	fio_runs=$(cat /tmp/fio.runs)
	[ "$fio_runs" -ge 1 ] 2>/dev/null || fail "fio ($1): $fio_runs runs"
}
# fio_loop_ok: no run has failed so far.
fio_loop_ok() { [ "$(cat /tmp/fio.runs 2>/dev/null)" != failed ]; }

# daemon_cleanup PORTAL...: what a test of gpupathd ($gpd, logging to
# /tmp/gpupathd.log) leaves, undone: a fio loop stopped, the daemon killed
# (the tail of its log shown), the portals deleted, the volumes and the
# controllers of the test's subsystem removed. The rails stay.
daemon_cleanup() {
	local p c
	touch /tmp/fio.stop
	[ -z "${fio_pid:-}" ] || wait "$fio_pid" 2>/dev/null
	if [ -n "${gpd:-}" ]; then
		kill "$gpd" 2>/dev/null
		grep -v "notification on" /tmp/gpupathd.log | tail -25 | sed 's/^/gpupathd: /'
	fi
	for p in "$@"; do $GP portal del "$p" >/dev/null 2>&1; done
	volumes_del_all
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && echo 1 >"$c/delete_controller"
	done 2>/dev/null
}

# two_paths: the volume of the test's namespace ($UUID) has two usable paths.
two_paths() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 2 ]
}

# kmemleak (debug kernels): kmemleak_clear forgets what is there now;
# kmemleak_check WHAT fails the test on any new suspect, after the 5 s
# kmemleak waits before reporting an object. Returns 1 without kmemleak.
KML=/sys/kernel/debug/kmemleak
kmemleak_clear() { [ -w $KML ] && echo clear >$KML; }
kmemleak_check() {
	[ -w $KML ] || return 1
	sleep 6
	echo scan >$KML
	echo scan >$KML
	# (debugfs files have no size: read it to know)
	cat $KML >/tmp/kmemleak.txt
	[ -s /tmp/kmemleak.txt ] || return 0
	# Each suspect as one line, with its backtrace, into the kernel log
	# too: judged there (check-kernel-log.sh) as here, against the known
	# upstream leaks.
	awk '/^unreferenced object/ { if (l != "") print l; l = $0; bt = 0; next }
	     /backtrace/ { l = l " backtrace:"; bt = 1; next }
	     bt || /comm "/ { sub(/^ +/, ""); l = l " " $0 }
	     END { if (l != "") print l }' /tmp/kmemleak.txt | cut -c1-900 >/tmp/kmemleak.lines
	while IFS= read -r l; do echo "$l" >/dev/kmsg; done </tmp/kmemleak.lines
	if ! sh /src/selftests/vm/check-kernel-log.sh /tmp/kmemleak.lines >/tmp/kmemleak.check; then
		head -c 20000 /tmp/kmemleak.txt
		fail "kmemleak reports $(grep -c '^unreferenced object' /tmp/kmemleak.txt) leaks after $1"
	fi
	note "kmemleak after $1: known upstream leaks only ($(grep -c "^known" /tmp/kmemleak.check)):"
	sed -n 's/^known upstream report: /  /p' /tmp/kmemleak.check
	# Not to be counted again by the next check.
	echo clear >$KML
}

# fmr_fail DEV TIMES: the next TIMES bios sent to block device DEV fail at
# submission (fail_make_request); fmr_spent: all TIMES have failed;
# fmr_off DEV stops it.
FMR=/sys/kernel/debug/fail_make_request
# have_fmr WHAT: whether this kernel has fail_make_request; if not, WHAT is
# reported as a skipped part (Debian's stock kernels have no fault injection).
have_fmr() {
	[ -d $FMR ] && return 0
	skip_part "$1" "this kernel has no fail_make_request (CONFIG_FAIL_MAKE_REQUEST)"
	return 1
}
fmr_fail() {
	echo 100 >$FMR/probability
	echo 1 >$FMR/interval
	echo 0 >$FMR/verbose
	echo "$2" >$FMR/times
	echo 1 >"/sys/block/$1/make-it-fail"
}
fmr_spent() { [ "$(cat $FMR/times)" = 0 ]; }
fmr_off() {
	echo 0 >"/sys/block/$1/make-it-fail"
	echo 0 >$FMR/probability
}
