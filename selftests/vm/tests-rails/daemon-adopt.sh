# SPDX-License-Identifier: GPL-2.0
# gpupathd adopts controllers connected by hand from any address of a
# rail's interface: each rail's interface has a second address, and the
# controllers were connected from it (nvme connect -w) before the portals
# (rails named by interface alone) were added. The daemon takes them as
# they are, whatever address they use (host_traddr, nvme-tcp's src_addr),
# and connects nothing twice: one controller per rail, adopted, reported in
# the portals, and a volume with both paths that reads right.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
cleanup() {
	daemon_cleanup rail1 tcp
	rails_teardown
}
trap cleanup EXIT
rails_targets
$PATTERN gen $((16 * MiB)) 521 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
$IP addr add 10.99.1.3/24 dev rail1 && $IP addr add 10.99.0.3/24 dev veth1 ||
	fail "second addresses"

# ours: the controllers to the test's subsystem, as transport:address lines.
ours() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		echo "${c##*/} $(cat "$c/transport"):$(cat "$c/address")"
	done | sort
}
nvme connect -t rdma -a 10.99.1.1 -s 4420 -n $NQN -w 10.99.1.3 >/dev/null ||
	fail "connect rdma by hand"
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN -w 10.99.0.3 >/dev/null ||
	fail "connect tcp by hand"
wait_for 20 sh -c "[ \$(ls -d /sys/class/nvme/nvme*/nvme*n1 2>/dev/null | wc -l) -ge 2 ]" ||
	fail "no namespaces: $(ours)"
ours | tee /tmp/ctrls.before
[ "$(wc -l </tmp/ctrls.before)" = 2 ] || fail "not two controllers by hand"
grep -q "rdma:.*host_traddr=10.99.1.3" /tmp/ctrls.before &&
	grep -q "tcp:.*src_addr=10.99.0.3" /tmp/ctrls.before ||
	fail "the hand-made controllers do not use the second addresses"

gpd_start /tmp/gpupathd.log
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1 >/dev/null ||
	fail "portal rail1"
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN rails 2:veth1 \
	>/dev/null || fail "portal tcp"
adopted() {
	[ "$($GP portal show -j | jq -c '[.portals[].connections[].state] | sort')" = \
	  '["adopted","adopted"]' ]
}
wait_for 30 adopted || fail "not adopted: $($GP portal show)"
wait_for 30 two_paths || fail "no volume with two paths: $($GP volume show)"
# A few passes later, still the same two controllers.
kill -HUP "$gpd"
sleep 3
ours | diff /tmp/ctrls.before - || fail "the daemon connected a controller twice"
! grep "connecting" /tmp/gpupathd.log || fail "the daemon connected"
for p in rail1 tcp; do
	ctrl=$($GP portal show $p -j | jq -r '.connections[0].controller')
	grep -q "^$ctrl " /tmp/ctrls.before || fail "portal $p reports $ctrl, not the hand-made one"
done
$GP volume show -j >/tmp/v.json
VOL=/dev/$(jq -r ".volumes[] | select(.wwid == \"uuid.$UUID\") | .name" /tmp/v.json)
dd if="$VOL" of=/tmp/vol.read bs=64k count=256 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 521 || fail "$VOL read wrong data"
note "controllers made by hand from 10.99.1.3 (rdma) and 10.99.0.3 (tcp) adopted by" \
	"portals with rails rail1 and veth1; nothing connected twice; $VOL reads right"
