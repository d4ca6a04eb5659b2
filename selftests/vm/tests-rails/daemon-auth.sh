# SPDX-License-Identifier: GPL-2.0
# DH-HMAC-CHAP per portal: nvmet admits one host NQN with its secrets, and
# gpupathd connects as that host, with the secrets read from root-only
# files. Bad settings are refused by the CLI and the module; a wrong or
# exposed secret leaves its portal backing off with the reason, the other
# portal untouched; a secret rotated on the target and in the file is
# taken by the live controllers (the kernel authenticates them again) and
# by a reconnect, and bidirectional authentication is set up and refused
# with a wrong controller secret, all under fio verify with 0 errors. No
# secret appears in the daemon's log, the dumps or its state files.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
HID=7a3c0e52-5b1d-4f3e-9a63-2b8f7d1c4e90
HNQN=nqn.2014-08.org.nvmexpress:uuid:$HID
# DHHC-1 secrets (TP 8006): a SHA-256 one, then plain ones.
HKEY='DHHC-1:01:JDE+S1hlcn+MmaazwM3a5/QBDhsoNUJPXGl2g5CdqrfAJRIr:'
HKEY2='DHHC-1:00:Ym98iZajsL3K1+Tx/gsYJTI/TFlmc4CNmqe0wc7b6PUfRpOK:'
WRONG='DHHC-1:00:gY6bqLXCz9zp9gMQHSo3RFFea3iFkp+sucbT4O36BxR1v7bt:'
CKEY='DHHC-1:00:Q1BdaneEkZ6ruMXS3+z5BhMgLTpHVGFue4iVoq+8ydbj8P0KFyQxPktYZXJ/jJmm4RG9aw==:'
CWRONG='DHHC-1:00:oK26x9Th7vsIFSIvPElWY3B9ipeksb7L2OXy/wwZJjNATVpndIGOm6i1ws/c6fYDNdu4WA==:'
KEYS=/etc/gpupath/keys
THOST=$CFG/hosts/$HNQN

load_module
# A refused authentication ends when the kernel's connect returns: on Linux
# 6.12 against nvmet that can be one admin timeout (60 s) after another,
# waiting for an answer nvmet never sends (Documentation/fabric.md). The
# daemon cannot end it sooner: the test waits four admin timeouts and 20 s,
# the timeout made 20 s here for the controllers it connects.
AT=/sys/module/nvme_core/parameters/admin_timeout
at0=$(cat $AT)
echo 20 >$AT || fail "admin_timeout"
REFUSED_WAIT=$((4 * 20 + 20))
cleanup() {
	echo "$at0" >$AT
	daemon_cleanup rail1 tcp
	rm -f "$CFG/subsystems/$NQN/allowed_hosts/$HNQN"
	rmdir "$THOST" 2>/dev/null
	rm -rf $KEYS
	rails_teardown
}
trap cleanup EXIT
rails_targets
$PATTERN gen $((64 * MiB)) 907 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null

# The target admits $HNQN only, which authenticates with $HKEY (SHA-256, ffdhe2048).
echo 0 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
	mkdir "$THOST" &&
	echo 'hmac(sha256)' >"$THOST/dhchap_hash" &&
	echo ffdhe2048 >"$THOST/dhchap_dhgroup" &&
	echo "$HKEY" >"$THOST/dhchap_key" &&
	ln -s "$THOST" "$CFG/subsystems/$NQN/allowed_hosts/$HNQN" || fail "nvmet host $HNQN"

mkdir -p -m 700 $KEYS
# put_key NAME SECRET: a root-only file, which takes the old one's place at once.
put_key() {
	(umask 077 && printf '%s\n' "$2" >"$KEYS/.$1" && mv "$KEYS/.$1" "$KEYS/$1") ||
		fail "key file $1"
}
put_key host "$HKEY"
put_key tcp-host "$WRONG"

# ---- bad settings: refused with the reason, nothing added -----------------
refused() {	# WHAT EXPECTED-MESSAGE ARGS...
	local what=$1 msg=$2
	shift 2
	if $GP portal add bad transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN "$@" \
		>/tmp/out 2>&1; then
		fail "$what: accepted"
	fi
	grep -q "$msg" /tmp/out || fail "$what: '$(cat /tmp/out)' does not say '$msg'"
	[ "$($GP portal show -j | jq '.portals | length')" = 0 ] || fail "$what: a portal was added"
}
refused "host NQN that is not an NQN" "not an NVMe qualified name" host-nqn tenant-a
refused "host ID that is not a UUID" "not a UUID" host-nqn "$HNQN" host-id 1234
refused "relative secret file" "not an absolute path" dhchap-secret-file keys/host
refused "controller secret alone" "needs a host secret" dhchap-ctrl-secret-file $KEYS/host
refused "own host NQN without host ID" "needs a host ID" \
	host-nqn nqn.2026-11.io.gpupath:tenant-a dhchap-secret-file $KEYS/host
note "bad settings refused: a host NQN that is not one, a host ID that is not a UUID," \
	"a relative secret file, a controller secret alone, an own NQN without an ID"

# ---- the daemon connects as $HNQN; a wrong secret is refused --------------
mark_dmesg
gpd_start /tmp/gpupathd.log
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1 \
	host-nqn "$HNQN" dhchap-secret-file $KEYS/host reconnect-delay 1 >/dev/null ||
	fail "portal rail1"
# (tcp retries after 5 s: time to replace its wrong secret before a second
# attempt, which Linux 6.12 may hang in against nvmet, see fabric.md)
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN rails 2:@10.99.0.2 \
	host-nqn "$HNQN" dhchap-secret-file $KEYS/tcp-host reconnect-delay 5 >/dev/null ||
	fail "portal tcp"
state() { $GP portal show "$1" -j | jq -r '.connections[0].state'; }
ctrl_of() { $GP portal show "$1" -j | jq -r '.connections[0].controller'; }
wait_for 30 sh -c "[ \"\$($GP portal show rail1 -j | jq -r '.connections[0].state')\" = live ]" ||
	fail "rail1 not live: $($GP portal show rail1)"
c1=$(ctrl_of rail1)
[ "$(cat /sys/class/nvme/$c1/hostnqn)" = "$HNQN" ] || fail "$c1 is not host $HNQN"
[ "$(cat /sys/class/nvme/$c1/dhchap_secret)" = "$HKEY" ] || fail "$c1 has not the host secret"
dmesg | grep -q "$c1: qid 0: authenticated" || fail "$c1: no authentication in the kernel log"
# backing_off PORTAL: it failed an attempt and waits for the next one (an
# attempt in flight shows "connecting", so both are read in one dump).
backing_off() {
	$GP portal show "$1" -j |
		jq -e '.connections[0] | .attempts >= 1 and .state == "backoff"' >/dev/null
}
wait_for $REFUSED_WAIT backing_off tcp || fail "tcp with a wrong secret: $($GP portal show tcp)"
err=$($GP portal show tcp -j | jq -r '.connections[0].error')
[ "$err" = "Key was rejected by service" ] || fail "tcp's error is '$err'"
grep -q "portal tcp: .*authentication failed" /tmp/gpupathd.log ||
	fail "no authentication failure in the daemon's log"
note "rail1 connected as $HNQN and authenticated ($c1); tcp with a wrong secret: backoff," \
	"'$err'"

# An exposed secret file is refused before it is read; fixed, it connects.
# (made 0644 before it takes the file's place: the daemon never reads it 0600)
(umask 022 && printf '%s\n' "$HKEY" >$KEYS/.tcp-host && mv $KEYS/.tcp-host $KEYS/tcp-host) ||
	fail "exposed key file"
wait_for 30 grep -q "portal tcp: host secret $KEYS/tcp-host: group or others may access it" \
	/tmp/gpupathd.log || fail "a world-readable secret file was not refused"
[ "$(state tcp)" = backoff ] || fail "tcp with an exposed secret is $(state tcp)"
[ "$(state rail1)" = live ] || fail "rail1 is $(state rail1) while tcp fails"
chmod 600 $KEYS/tcp-host
wait_for 40 sh -c "[ \"\$($GP portal show tcp -j | jq -r '.connections[0].state')\" = live ]" ||
	fail "tcp not live with the right secret: $($GP portal show tcp)"
c0=$(ctrl_of tcp)
note "a world-readable secret file refused (mode 0644), then tcp live ($c0) once it is 0600"

wait_for 30 two_paths || fail "no volume with two paths: $($GP volume show)"
VOL=/dev/$($GP volume show -j | jq -r ".volumes[] | select(.wwid == \"uuid.$UUID\") | .name")
dd if="$VOL" of=/tmp/vol.read bs=$MiB count=16 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 907 || fail "$VOL read wrong data"

# ---- rotation under I/O ----------------------------------------------------
fio_loop_start
sleep 2
mark_dmesg
echo "$HKEY2" >"$THOST/dhchap_key" || fail "rotate the target's secret"
put_key host "$HKEY2"
put_key tcp-host "$HKEY2"
kill -HUP "$gpd"
rotated() {
	[ "$(cat /sys/class/nvme/$c1/dhchap_secret)" = "$HKEY2" ] &&
		[ "$(cat /sys/class/nvme/$c0/dhchap_secret)" = "$HKEY2" ]
}
wait_for 20 rotated || fail "the live controllers did not take the new secret"
wait_for 10 sh -c "[ \$(dmesg | grep -c 'qid 0: authenticated') -ge 2 ]" ||
	fail "no re-authentication: $(dmesg | grep -i auth)"
! dmesg | grep -q "authentication failed" || fail "re-authentication failed: $(dmesg | grep -i auth)"
[ "$(state rail1) $(state tcp)" = "live live" ] || fail "after rotation: $(state rail1) $(state tcp)"
# rail1 connected anew: with the new secret, while I/O goes on over tcp.
echo 1 >/sys/class/nvme/$c1/delete_controller
wait_for 30 sh -c "c=\$($GP portal show rail1 -j | jq -r '.connections[0] | .state + \" \" + .controller'); [ \"\${c%% *}\" = live ] && [ \"\${c#* }\" != $c1 ]" ||
	fail "rail1 not connected anew: $($GP portal show rail1)"
c1=$(ctrl_of rail1)
[ "$(cat /sys/class/nvme/$c1/dhchap_secret)" = "$HKEY2" ] || fail "$c1 connected without the new secret"
note "secret rotated on the target and in the files: $c0 and the old rail1 controller" \
	"authenticated again, rail1 reconnected as $c1 with it"

# ---- bidirectional -------------------------------------------------------------
echo "$CKEY" >"$THOST/dhchap_ctrl_key" || fail "the target's controller secret"
put_key ctrl "$CKEY"
$GP portal set rail1 dhchap-ctrl-secret-file $KEYS/ctrl >/dev/null || fail "portal set ctrl secret"
[ "$($GP portal show rail1 -j | jq -r .dhchap_ctrl_secret_file)" = $KEYS/ctrl ] ||
	fail "the controller secret's file is not shown"
echo 1 >/sys/class/nvme/$c1/delete_controller
# Connected anew (the kernel may give it the same name): live, with the secret.
bidir() {
	local c
	c=$(ctrl_of rail1) && [ "$(state rail1)" = live ] &&
		[ "$(cat /sys/class/nvme/$c/dhchap_ctrl_secret 2>/dev/null)" = "$CKEY" ]
}
wait_for 30 bidir || fail "rail1 not connected bidirectionally: $($GP portal show rail1)"
c1=$(ctrl_of rail1)
[ "$(cat /sys/class/nvme/$c1/dhchap_ctrl_secret)" = "$CKEY" ] ||
	fail "$c1 does not authenticate the controller"
# A controller secret the target does not have: the host refuses the
# controller. (Linux 6.12's host then waits for nvmet's answer to its
# failure message, which nvmet, having torn the controller down, never
# sends: the connect hangs in the kernel, admin timeout after admin
# timeout. Exercised where the kernel returns, 6.1.)
case $(uname -r) in
6.1.*)
	put_key ctrl "$CWRONG"
	echo 1 >/sys/class/nvme/$c1/delete_controller
	wait_for $REFUSED_WAIT backing_off rail1 ||
		fail "rail1 with a wrong controller secret: $($GP portal show rail1)"
	err=$($GP portal show rail1 -j | jq -r '.connections[0].error')
	[ "$err" = "Key was rejected by service" ] || fail "rail1's error is '$err'"
	[ "$(state tcp)" = live ] || fail "tcp is $(state tcp) while rail1 fails"
	put_key ctrl "$CKEY"
	wait_for 40 sh -c "[ \"\$($GP portal show rail1 -j | jq -r '.connections[0].state')\" = live ]" ||
		fail "rail1 not live again: $($GP portal show rail1)"
	note "bidirectional: $($GP portal show rail1 -j | jq -r .connections[0].controller)" \
		"authenticates the controller; a wrong controller secret refused, then fixed"
	;;
*)
	note "bidirectional: $c1 authenticates the controller (a wrong controller secret is" \
		"not tried on $(uname -r): its host hangs in the connect against nvmet)"
	;;
esac
fio_loop_stop "rotation and reconnects"
runs=$fio_runs
two_paths || fail "not two paths at the end: $($GP volume show)"

# ---- no secret anywhere but the files and the kernel ---------------------------
for k in "$HKEY" "$HKEY2" "$CKEY" "$CWRONG" "$WRONG"; do
	b64=${k#DHHC-1:??:}
	b64=${b64%:}
	! grep -qF "$b64" /tmp/gpupathd.log || fail "a secret in the daemon's log"
	! $GP portal show -j | grep -qF "$b64" || fail "a secret in the portal dump"
	! grep -rqF "$b64" /run/gpupath 2>/dev/null || fail "a secret in /run/gpupath"
done
note "fio verify: $runs runs, 0 errors, through rotation and the reconnects; no secret in the log," \
	"the dumps or /run/gpupath"
