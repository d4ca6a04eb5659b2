# SPDX-License-Identifier: GPL-2.0
# A second, independent client of the family: Linux's YNL client
# (tools/net/ynl/cli.py, in /out/ynl) reads and writes gpupath with the
# spec alone, Documentation/netlink/specs/gpupath.yaml, and agrees with the
# gpupath CLI on every object.
. /src/selftests/vm/guest-lib.sh

[ -f /out/ynl/cli.py ] || fail "no YNL client in /out/ynl"
SPEC=/src/Documentation/netlink/specs/gpupath.yaml
ynl() { python3 /out/ynl/cli.py --spec $SPEC --no-schema --output-json "$@"; }

load_module
prov=$(bind_bar) || fail "no provider"
trap 'volumes_del_all; $GP portal del yp 2>/dev/null; $GP qos del yq 2>/dev/null; unbind_bar' EXIT
volume_new wwid uuid.0b5e7c55-1d2a-4f3e-8a9b-112233445566 policy queue-depth
$GP qos add yq dscp 26 || fail "qos add"
$GP portal add yp transport tcp traddr 10.99.0.1 nqn nqn.2026-01.io.gpupath:ynl qos yq ||
	fail "portal add"

ynl --do get-info >/tmp/info.json || fail "get-info: $(cat /tmp/info.json)"
cat /tmp/info.json
jq -e '.info."genl-version" == 1 and (.info.version | length > 0)' /tmp/info.json >/dev/null ||
	fail "get-info reply wrong"
$GP show -j >/tmp/show.json
jq -e --slurpfile y /tmp/info.json '.module.version == $y[0].info.version' /tmp/show.json \
	>/dev/null || fail "the module's version differs between the clients"

# Dumps: the same objects, ids and names, enums decoded by the spec.
ynl --dump provider-get >/tmp/prov.json || fail "provider-get dump"
jq -e --argjson p "$prov" '[.[].provider] | length == 1 and .[0].id == $p and
	.[0].type == "p2pdma" and .[0].size > 0' /tmp/prov.json >/dev/null ||
	fail "provider dump: $(cat /tmp/prov.json)"
ynl --dump volume-get >/tmp/vols.json || fail "volume-get dump"
cat /tmp/vols.json
jq -e --argjson v "$vol" '[.[].volume] | length == 1 and .[0].id == $v and
	.[0].policy == "queue-depth" and .[0].mode == "empty" and
	.[0].wwid == "uuid.0b5e7c55-1d2a-4f3e-8a9b-112233445566"' /tmp/vols.json >/dev/null ||
	fail "volume dump disagrees with the CLI"
ynl --dump portal-get >/tmp/portals.json || fail "portal-get dump"
jq -e '[.[].portal] | .[0].name == "yp" and .[0].transport == "tcp" and .[0].qos == "yq" and
	.[0].trsvcid == 4420' /tmp/portals.json >/dev/null || fail "portal dump: $(cat /tmp/portals.json)"
ynl --dump qos-get >/tmp/qos.json || fail "qos-get dump"
jq -e '[.[].qos] | .[0].name == "yq" and .[0].dscp == 26 and .[0].portals == 1' /tmp/qos.json \
	>/dev/null || fail "qos dump: $(cat /tmp/qos.json)"
note "ynl dumps: 1 provider, 1 volume, 1 portal, 1 qos class, as the CLI shows them"

# Writes from the other client: a volume made and changed by YNL, seen by
# the CLI; a refusal comes back with the kernel's message.
ynl --do volume-new --json '{"volume": {"policy": "weighted", "queue-timeout": 1234}}' \
	>/tmp/vnew.json || fail "volume-new by ynl: $(cat /tmp/vnew.json)"
v2=$(jq '.volume.id' /tmp/vnew.json)
$GP volume show "$v2" -j >/tmp/v2.json || fail "the CLI does not see ynl's volume"
jq -e '.policy == "weighted" and .queue_timeout == 1234' /tmp/v2.json >/dev/null ||
	fail "ynl's volume: $(cat /tmp/v2.json)"
ynl --do volume-set --json "{\"volume\": {\"id\": $v2, \"policy\": \"round-robin\"}}" \
	>/dev/null || fail "volume-set by ynl"
$GP volume show "$v2" -j | jq -e '.policy == "round-robin"' >/dev/null ||
	fail "ynl's volume-set did not apply"
ynl --do volume-get --json '{"volume": {"id": 4242}}' >/tmp/enoent.txt 2>&1 &&
	fail "volume-get of a missing volume succeeded"
cat /tmp/enoent.txt
grep -q "no volume with this id" /tmp/enoent.txt || fail "no extended ACK message"
# A command's policy takes only its attributes: a volume's size is reported,
# never set, and the refusal points at it.
ynl --do volume-set --json "{\"volume\": {\"id\": $v2, \"size\": 0}}" >/tmp/size.txt 2>&1 &&
	fail "volume-set with a size succeeded"
cat /tmp/size.txt
grep -q "Unknown attribute type" /tmp/size.txt && grep -q "bad-attr" /tmp/size.txt ||
	fail "the refusal of a size does not point at it"
ynl --do volume-del --json "{\"volume\": {\"id\": $v2}}" >/dev/null || fail "volume-del by ynl"
$GP volume show "$v2" -j >/dev/null 2>&1 && fail "ynl's volume-del did not delete"
note "ynl writes: volume-new, volume-set, volume-del applied; refusal carries the message"

# route-get: the module's decision for an I/O between the provider's memory
# and a target, asked without I/O: the emulated NVMe behind the BAR's switch
# goes direct; a file on tmpfs does not, and says why; a FIFO is refused
# without blocking; the volume answers for its paths.
route() { ynl --do route-get --json "{\"route\": {\"provider\": $prov, \"target\": \"$1\"$2}}"; }
route /dev/nvme0n1 >/tmp/route.json || fail "route-get nvme0n1: $(cat /tmp/route.json)"
cat /tmp/route.json
jq -e '.route.reason == "none" and .route.device == "nvme0n1" and
	(.route["dma-dev"] | length > 0) and .route.distance >= 0' /tmp/route.json >/dev/null ||
	fail "nvme0n1 is not direct by the module's decision"
route /dev/nvme0n1 ', "op": "write"' | jq -e '.route.reason == "none"' >/dev/null ||
	fail "route-get for a write"
echo data >/tmp/plain
route /tmp/plain | jq -e '.route.reason == "fs-unsupported"' >/dev/null ||
	fail "a tmpfs file is not refused with fs-unsupported"
mkfifo /tmp/fifo
route /tmp/fifo >/tmp/fifo.txt 2>&1 && fail "route-get of a FIFO succeeded"
grep -q "not a block device or a regular file" /tmp/fifo.txt || fail "FIFO: $(cat /tmp/fifo.txt)"
# The caller must be able to read the target: a user gets no answer on a
# root-only file or device (the module would open it for them), and one
# on a file it may read.
echo secret >/tmp/rootonly && chmod 0600 /tmp/rootonly && chmod 0644 /tmp/plain
as_user() { /usr/libexec/gpupath/gp-priv as 1000 "$@"; }
uroute() {
	as_user python3 /out/ynl/cli.py --spec $SPEC --no-schema --output-json --do route-get \
		--json "{\"route\": {\"provider\": $prov, \"target\": \"$1\"}}"
}
for t in /tmp/rootonly /dev/nvme0n1; do
	[ "$(stat -c %a $t)" = 600 ] || chmod 0600 $t
	uroute $t >/tmp/uroute.txt 2>&1 && fail "a user's route-get opened root-only $t"
	grep -q "permission denied" /tmp/uroute.txt || fail "user route-get $t: $(cat /tmp/uroute.txt)"
done
uroute /tmp/plain | jq -e '.route.reason == "fs-unsupported"' >/dev/null ||
	fail "a user's route-get of a file it may read"
route "$VOL" | jq -e --arg v "${VOL#/dev/}" '.route.device == $v and (.route | has("dma-dev") | not)' \
	>/dev/null || fail "route-get of the volume"
note "ynl route-get: nvme0n1 direct, tmpfs file fs-unsupported, FIFO refused, volume answered"
exit 0
