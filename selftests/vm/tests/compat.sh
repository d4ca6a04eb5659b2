# SPDX-License-Identifier: GPL-2.0
# Old binaries keep working: the CLI of the last release before the family
# came from its YNL spec (/out/old/gpupath, selftests/run.sh COMPAT_BASE)
# against today's module; and (compat-old-module.sh) today's CLI against
# that release's module (/out/old/gpupath.ko). The same session runs both
# ways: providers, volumes, QoS classes and portals made, shown, changed and
# removed, and a refusal with its message.
. /src/selftests/vm/guest-lib.sh

[ -x /out/old/gpupath ] || fail "no old CLI in /out/old"

# session CLI NAME: one configuration session through CLI, checked with it.
session() {
	cli=$1 who=$2
	$cli show -j >/tmp/show.json || fail "$who: show"
	jq -e '.module.genl_version == 1' /tmp/show.json >/dev/null || fail "$who: show: $(cat /tmp/show.json)"
	prov=$(bind_bar) || fail "$who: no provider"
	$cli provider show -j >/tmp/prov.json || fail "$who: provider show"
	jq -e --argjson p "$prov" '.providers | length == 1 and .[0].id == $p and .[0].size > 0' \
		/tmp/prov.json >/dev/null || fail "$who: provider show: $(cat /tmp/prov.json)"
	$cli volume add wwid uuid.7d1c2b3a-0000-4000-8000-0000000000c0 policy weighted -j \
		>/tmp/vol.json || fail "$who: volume add"
	vol=$(jq .id /tmp/vol.json)
	$cli volume set "$vol" policy round-robin queue-timeout 2500 || fail "$who: volume set"
	$cli volume show "$vol" -j >/tmp/vol.json || fail "$who: volume show"
	jq -e '.policy == "round-robin" and .queue_timeout == 2500 and .mode == "empty" and
		.wwid == "uuid.7d1c2b3a-0000-4000-8000-0000000000c0"' /tmp/vol.json >/dev/null ||
		fail "$who: volume show: $(cat /tmp/vol.json)"
	$cli volume show -j | jq -e '.volumes | length == 1' >/dev/null || fail "$who: volume dump"
	out=$($cli volume show 4242 2>&1) && fail "$who: a missing volume was shown"
	echo "$out" | grep -q "no volume with this id" || fail "$who: refusal without its message: $out"
	$cli path add "$vol" /dev/does-not-exist >/tmp/path.out 2>&1 && fail "$who: a missing device became a path"
	grep -q "cannot open the block device" /tmp/path.out ||
		fail "$who: path add refusal: $(cat /tmp/path.out)"
	$cli qos add cq dscp 18 priority 4 || fail "$who: qos add"
	$cli portal add cp transport tcp traddr 10.99.0.1 nqn nqn.2026-01.io.gpupath:compat qos cq \
		reconnect-delay 5 || fail "$who: portal add"
	$cli portal set cp reconnect-delay 7 || fail "$who: portal set"
	$cli portal show cp -j >/tmp/portal.json || fail "$who: portal show"
	jq -e '.name == "cp" and .transport == "tcp" and .qos == "cq" and .reconnect_delay == 7' \
		/tmp/portal.json >/dev/null || fail "$who: portal show: $(cat /tmp/portal.json)"
	$cli qos show cq -j | jq -e '.dscp == 18 and .priority == 4 and .portals == 1' >/dev/null ||
		fail "$who: qos show"
	$cli qos del cq 2>/tmp/qos.err && fail "$who: a QoS class in use was deleted"
	$cli portal del cp || fail "$who: portal del"
	$cli qos del cq || fail "$who: qos del"
	$cli volume del "$vol" || fail "$who: volume del"
	$cli volume show -j | jq -e '.volumes | length == 0' >/dev/null || fail "$who: volume left"
	unbind_bar
	note "$who: providers, volumes, QoS classes and portals made, shown, changed, removed"
}

[ -n "${COMPAT_OLD_MODULE:-}" ] || {
	load_module
	session "/out/old/gpupath" "old CLI, new module"
	unload_module
	exit 0
}
# That release's module refuses the kernels after 6.12: run.sh builds none.
[ -f /out/old/gpupath.ko ] || skip "gpupath ${COMPAT_BASE:-of the old release} has no module for Linux $(uname -r) (it refuses kernels after 6.12)"
insmod /out/old/gpupath.ko || fail "insmod the old module"
session "$GP" "new CLI, old module"
unload_module
exit 0
