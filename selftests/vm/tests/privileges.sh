# SPDX-License-Identifier: GPL-2.0
# An unprivileged user (uid 1000, no groups, no capabilities):
#  - reads the configuration, but every change (providers, volumes, paths,
#    portals, QoS classes) is refused with EPERM and a message, and nothing
#    changes;
#  - root with CAP_NET_ADMIN alone (setpriv) manages QoS classes, but
#    providers, volumes and paths, which register P2P memory and claim NVMe
#    namespaces, and portals, which root's gpupathd connects, reads secret
#    files for and turns into volumes, are refused with EPERM: they need
#    CAP_SYS_ADMIN too;
#  - a portal's secret-file paths are shown to CAP_SYS_ADMIN only;
#  - of the users and cgroups holding a provider's memory, a user sees
#    its own entries only (root sees all);
#  - uses /dev/gpupath (mode 0666) for its own memory only: gp-priv check
#    (selftests/vm/priv.c) runs as the user, each refusal with its errno;
#  - cannot open a block device for writing that it may only read, so has
#    no descriptor to write through;
#  - an ALLOC or REG_HOST whose answer cannot be copied back leaves no
#    buffer held (gp-priv copyout, under a user limit of 1 MiB);
#  - cannot pile up kernel memory with I/Os it never reaps: past
#    GPUPATH_INFLIGHT_MAX per open file, SUBMIT fails with EAGAIN (gp-priv
#    flood, on a tmpfs file whose I/Os complete at once).
. /src/selftests/vm/guest-lib.sh

PRIV=/usr/libexec/gpupath/gp-priv
U=1000
modprobe null_blk nr_devices=1 gb=1 || fail "null_blk"
load_module
cleanup() {
	unbind_bar
	rmmod null_blk 2>/dev/null
}
trap cleanup EXIT
prov=$(bind_bar) || fail "bind the BAR"
chmod 0644 /dev/nullb0
user() { $PRIV as $U "$@"; }

[ "$(user id -u)" = $U ] || fail "gp-priv as $U runs as $(user id -u)"
user $GP show >/dev/null || fail "a user cannot read the configuration"
user $GP provider show -j | jq -e ".providers[0].id == $prov" >/dev/null ||
	fail "a user does not see the provider"
$GP show -j | jq -S 'del(.stats)' >/tmp/before.json
refused() {
	out=$(user $GP "$@" 2>&1)
	rc=$?
	echo "as uid $U: gpupath $* -> $out (exit $rc)"
	[ $rc = 1 ] && echo "$out" | grep -q "Operation not permitted" ||
		fail "gpupath $* was not refused with EPERM"
}
refused qos add q dscp 10
refused portal add p transport tcp traddr 10.99.0.1 nqn $NQN
refused provider del "$prov"
refused provider add 0000:00:01.0
refused volume add policy round-robin
refused path set 1 weight 2
refused volume set 1 policy weighted
$GP show -j | jq -S 'del(.stats)' | diff /tmp/before.json - ||
	fail "a refused change changed something"
note "uid $U: 7 configuration changes refused with EPERM, nothing changed"

# Root with CAP_NET_ADMIN only.
netadmin() { /usr/bin/setpriv --inh-caps=-all --bounding-set=-all,+net_admin "$@"; }
caps=$(netadmin grep CapEff /proc/self/status)
[ "${caps##*[	 ]}" = 0000000000001000 ] || fail "setpriv left: $caps"
sys_refused() {
	out=$(netadmin $GP "$@" 2>&1)
	rc=$?
	echo "CAP_NET_ADMIN only: gpupath $* -> $out (exit $rc)"
	[ $rc = 1 ] && echo "$out" | grep -q "Operation not permitted" &&
		echo "$out" | grep -q CAP_SYS_ADMIN ||
		fail "gpupath $* was not refused with EPERM for want of CAP_SYS_ADMIN"
}
sys_refused volume add policy round-robin
sys_refused volume set 1 policy weighted
sys_refused volume del 1
sys_refused path add 1 /dev/nullb0
sys_refused path set 1 weight 2
sys_refused path del 1
sys_refused provider del "$prov"
sys_refused provider add 0000:00:01.0
sys_refused portal add pn transport tcp traddr 10.99.0.1 nqn $NQN
netadmin $GP qos add qn dscp 12 >/dev/null || fail "CAP_NET_ADMIN cannot add a QoS class"
$GP portal add pn transport tcp traddr 10.99.0.1 nqn $NQN qos qn >/dev/null ||
	fail "root cannot add a portal"
sys_refused portal set pn reconnect-delay 5
sys_refused portal del pn
$GP portal del pn >/dev/null || fail "root cannot delete a portal"
netadmin $GP qos del qn >/dev/null || fail "CAP_NET_ADMIN cannot delete a QoS class"
$GP show -j | jq -S 'del(.stats)' | diff /tmp/before.json - ||
	fail "a refused change changed something"
note "CAP_NET_ADMIN only: 11 provider, volume, path and portal changes refused, QoS managed"

# A portal's secret files: named to CAP_SYS_ADMIN, to nobody else.
umask 077
echo "DHHC-1:00:$(head -c 32 /dev/urandom | base64 | head -c 44):" >/tmp/host.key
$GP portal add ps transport tcp traddr 10.99.0.1 nqn $NQN host-nqn $NQN:host \
	host-id 2a1e0b6c-5d4f-4e3a-9b8c-7d6e5f4a3b2c dhchap-secret-file /tmp/host.key >/dev/null || fail "portal add with a secret file"
$GP portal show ps -j | grep -q /tmp/host.key || fail "root does not see the secret file"
user $GP portal show ps -j >/tmp/uportal.json || fail "a user cannot read the portal"
grep -q /tmp/host.key /tmp/uportal.json && fail "a user sees the portal's secret file"
netadmin $GP portal show -j | grep -q /tmp/host.key && fail "CAP_NET_ADMIN sees the secret file"
$GP portal del ps >/dev/null || fail "portal del"
rm -f /tmp/host.key
umask 022
note "a portal's secret files: shown to CAP_SYS_ADMIN only"

user $PRIV check "$prov" /dev/nullb0 >/tmp/priv.out 2>&1
rc=$?
cat /tmp/priv.out
[ $rc = 0 ] || fail "gp-priv check as uid $U: exit $rc"
grep -q "^uid $U euid $U$" /tmp/priv.out || fail "gp-priv check did not run as $U"
note "uid $U: $(grep -c '^pass' /tmp/priv.out) device and host memory checks passed"
! user sh -c 'exec 3>/dev/nullb0' 2>/dev/null || fail "uid $U opened /dev/nullb0 for writing"
$GP provider set "$prov" user-limit 1M || fail "user-limit 1M"
user $PRIV copyout "$prov" >/tmp/copyout.out 2>&1
rc=$?
cat /tmp/copyout.out
$GP provider set "$prov" user-limit none || fail "user-limit none"
[ $rc = 0 ] || fail "gp-priv copyout as uid $U: exit $rc"
echo flood >/tmp/flood.txt && chmod 0644 /tmp/flood.txt
user $PRIV flood /tmp/flood.txt >/tmp/flood.out 2>&1
rc=$?
grep -v '^pass' /tmp/flood.out
[ $rc = 0 ] || fail "gp-priv flood as uid $U: exit $rc"
note "uid $U: $(sed -n 's/^started //p' /tmp/flood.out) I/Os started unreaped, then EAGAIN;" \
	"kernel memory grew $(sed -n 's/^kernel_kib //p' /tmp/flood.out) KiB"
$GP provider show -j | jq -e '([.providers[].allocated] | add // 0) == 0' >/dev/null ||
	fail "the user's device memory was not freed: $($GP provider show)"

# Who holds the provider's memory: each user sees itself, root sees all.
cat >/tmp/hold.py <<'PY'
import fcntl, os, struct, sys
fd = os.open("/dev/gpupath", os.O_RDWR)
alloc = bytearray(struct.pack("IIQQQQII", int(sys.argv[1]), 0, 1 << 20, 0, 0, 0, 0, 0))
fcntl.ioctl(fd, (3 << 30) | (len(alloc) << 16) | (0xB9 << 8) | 1, alloc)
print("held", flush=True)
sys.stdin.read()
PY
mkfifo /tmp/hold.root /tmp/hold.user
chmod 0644 /tmp/hold.py && chown $U /tmp/hold.user
python3 /tmp/hold.py "$prov" </tmp/hold.root >/tmp/held.root &
user python3 /tmp/hold.py "$prov" </tmp/hold.user >/tmp/held.user &
exec 5>/tmp/hold.root 6>/tmp/hold.user
wait_for 10 grep -q held /tmp/held.root && wait_for 10 grep -q held /tmp/held.user ||
	fail "holding device memory as root and as uid $U"
usage() { jq -c --argjson p "$prov" '[.providers[] | select(.id == $p) | .usage[] | .uid // "cg"]'; }
all=$($GP provider show -j | usage)
mine=$(user $GP provider show -j | usage)
exec 5>&- 6>&-
wait
rm -f /tmp/hold.root /tmp/hold.user
note "provider usage: root sees $all, uid $U sees $mine"
echo "$all" | jq -e 'index(0) != null and index(1000) != null' >/dev/null ||
	fail "root does not see both users"
echo "$mine" | jq -e 'index(1000) != null and index(0) == null' >/dev/null ||
	fail "uid $U sees other users' memory"
