# SPDX-License-Identifier: GPL-2.0
# gpupath show -j is valid JSON and tells the truth about the module and
# P2PDMA. EXPECT_P2PDMA (1 or 0) comes from the harness: the test kernel has
# P2PDMA, Debian's stock kernel has not.
. /src/selftests/vm/guest-lib.sh

load_module
$GP show -j >/out/show.json || fail "gpupath show -j"
cat /out/show.json
jq -e . /out/show.json >/dev/null || fail "not valid JSON"
want_ver=$(modinfo -F version "$KO")
jq -e --arg v "$want_ver" --arg k "$(uname -r)" \
	'.module.version == $v and .module.kernel == $k and
	 .module.genl_version == 1 and .module.ioctl_version == 1' \
	/out/show.json >/dev/null || fail "version, kernel or protocol versions wrong"
# Every kernel the tests boot is of a tested series (kmod/compat/range.h).
jq -e '.module.kernel_status == "tested"' /out/show.json >/dev/null ||
	fail "$(uname -r) not reported as a tested kernel"
$GP show | grep -q '^  kernel: a tested series (tested: 6.1, 6.12 and 7.3)$' ||
	fail "text output does not say the kernel is tested: $($GP show | grep kernel:)"
if [ "${EXPECT_P2PDMA:-1}" = 1 ]; then
	jq -e '.module.p2pdma == {"built": true, "usable": true, "status": "ok",
	       "reason": .module.p2pdma.reason} and
	       (.module.features | index("p2pdma-usable")) and
	       (.module.features | index("file-io"))' /out/show.json >/dev/null ||
		fail "P2PDMA should be usable on this kernel"
	$GP show | grep -q '^  p2pdma: usable' || fail "text output does not say usable"
else
	jq -e '.module.p2pdma.built == false and .module.p2pdma.usable == false and
	       .module.p2pdma.status == "not-built" and
	       .module.features - ["path-removal"] == ["file-io", "path-ana", "portal-auth"]' \
		/out/show.json >/dev/null || fail "P2PDMA should be unavailable on this kernel"
	$GP show | grep -q '^  p2pdma: unavailable' || fail "text output does not say unavailable"
fi
jq -e '.module.nvidia_p2p == false' /out/show.json >/dev/null ||
	fail "NVIDIA peer memory reported without an NVIDIA driver"
$GP version -j >/tmp/v.json || fail "gpupath version -j"
jq -e --arg v "$want_ver" \
	'"\(.module.major).\(.module.minor).\(.module.patch)" == $v and .tools == $v' \
	/tmp/v.json >/dev/null || fail "version ioctl disagrees with modinfo: $(cat /tmp/v.json)"
