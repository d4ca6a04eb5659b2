#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test runner behind `make test`:
#
#   selftests/run.sh [all | host | static | vm | dkms | fuzz | stress]...
#
#   host    unit tests of the user-space code and the CLI (topology on a
#           sysfs tree built for it), a short fuzzing run, no VM
#   static  checkpatch --strict, the supported range, the include graph of
#           kmod/ (selftests/include-graph.sh), and the module built with W=1
#           and sparse against Debian's stock headers of both series
#   vm      the test kernel of KERNEL_SERIES (6.1 or 6.12; built once,
#           cached; the module is built against it with W=1 and sparse) in
#           QEMU: module, netlink,
#           CLI, daemon, NVMe-oF over soft-RoCE and TCP, the BAR device;
#           vm/tests/ with GPU and NVMe behind one PCIe switch, tests-flat/
#           on the root bus, tests-rails/ with two switches (run-vm.sh)
#   lab     make bench's smoke run: two short boots of the performance lab
#           (6.1: the raw namespace and a one-path volume over nvme-loop;
#           the reads from QEMU's NVMe into host memory and the BAR); it
#           checks that the lab runs and reports, and asserts no figure
#   dkms    DKMS build against Debian's stock headers of 6.1 and 6.12
#           (P2PDMA off), each stock kernel booted with that module; a kernel
#           outside the supported range skipped by DKMS
#   fuzz    not in "all": the long fuzzing run, vm/tests/fuzz.sh on the
#           debug kernel with a million inputs (make fuzz-vm)
#   stress  not in "all": vm/tests/faults.sh and stress.sh on the debug
#           kernel, 5 minutes of stress (make stress)
#   one     not in "all": the VM tests named in TESTS (paths or names, e.g.
#           TESTS="volume tests-flat/datapath-flat"), each in the topology
#           of its directory (make vm-test TESTS=...)
#
#   vm2     vm on 6.12, the tests in SECOND_KERNEL; vm2a and vm2b are its
#           two parts (VM2A_PARTS, the rest), one in each lane of "all"
#   vm3     vm on Debian's stock 7.3, gpupath built by DKMS
#
# "all" is host, static, vm on 6.1, 6.12 and 7.3, lab, dkms and deb, in two
# lanes; both test kernels are built in the background from the start, and
# the benchmarks run short (BENCH_PAIRS, default 4 there).
# Every suite prints TAP; this script counts it and ends with the time of
# each phase and the line "N passed, N failed, N skipped". Logs and VM work
# directories are kept in selftests/build/. Set KERNEL_SERIES=6.12 for the
# 6.12 kernel, KERNEL_VARIANT=debug for the KASAN/lockdep kernel.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/selftests/vm/lib.sh"
cd "$top"

build=$top/selftests/build
mkdir -p "$build"
# One make at a time in the tree: make test runs suites side by side.
MAKE="flock $build/.make.lock make --no-print-directory"

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
skipped() { echo "ok - $1 # SKIP $2"; }
# check NAME CMD...: one TAP line for a command; its output goes into the log.
check() {
	local name=$1 log
	shift
	log=$build/log/$(echo "$name" | tr -c 'a-zA-Z0-9_\n-' '_').log
	mkdir -p "$build/log"
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		sed 's/^/# /' "$log" | tail -40
		notok "$name (log: ${log#"$top"/})"
		return 1
	fi
}

uapi_check() {
	local src=$build/uapi_check.c
	printf '#include <linux/gpupath.h>\nint main(void) { return GPUPATH_IOC_VERSION == 0; }\n' >"$src"
	gcc -std=c99 -Wall -Wextra -pedantic -Werror -Iuapi -o "$build/uapi_check" "$src" &&
		g++ -Wall -Wextra -pedantic -Werror -Iuapi -x c++ -o "$build/uapi_check" "$src"
}

# The cuFile API: cufile.h on its own as C and C++; gp-cufile (linked as a
# program for libcufile is) on a regular file with host memory, the compat
# way (the host has no gpupath module), every check of it passing.
cufile_check() {
	local src=$build/cufile_check.c out rc
	printf '#include <cufile.h>\nint main(void) { return cuFileDriverOpen().err; }\n' >"$src"
	check "host: cufile.h compiles on its own as C and C++" sh -c \
		"gcc -std=gnu99 -Wall -Wextra -pedantic -Werror -Itools/cufile -c -o $build/cufile_check.o $src &&
		 g++ -Wall -Wextra -pedantic -Werror -Itools/cufile -x c++ -c -o $build/cufile_check.o $src"
	# A C++ program with its own cuFileGetErrorString, as NVIDIA's samples.
	check "host: a C++ program defining cuFileGetErrorString as NVIDIA's samples do builds" \
		g++ -Wall -Wextra -Werror -Itools/cufile -o "$build/sample-errors" \
		selftests/cufile/sample-errors.cc -Ltools/cufile/compat -lcufile -Wl,-rpath-link,tools/lib
	check "host: ... and reads NVIDIA's error texts from gpupath's cuFile" \
		env LD_LIBRARY_PATH=tools/cufile/compat:tools/lib "$build/sample-errors" </dev/null
	"$build/gp-pattern" gen $((8 << 20)) 77 >"$build/cufile.img"
	cufile_host "host: the cuFile API on a file, compat" env
	check "host: the parameter and statistics API (cuFile 1.15)" \
		env CUFILE_ENV_PATH_JSON=/dev/null LD_LIBRARY_PATH=tools/cufile/compat:tools/lib \
		"$build/gp-cufile" params "$build/cufile.img"
	# Registration opens nothing again: no /proc needed, and a file opened
	# O_DIRECT (as GDS programs open them) takes any offset and length.
	if unshare -m true 2>/dev/null; then
		cufile_host "host: the cuFile API without /proc, on a file opened O_DIRECT" \
			env GPCUFILE_ODIRECT=1 unshare -m sh -c 'umount -l /proc && exec "$@"' -
	else
		skipped "host: the cuFile API without /proc" "unshare -m needs root"
	fi
	rm -f "$build/cufile.img"
	# NVIDIA's configuration file: the keys gpupath takes, over its
	# defaults and under the program's settings; the others named once.
	cat >"$build/cufile.json" <<-'EOF'
	{
		// comments, as in NVIDIA's file
		"logging": { "dir": "/var/log", "level": "INFO" },
		"execution": { "max_io_threads": 4 },
		"properties": {
			"max_direct_io_size_kb": 1024, "io_batchsize": 64, "use_poll_mode": true,
			"poll_mode_max_size_kb": 8, "rdma_dev_addr_list": [],
			"max_device_cache_size_kb": 3
		}
	}
	EOF
	check "host: cufile.json: io_batchsize, max_direct_io_size_kb and poll mode taken" \
		cufile_config "$build/cufile.json" "batch=64 direct_kb=1024 poll=1 poll_kb=8 compat=1" \
		"not used by gpupath: logging.dir, logging.level, execution.max_io_threads, properties.rdma_dev_addr_list" \
		"max_device_cache_size_kb must be KiB, a multiple of 4, from 4 to"
	check "host: cufile.json: cuFileDriverSetMaxDirectIOSize before the open stands over it" \
		cufile_config "$build/cufile.json" "batch=64 direct_kb=2048 poll=1 poll_kb=8 compat=1" \
		"" "" 2048
	check "host: cufile.json: an empty one, NVIDIA's defaults" cufile_config /dev/null \
		"batch=128 direct_kb=16384 poll=0 poll_kb=4 compat=1" "" ""
	cufile_redirect
	# "allow_compat_mode": false and no module: cuFileDriverOpen fails.
	echo '{ "properties": { "allow_compat_mode": false } }' >"$build/nocompat.json"
	check "host: cuFileDriverOpen fails with compat mode off and no module" \
		env CUFILE_ENV_PATH_JSON="$build/nocompat.json" \
		LD_LIBRARY_PATH=tools/cufile/compat:tools/lib "$build/gp-cufile" nocompat
}

# gpupath run puts gpupath's libcufile.so.0 in the place of another one (a
# stand-in for NVIDIA's), reached by a program's DT_RPATH (PyTorch's
# wheels) or opened by soname from LD_LIBRARY_PATH (KvikIO).
cufile_redirect() {
	local d=$build/cufile-standin v=
	mkdir -p "$d"
	check "host: a stand-in for NVIDIA's libcufile.so.0, and programs on it, build" sh -c "
		cc -shared -fPIC -Itools/cufile -Wl,-soname,libcufile.so.0 -o $d/libcufile.so.0 \
			selftests/cufile/stand-in.c &&
		ln -sf libcufile.so.0 $d/libcufile.so &&
		cc -Itools/cufile -o $d/which selftests/cufile/which.c -L$d -lcufile -ldl \
			-Wl,--disable-new-dtags,-rpath,$d" || return
	v=$(sed -n 's/^#define API_VERSION[[:space:]]*//p' tools/cufile/private.h)
	check "host: the program gets the stand-in by its DT_RPATH" \
		same_line 99999 "$d/which" linked
	check "host: gpupath run gives it gpupath's library ($v) instead" \
		same_line "$v" env GPUPATH_CUFILE=tools/cufile/compat/libcufile.so.0 \
		LD_LIBRARY_PATH=tools/lib tools/gpupath/gpupath run -- "$d/which" linked
	check "host: opened by soname, the program gets the stand-in too" \
		same_line 99999 env LD_LIBRARY_PATH="$d" "$d/which" dlopen
	check "host: gpupath run: also to one opened by soname from LD_LIBRARY_PATH" \
		same_line "$v" env GPUPATH_CUFILE=tools/cufile/compat/libcufile.so.0 \
		LD_LIBRARY_PATH="$d:tools/lib" tools/gpupath/gpupath run "$d/which" dlopen
}

# same_line LINE CMD...: CMD prints LINE, and only that.
same_line() {
	local want=$1 out
	shift
	out=$("$@") || return
	[ "$out" = "$want" ] || { echo "got '$out', not '$want'"; return 1; }
}

# cufile_config JSON PROPERTIES STDERR1 STDERR2 [DIRECT_KB]: gp-cufile config
# with the configuration file JSON prints PROPERTIES and, on stderr, lines
# holding STDERR1 and STDERR2.
cufile_config() {
	local out err
	out=$(env CUFILE_ENV_PATH_JSON="$1" LD_LIBRARY_PATH=tools/cufile/compat:tools/lib \
		"$build/gp-cufile" config ${5:-} 2>"$build/cufile.err") ||
		{ echo "$out"; cat "$build/cufile.err"; return 1; }
	err=$(cat "$build/cufile.err")
	grep -qxF "$2" <<<"$out" && grep -qF "$3" <<<"$err" && grep -qF "$4" <<<"$err" && return 0
	echo "$out"
	echo "$err"
	return 1
}

# cufile_host NAME RUNNER...: gp-cufile's host checks on $build/cufile.img,
# run through RUNNER.
cufile_host() {
	local name=$1 out rc
	shift
	out=$("$@" env LD_LIBRARY_PATH=tools/cufile/compat:tools/lib "$build/gp-cufile" host \
		"$build/cufile.img" 77 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		ok "$name: $(echo "$out" | grep -c '^pass') checks pass"
	else
		echo "$out" | grep -v '^pass\|^io ' | sed 's/^/# /'
		notok "$name (exit $rc)"
	fi
}

suite_host() {
	local t out plan ran
	check "host: user space builds with -Wall -Wextra -Werror" \
		$MAKE userspace test-bins unit-bins WERROR=-Werror || return
	check "host: uapi header compiles on its own as C99 and C++" uapi_check
	hardening_check
	selftests/unit/run.sh --tap
	selftests/cli-test.sh
	selftests/topology-test.sh
	selftests/abi-check.sh
	selftests/uapi-check.sh
	cufile_check
	check "host: bash completion of gpupath and gpupathd" selftests/unit/completion-test.sh
	check "host: the kernel-log check tells known upstream reports from others" \
		selftests/unit/kernel-log-test.sh
	check "host: every function Documentation/internals.md names exists" internals_check
	check "host: the man pages render without warnings" sh -c \
		'for m in tools/man/*.[0-9]; do groff -man -Tutf8 -ww -z "$m" 2>&1 | grep . && exit 1; done; exit 0'
	cuda_check
	fuzz_check
}

# The developer map names functions as they are called: each one is in the
# tree (C or the test scripts), or in the kernel's source.
internals_check() {
	local f src missing=0

	src=$(ksrc_dir) || return 1
	for f in $(grep -oE '`[A-Za-z_][A-Za-z0-9_]*\(\)`' Documentation/internals.md |
		tr -d '`()' | sort -u); do
		git grep -qw -- "$f" -- '*.c' '*.h' '*.sh' && continue
		grep -rqw --include='*.c' --include='*.h' -- "$f" "$src/net" "$src/block" \
			"$src/drivers" "$src/fs" "$src/kernel" "$src/mm" && continue
		echo "Documentation/internals.md names $f(), which is nowhere"
		missing=1
	done
	return $missing
}

# Every program and library that is installed is built hardened
# (dpkg-buildflags' hardening=+all): full RELRO with BIND_NOW, programs as
# PIE, the stack protector and _FORTIFY_SOURCE's checked functions in use.
hardening_check() {
	local f why syms bad=0
	for f in tools/gpupath/gpupath daemon/gpupathd tools/gpupath-bench/gpupath-bench \
		tools/lib/libgpupath.so.0 tools/cufile/libgpupath-cufile.so.0 \
		tools/cufile/compat/libcufile.so.0 tools/lib/libgpupath-cuda.so.0; do
		[ -e "$f" ] || continue
		why=
		# (each read whole first: grep -q ends at its match, and the
		# reader would die of a broken pipe under pipefail)
		syms=$(readelf -lW "$f")
		grep -q GNU_RELRO <<<"$syms" || why="$why no RELRO;"
		syms=$(readelf -d "$f")
		grep -q 'BIND_NOW\|Flags:.* NOW' <<<"$syms" || why="$why no BIND_NOW;"
		syms=$(readelf -hW "$f")
		grep -q 'Type:.*DYN' <<<"$syms" || why="$why not PIE;"
		syms=$(nm -D --undefined-only "$f")
		grep -q '__stack_chk_fail' <<<"$syms" || why="$why no stack protector;"
		# (as hardening-check: a library calling none of the functions
		# _FORTIFY_SOURCE checks has no _chk to show)
		grep -q '__[a-z_]*_chk@' <<<"$syms" ||
			! grep -qE ' (memcpy|memmove|memset|str(n?cpy|n?cat)|v?s?n?printf|fprintf|read|recv|fgets)@' <<<"$syms" ||
			why="$why not fortified;"
		[ -z "$why" ] || { echo "# $f:$why"; bad=1; }
	done
	if [ $bad = 0 ]; then
		ok "host: programs and libraries are hardened (RELRO, BIND_NOW, PIE, stack protector, fortify)"
	else
		notok "host: programs and libraries are hardened"
	fi
}

# The config parser and the netlink decoders under libFuzzer, 20 s each from
# a fixed seed (make fuzz runs them longer).
fuzz_check() {
	local cc=${FUZZ_CC:-clang} probe=$build/fuzz-probe
	if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
		"$cc" -x c -fsanitize=fuzzer,address,undefined -o "$probe" - >/dev/null 2>&1; then
		skipped "fuzz: config parser and netlink decoders" \
			"$cc with libFuzzer not installed (Debian: clang, libclang-rt-14-dev)"
		return
	fi
	check "fuzz: harnesses build with libFuzzer, ASan and UBSan" \
		$MAKE fuzz-bins WERROR=-Werror FUZZ_CC="$cc" || return
	selftests/fuzz/run.sh -t 20 -s 1
}

# libgpupath-cuda and cuFile into CUDA device memory, against the project's
# double of NVIDIA's libcuda.so.1 (selftests/cuda/libcuda.c): memory the
# CPU cannot touch, copies through the driver API. A file goes through host
# memory, so the module is not needed; tests/cuda-lib.sh reads directly in
# the VM. Where CUDA is installed, cuda-driver.h is compared with cuda.h.
cuda_check() {
	local out rc double=$build/cuda-double
	out=$(LD_LIBRARY_PATH=$double "$build/gp-cuda" host 2>&1)
	rc=$?
	cuda_result "host: libgpupath-cuda and the CUDA driver API (double)" $rc "$out"
	"$build/gp-pattern" gen $((4 << 20)) 1 >"$build/cuda.img"
	out=$(LD_LIBRARY_PATH=$double:tools/lib:tools/cufile "$build/cufile-cuda-check" \
		"$build/cuda.img" 2>&1)
	rc=$?
	rm -f "$build/cuda.img"
	cuda_result "host: cuFileRead into CUDA memory (double)" $rc "$out"
	# Real programs' call sequences, through gpupath's libcufile.so.0.
	"$build/gp-pattern" gen $((64 << 20)) 5 >"$build/clients.img"
	head -c $((8 << 20)) /dev/zero >"$build/clients-scratch.img"
	for c in pytorch kvikio nixl gdsmt dali sample001 sample010 sample019 streams; do
		out=$(LD_LIBRARY_PATH=$double:tools/cufile/compat:tools/lib \
			timeout 300 "$build/gp-cufile-clients" $c "$build/clients.img" \
			"$build/clients-scratch.img" 2>&1)
		cuda_result "host: cuFile as $c calls it, into CUDA memory (double)" $? "$out"
	done
	out=$(GPCU_DOUBLE_COPY_MS=200 LD_LIBRARY_PATH=$double:tools/cufile/compat:tools/lib \
		timeout 300 "$build/gp-cufile-clients" batch-async "$build/clients.img" \
		"$build/clients-scratch.img" 2>&1)
	cuda_result "host: cuFile batches of CUDA memory run in the background (double)" $? "$out"
	out=$(GPCU_DOUBLE_COPY_MS=200 LD_LIBRARY_PATH=$double:tools/cufile/compat:tools/lib \
		timeout 60 "$build/gp-cufile-clients" fork "$build/clients.img" \
		"$build/clients-scratch.img" 2>&1)
	cuda_result "host: cuFile in a child of fork() while the parent's batch runs (double)" $? \
		"$out"
	rm -f "$build/clients.img" "$build/clients-scratch.img"
	if [ ! -x "$build/cuda-abi-check" ]; then
		skipped "host: cuda-driver.h against CUDA's cuda.h" "CUDA not installed"
		return
	fi
	out=$("$build/cuda-abi-check" 2>&1)
	cuda_result "host: cuda-driver.h against CUDA's cuda.h" $? "$out"
}

# cuda_result NAME RC OUTPUT: 0 passed, 4 skipped (no device), else failed.
cuda_result() {
	case $2 in
	0) ok "$1: $(tail -n1 <<<"$3")" ;;
	4) skipped "$1" "${3#SKIP: }" ;;
	*) echo "$3" | sed 's/^/# /'; notok "$1" ;;
	esac
}

# The module against Debian's stock headers of each series (the test
# kernels' builds are checked the same way in the vm suites).
# gpupathd.service's sandbox, as systemd rates it (below 4: "OK"); the
# daemon's VM tests run it with the unit's capability bounding set.
unit_security() {
	local out level
	out=$(systemd-analyze security --offline=true daemon/gpupathd.service 2>&1)
	level=$(sed -n 's/.*Overall exposure level for gpupathd.service: \([0-9.]*\).*/\1/p' <<<"$out")
	if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l < 4) }'; then
		ok "static: systemd-analyze security rates gpupathd.service $level (below 4)"
	else
		grep -v '^✓' <<<"$out" | tail -25 | sed 's/^/# /'
		notok "static: systemd-analyze security rates gpupathd.service ${level:-?}, not below 4"
	fi
}

suite_static() {
	local series rel
	check "static: checkpatch --strict reports no errors on kmod/ and uapi/" \
		selftests/vm/checkpatch.sh
	check "static: compat.h and dkms.conf state the same kernel range" \
		selftests/vm/kernel-range.sh
	check "static: the include graph of kmod/ has no cycle but the known ones" \
		selftests/include-graph.sh
	tools/ynl/regen.sh --check
	unit_security
	for series in 6.1 6.12; do
		rel=$(KERNEL_SERIES=$series stock_release) ||
			{ notok "static: stock headers for $series"; continue; }
		check "static: module builds without warnings with W=1 and sparse, linux-headers-$rel" \
			selftests/vm/build-module.sh "/lib/modules/$rel/build" "$build/kmod-stock-$series" \
			W=1 C=1
	done
	static_trixie 7.3
}

# static_trixie SERIES: the module against Debian 13's stock headers of
# SERIES, with its compiler, in the Debian 13 tree: W=1, and sparse. 7.x's
# headers use __typeof_unqual__ under sparse, which Debian 13's sparse 0.6.4
# does not know: the tree holds Debian unstable's 0.6.5~rc1 in /opt/sparse
# for them (setup-trixie.sh).
static_trixie() {
	local series=$1 rel
	rel=$(KERNEL_SERIES=$series stock_release) ||
		{ notok "static: Debian 13's stock headers for $series"; return; }
	check "static: module builds without warnings with W=1, linux-headers-$rel (Debian 13's gcc)" \
		trixie_run "$top" selftests/vm/build-module.sh "/usr/src/linux-headers-$rel" \
		"$build/kmod-stock-$series" W=1
	check "static: module is sparse clean, linux-headers-$rel (sparse $(trixie_run "$top" \
		/opt/sparse/usr/bin/sparse --version))" \
		trixie_run "$top" selftests/vm/build-module.sh "/usr/src/linux-headers-$rel" \
		"$build/kmod-stock-$series-sparse" C=1 CHECK=/opt/sparse/usr/bin/sparse
}

# nvme_console FILE: what the guest's NVMe driver said of timeouts, resets
# and aborts in console log FILE (the first 20 lines).
nvme_console() {
	grep -a -E 'nvme nvme[0-9]+: .*(timeout|reset|disabl|abort)|I/O error|blocked for more than' \
		"$1" | head -20
}

# run_guest NAME WORKDIR TESTS -- run-vm.sh options: the guest's TAP, then a
# line for the VM itself. A guest whose emulated NVMe controller stopped
# answering (guest-run.sh: "# nvme-wedged:", exit 3) boots once more, the
# first boot's lines kept as comments: only the second boot's count.
run_guest() {
	local name=$1 work=$2 tests=$3 rc tailer missing wedged boot=1
	shift 3
	while :; do
		# Each test's name as it starts, and its result, while the guest runs.
		: >"$work/tap.log"
		# (The sed is set up before tail's stderr goes: it keeps this one.)
		tail -n +1 -F "$work/tap.log" > >(sed -un -e 's/\r$//' \
			-e "s/^# run \(.*\)/  TEST     $name: \1/p" \
			-e "s/^\(not ok\|ok\) [0-9]* \([^ ]*\)\(.*\)/  TEST     $name: \2 \1\3/p" >&2) 2>/dev/null &
		tailer=$!
		selftests/vm/run-vm.sh --workdir "$work" --keep-images ${VM_SMP:+--smp "$VM_SMP"} "$@" -- \
			"sh /src/selftests/vm/guest-run.sh $tests" >"$work/vm.log" 2>&1
		rc=$?
		sleep 1
		kill "$tailer" 2>/dev/null
		wedged=$(grep -a -m 1 '^# nvme-wedged: ' "$work/tap.log" | tr -d '\r')
		[ $rc = 3 ] && [ -n "$wedged" ] && [ $boot = 1 ] || break
		sed -e 's/\r$//' -e "s/^/# $name, first boot: /" "$work/tap.log"
		nvme_console "$work/console.log" | sed "s/^/# $name, first boot's console: /"
		echo "# $name: QEMU's emulated NVMe controller stopped completing I/O" \
			"(${wedged#\# nvme-wedged: }); the guest boots again and runs every test anew"
		mv "$work/console.log" "$work/console-first-boot.log"
		rm -f "$work/host.expect" "$work/bar.expect" "$work/show.json" "$work"/*.prom \
			"$work/qmp-events.log"
		boot=2
	done
	# Each result line carries the guest's name.
	grep -a -v '^GPUPATH_EXIT=\|^# run \|^# tests: ' "$work/tap.log" | grep -a -v '^TAP version\|^1\.\.' |
		sed -E "s#^(not ok|ok) [0-9]+ #\\1 - $name: #"
	# What the guest's kernel said of its disks, when a test failed.
	grep -a -q '^not ok' "$work/tap.log" && nvme_console "$work/console.log" | sed 's/^/# console: /'
	# Every test the guest planned gives a result: those that did not (the
	# guest died or was stopped in one) fail here.
	missing=$(awk '{ sub(/\r$/, "") } /^# tests: [0-9]+$/ { plan = $3 + 0 }
		/^# run / { last = $3 } /^(not )?ok [0-9]+ [^ :]+( |$)/ { n++ }
		END { if (plan > n) print plan - n, last }' "$work/tap.log")
	[ -z "$missing" ] ||
		notok "$name: ${missing%% *} planned test(s) gave no result (the guest stopped in ${missing#* })"
	check "$name: kernel log has no warning, BUG, KASAN, lockdep or leak report" \
		selftests/vm/check-kernel-log.sh "$work/console.log"
	if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then
		ok "$name: VM ran to the end"
	else
		sed 's/^/# /' "$work/vm.log"
		grep -a -E 'WARNING|BUG|Oops|panic|Call Trace' "$work/console.log" | head -30 | sed 's/^/# /'
		notok "$name: VM did not finish (exit $rc, console: ${work#"$top"/}/console.log)"
	fi
}

# The checks made from the host side, on the files the guest left:
# bar.expect (the BAR test), host.expect (data-path tests: FILE OFF LEN SEED
# POS per line, FILE being bar.img or nvme.img; bar0.img or bar1.img in the
# rails topology), show.json. The guest's images go after them.
host_side_checks() {
	host_side_files "$@"
	vm_images_drop "$2"
}
host_side_files() {
	local name=$1 work=$2 file off len seed pos promtool
	promtool=$(selftests/vm/promtool.sh) || promtool=false
	if [ -s "$work/host.expect" ]; then
		while read -r file off len seed pos; do
			check "$name: $len bytes at $off of $file (seen from the host) are what the guest moved" \
				"$build/gp-pattern" check "$work/$file" "$off" "$len" "$seed" "$pos"
		done <"$work/host.expect"
	fi
	for file in "$work"/*.prom; do
		[ -e "$file" ] || continue
		check "$name: $(basename "$file") (gpupath stats --prometheus) passes promtool check metrics" \
			sh -c '"$1" check metrics <"$2"' sh "$promtool" "$file"
	done
	[ -n "${3:-}" ] && return
	if [ -s "$work/bar.expect" ]; then
		# shellcheck disable=SC2046
		check "$name: the pattern written into the BAR is in its backing file on the host" \
			"$build/gp-pattern" check "$work/bar.img" $(cat "$work/bar.expect")
	else
		notok "$name: the guest left no bar.expect"
	fi
	if [ -s "$work/show.json" ]; then
		check "$name: gpupath show -j is valid JSON (host-side parser)" \
			python3 -m json.tool "$work/show.json"
	else
		notok "$name: the guest left no show.json"
	fi
}

# vm_prepare NAME: the kernel of KERNEL_SERIES and KERNEL_VARIANT ready, user
# space and the module built, the work directory $build/NAME-KERNEL_VARIANT
# made with the module in it; sets kimage and kmodroot (what the guest
# boots), work, append and kv (SERIES-VARIANT). NAME carries the series
# (vm-6.12). The 6.x kernels and every debug kernel are test kernels built
# from Debian's linux-source (cached; the module built against them with
# W=1 and sparse); 7.3 is Debian's stock kernel from trixie-backports, the
# module built by DKMS against its stock headers in the Debian 13 tree.
vm_prepare() {
	local start kdir kbuild
	kv=$KERNEL_SERIES-$KERNEL_VARIANT
	start=$(date +%s)
	if stock_series; then
		kdir=$(selftests/vm/stock-kernel.sh) || { notok "$1: Debian's stock $KERNEL_SERIES kernel"; return 1; }
		kimage=$kdir/vmlinuz kmodroot=$kdir/modroot
		ok "$1: Debian's stock kernel $(cat "$kdir/release") ready after $(( $(date +%s) - start )) s"
	else
		kdir=$(selftests/vm/build-kernel.sh) || { notok "$1: test kernel build"; return 1; }
		kimage=$kdir/bzImage kmodroot=$kdir/modroot
		ok "$1: test kernel $(basename "$kdir") ready after $(( $(date +%s) - start )) s"
	fi
	check "$1: user space and test helpers build" $MAKE userspace test-bins || return 1
	work=$build/$1-$KERNEL_VARIANT${VM_WORK_SUFFIX:-}
	rm -rf "$work"
	mkdir -p "$work"
	if stock_series; then
		dkms_module "$1" "$(cat "$kdir/release")" "$work/gpupath.ko" || return 1
		kbuild=/usr/src/linux-headers-$(cat "$kdir/release")
		check "$1: nvfake (NVIDIA test double) builds against the stock headers" \
			trixie_run "$top" selftests/vm/nvfake/build.sh "$kbuild" "$build/nvfake-$kv" W=1 ||
			return 1
	else
		# Sparse reads 7.x only in the Debian 13 tree (static_trixie, on the
		# stock headers of the same release); the test kernel is the host's.
		if [ -n "$(series_root)" ]; then
			check "$1: module builds against the test kernel without warnings (W=1)" \
				selftests/vm/build-module.sh "$kdir/build" "$build/kmod-test-$kv" W=1 ||
				return 1
		else
			check "$1: module builds against the test kernel without warnings (W=1, sparse)" \
				selftests/vm/build-module.sh "$kdir/build" "$build/kmod-test-$kv" W=1 C=1 ||
				return 1
		fi
		cp "$build/kmod-test-$kv/gpupath.ko" "$work/"
		# The NVIDIA peer-memory test double (tests/nvidia-double.sh), as /out/nvfake.ko.
		check "$1: nvfake (NVIDIA test double) builds against the test kernel" \
			selftests/vm/nvfake/build.sh "$kdir/build" "$build/nvfake-$kv" W=1 ||
			return 1
		kbuild=$kdir/build
	fi
	cp "$build/nvfake-$kv/nvfake.ko" "$work/"
	# The YNL client of Linux 6.12 (tests/ynl.sh), as /out/ynl.
	check "$1: the YNL client (tools/net/ynl of linux-source-6.12) is ready" ynl_client "$work/ynl" ||
		return 1
	# The CLI, library and module of the last release before the spec
	# (tests/compat.sh), as /out/old; that release's module refuses the
	# kernels after 6.12, so there its CLI comes alone.
	if old_supports; then
		check "$1: gpupath ${COMPAT_BASE:0:12} (before the YNL spec) builds, its module for this kernel" \
			old_build "$kbuild" "$build/old-$kv" "$work/old" || return 1
	else
		check "$1: gpupath ${COMPAT_BASE:0:12} (before the YNL spec) builds (its module predates $KERNEL_SERIES)" \
			old_build "" "$build/old-$kv" "$work/old" || return 1
	fi
	# Managed mode: every controller's namespace is its own block device.
	append="EXPECT_P2PDMA=1 nvme_core.multipath=N"
	[ "$KERNEL_VARIANT" = debug ] && append="$append panic_on_warn=1 kasan.fault=panic"
	[ -z "${BENCH_PAIRS:-}" ] || append="$append PAIRS=$BENCH_PAIRS"
	return 0
}

# Whether the VM boots Debian's stock kernel (7.3) rather than a test kernel.
stock_series() {
	[ "$KERNEL_SERIES" = 7.3 ] && [ "$KERNEL_VARIANT" = default ]
}

# Whether COMPAT_BASE's module builds for KERNEL_SERIES.
old_supports() {
	case $KERNEL_SERIES in 6.*) return 0 ;; *) return 1 ;; esac
}

# dkms_module NAME RELEASE OUT: DKMS builds gpupath against the stock
# headers of RELEASE (in the Debian 13 tree for 7.x), the module it made
# unpacked to OUT (lib.sh's stock_module), as a TAP line.
dkms_module() {
	local where=
	[ -z "$(series_root)" ] || where=" in Debian 13"
	check "$1: dkms build against linux-headers-$2$where" \
		stock_module "$build/dkms-$KERNEL_SERIES" "$2" "$3"
}

# The commit whose binaries tests/compat.sh runs against today's, and the
# reverse: the last one before the family came from its YNL spec.
COMPAT_BASE=e69ed997200dec8f5dfee009ea752fec42e88e82

# old_build KDIR BUILDDIR OUT: COMPAT_BASE's gpupath CLI (libgpupath linked in)
# and its module built against KDIR (none where KDIR is ""), into OUT.
old_build() {
	local kdir=$1 dir=$2 out=$3

	git -C "$top" cat-file -e "$COMPAT_BASE^{commit}" 2>/dev/null || {
		echo "commit $COMPAT_BASE is not in this clone: tests/compat.sh needs the history of main (a clone without --depth)"
		return 1
	}
	rm -rf "$dir" && mkdir -p "$dir/src" "$out" || return
	git -C "$top" archive "$COMPAT_BASE" | tar -x -C "$dir/src" || return
	$MAKE -C "$dir/src" -j2 tools/gpupath/gpupath || return
	cp "$dir/src/tools/gpupath/gpupath" "$out/"
	[ -n "$kdir" ] || return 0
	MODULE_SRC="$dir/src/Kbuild $dir/src/kmod $dir/src/uapi" \
		selftests/vm/build-module.sh "$kdir" "$dir/kmod" || return
	cp "$dir/kmod/gpupath.ko" "$out/"
}

# ynl_client DIR: Linux's YNL client, cli.py and its lib/, copied to DIR.
ynl_client() {
	local tree
	tree=$(KERNEL_SERIES=6.12 && . selftests/vm/lib.sh && ksrc_dir) || return
	mkdir -p "$1" && cp -r "$tree/tools/net/ynl/cli.py" "$tree/tools/net/ynl/lib" "$1/"
}

# long NAME "TESTS" "VARS": the long form of some vm/tests, alone, on the
# debug kernel unless KERNEL_VARIANT_LONG says otherwise, VARS on the kernel
# command line (the guest's environment).
long() {
	local kimage kmodroot work append start kv
	KERNEL_VARIANT=${KERNEL_VARIANT_LONG:-debug}
	export KERNEL_VARIANT
	vm_prepare "$1-$KERNEL_SERIES" || return
	start=$(date +%s)
	run_guest "$1-$KERNEL_SERIES" "$work" "$2" --kernel "$kimage" --modroot "$kmodroot" \
		--topology switch --smp 2 --append "$append $3" --timeout 5400
	vm_images_drop "$work"
	echo "# $1-$KERNEL_SERIES: guest ran for $(( $(date +%s) - start )) s"
}

# make fuzz-vm: FUZZ_NL + FUZZ_IOCTL inputs (default 300000 + 700000, about
# 15 minutes on the debug kernel) from FUZZ_SEED (default 1).
suite_fuzz() {
	long fuzz /src/selftests/vm/tests/fuzz.sh \
		"FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_NL=${FUZZ_NL:-300000} FUZZ_IOCTL=${FUZZ_IOCTL:-700000}"
}

# make stress: the fault injection and the stress test, STRESS_SECONDS of
# stress (default 300).
suite_stress() {
	long stress "/src/selftests/vm/tests/faults.sh /src/selftests/vm/tests/stress.sh" \
		"STRESS_SECONDS=${STRESS_SECONDS:-300}"
}

# The tests that make test runs on its second kernel (6.12): the data path,
# fabrics, volumes with flaps, the daemon, short fuzzing and the checks of
# what users see; the long benchmarks, stress and fault runs are left to
# KERNEL_SERIES=6.12 make vm-test, make stress and make fuzz-vm. The
# YNL client's run (ynl: the module's netlink, the same code on every
# kernel), the flapping volume (volume-flap) and the cgroups' I/O limits
# (tenants-io: QEMU's NVMe controller stalled in it on 6.12 in two make
# test runs in a row, each stall costing a second boot) run on the first
# and the last kernel, 6.1 and 7.3.
SECOND_KERNEL="bar datapath datapath-badinput file file-xfs odirect datapath-fabrics nvmeof netlink compat compat-old-module volume fuzz show
	metrics cufile trace module-reload provider-remove route-safety privileges
	volume-hangs volume-safety pagecache path-identity tests-rails/rxe-nic
	tests-flat/datapath-flat tests-flat/multipath-head tests-flat/volume-native
	tests-rails/daemon-config tests-rails/daemon-qos tests-rails/diagnose
	tests-rails/file-volume tests-rails/daemon-auth tests-rails/daemon-ana tests-rails/daemon-autoconnect
	tests-rails/daemon-mdns
	tests-rails/daemon-slow-connect tests-rails/volume-partitions tenants-quota
	tenants-stats tests-stack/md-volumes tests-stack/dm-volumes tests-stackmp/head tests-iommu/iommu"

# guest_init DIR: the kernel parameter that boots the guest of DIR with
# systemd as init, where DIR's tests then start gpupathd from its shipped
# unit (gpd_start in selftests/vm/guest-lib.sh): the rails and stack
# guests, which hold the daemon's tests (DAEMON_UNIT=0 boots the rails
# guest with busybox's init instead, gpupathd then started by setpriv).
# The switch guest's daemon tests (netlink, daemon-notify, metrics) check
# the notify protocol themselves, as the daemon's service manager.
guest_init() {
	case $1 in
	tests-stack) echo GUEST_INIT=systemd ;;
	tests-rails) [ "${DAEMON_UNIT:-1}" = 0 ] || echo GUEST_INIT=systemd ;;
	esac
}

# What make test leaves out on 6.1: the daemon's scale run
# (tests-rails/daemon-scale, 5 to 6 minutes of user space at work there,
# the daemon the same on every kernel) runs on 7.3 alone.
FIRST_KERNEL_SKIP="tests-rails/daemon-scale"

# vm_tests DIR: the guest paths of the tests of DIR (tests, tests-flat,
# tests-rails) to run: all of them, or those named in ONLY, less those
# named in SKIP.
vm_tests() {
	local dir=$1 t name
	for t in selftests/vm/"$dir"/*.sh; do
		name=${t#selftests/vm/}
		name=${name%.sh}
		case " $(echo ${SKIP:-}) " in
		*" ${name#tests/} "* | *" $name "*) continue ;;
		esac
		if [ -n "${ONLY:-}" ]; then
			case " $(echo $ONLY) " in
			*" ${name#tests/} "* | *" $name "*) ;;
			*) continue ;;
			esac
		fi
		printf '/src/%s ' "$t"
	done
}

# VM_PARTS picks the topologies (default: all of them): switch, flat,
# rails, stack, stackmp, iommu. Two parts of one kernel may run side by side, each
# with a VM_WORK_SUFFIX of its own: their module builds take turns.
suite_vm() {
	local kimage kmodroot work append start kv name=vm-$KERNEL_SERIES lk rc
	local parts=" ${VM_PARTS:-switch flat rails stack stackmp iommu} "
	exec {lk}>"$build/.prepare-$KERNEL_SERIES-$KERNEL_VARIANT.lock"
	flock "$lk"
	vm_prepare "$name"
	rc=$?
	exec {lk}>&-
	[ $rc = 0 ] || return
	if [[ $parts == *" switch "* ]]; then
		start=$(date +%s)
		run_guest "$name" "$work" "$(vm_tests tests)" \
			--kernel "$kimage" --modroot "$kmodroot" --topology switch \
			--append "$append" --timeout 1500
		echo "# $name: guest ran for $(( $(date +%s) - start )) s"
		host_side_checks "$name" "$work"
	fi
	[[ $parts == *" flat "* ]] || { suite_vm_more; return; }
	# The same kernel with the devices on the flat root bus: P2P refused.
	rm -rf "$work-flat"
	mkdir -p "$work-flat"
	cp "$work/gpupath.ko" "$work-flat/"
	# ... and with native NVMe multipath, as a kernel has it by default.
	run_guest "$name-flat" "$work-flat" "$(vm_tests tests-flat)" \
		--kernel "$kimage" --modroot "$kmodroot" --topology flat \
		--append "${append/nvme_core.multipath=N/nvme_core.multipath=Y}" --timeout 600
	host_side_checks "$name-flat" "$work-flat" data-only
	suite_vm_more
}

# suite_vm's rails and stack topologies, those in $parts.
suite_vm_more() {
	[[ $parts == *" rails "* ]] || { stack_guests; return; }
	# Two PCIe switches, each with a "GPU" and an NVMe controller, the two
	# controllers sharing one namespace (run-vm.sh --topology rails);
	# per-path block devices as in the switch suite.
	rm -rf "$work-rails"
	mkdir -p "$work-rails"
	cp "$work/gpupath.ko" "$work-rails/"
	run_guest "$name-rails" "$work-rails" "$(vm_tests tests-rails)" \
		--kernel "$kimage" --modroot "$kmodroot" --topology rails \
		--append "$append $(guest_init tests-rails)" --timeout 1800
	host_side_checks "$name-rails" "$work-rails" data-only
	stack_guests
}

# Stacks (run-vm.sh --topology stack): md arrays and dm tables over volumes
# with per-path devices, then native-multipath heads.
stack_guests() {
	[[ $parts != *" stack "* ]] || stack_guest "$name" tests-stack N
	[[ $parts != *" stackmp "* ]] || stack_guest "$name" tests-stackmp Y
	[[ $parts != *" iommu "* ]] || iommu_guest "$name"
}

# kernel_config OPTION: whether the kernel booted ($kimage, $kmodroot) was
# built with OPTION=y (Debian's stock kernels ship their config with the
# modules; a test kernel's is in its build tree).
kernel_config() {
	local c
	for c in "$kmodroot"/lib/modules/*/config "$(dirname "$kimage")/build/.config"; do
		[ -f "$c" ] && { grep -q "^$1=y" "$c"; return; }
	done
	return 1
}

# iommu_guest NAME: the tests of tests-iommu in the IOMMU topology (run-vm.sh
# --topology iommu), on a kernel with an Intel IOMMU driver: Debian's stock
# 7.3 and the 6.12 test kernel (6.1's has none).
iommu_guest() {
	local w=$work-iommu tests
	tests=$(vm_tests tests-iommu)
	[ -n "$tests" ] || return 0
	if ! kernel_config CONFIG_INTEL_IOMMU; then
		echo "# $1: no Intel IOMMU driver in this kernel: no IOMMU guest"
		return 0
	fi
	rm -rf "$w"
	mkdir -p "$w"
	cp "$work/gpupath.ko" "$w/"
	run_guest "$1-iommu" "$w" "$tests" --kernel "$kimage" --modroot "$kmodroot" \
		--topology iommu --append "$append" --timeout 900
	host_side_checks "$1-iommu" "$w" data-only
}

# stack_guest NAME DIR MULTIPATH: the tests of DIR (if any are to run) in
# the stack topology, nvme_core.multipath=MULTIPATH.
stack_guest() {
	local w=$work-${2#tests-} tests
	tests=$(vm_tests "$2")
	[ -n "$tests" ] || return 0
	rm -rf "$w"
	mkdir -p "$w"
	cp -r "$work/gpupath.ko" "$work/ynl" "$w/"
	[ ! -f "$work/nvfake.ko" ] || cp "$work/nvfake.ko" "$w/"
	run_guest "$1-${2#tests-}" "$w" "$tests" --kernel "$kimage" --modroot "$kmodroot" \
		--topology stack --append "${append/nvme_core.multipath=N/nvme_core.multipath=$3} $(guest_init "$2")" \
		--timeout 900
	host_side_checks "$1-${2#tests-}" "$w" data-only
}

# TESTS="NAME..." grouped by directory, one guest per topology.
suite_one() {
	local kimage kmodroot work append t dir topo tests mp kv
	[ -n "${TESTS:-}" ] || { notok "one: TESTS names no test"; return; }
	vm_prepare "one-$KERNEL_SERIES" || return
	for dir in tests tests-flat tests-rails tests-stack tests-stackmp tests-iommu; do
		tests=
		for t in $TESTS; do
			t=${t%.sh}
			case $t in */*) ;; *) t=$(cd selftests/vm && ls -d tests*/"$t".sh 2>/dev/null |
				head -n 1); t=${t%.sh} ;; esac
			[ -n "$t" ] && [ -f "selftests/vm/$t.sh" ] || continue
			[ "${t%/*}" = "$dir" ] && tests="$tests /src/selftests/vm/$t.sh"
		done
		[ -n "$tests" ] || continue
		case $dir in
		tests) topo=switch mp=N ;;
		tests-flat) topo=flat mp=Y ;;
		tests-stack) topo=stack mp=N ;;
		tests-stackmp) topo=stack mp=Y ;;
		tests-iommu) topo=iommu mp=N ;;
		*) topo=rails mp=N ;;
		esac
		rm -rf "$work-$dir"
		mkdir -p "$work-$dir"
		cp -r "$work/gpupath.ko" "$work/nvfake.ko" "$work/ynl" "$work/old" "$work-$dir/"
		run_guest "one-$KERNEL_SERIES-$dir" "$work-$dir" "$tests" --kernel "$kimage" \
			--modroot "$kmodroot" --topology $topo \
			--append "${append/nvme_core.multipath=N/nvme_core.multipath=$mp} $(guest_init $dir)" \
			--timeout 1500
		host_side_checks "one-$KERNEL_SERIES-$dir" "$work-$dir" data-only
	done
}

# dkms_series SERIES: DKMS builds the module against Debian's stock headers
# of SERIES, and the stock kernel boots with it (no P2PDMA there).
dkms_series() {
	local series=$1 stock rel work name=dkms-$1
	stock=$(KERNEL_SERIES=$series selftests/vm/stock-kernel.sh) ||
		{ notok "$name: fetch Debian's stock $series kernel"; return; }
	rel=$(cat "$stock/release")
	KERNEL_SERIES=$series dkms_module "$name" "$rel" "$build/vm-stock-$series.ko" || return
	work=$build/vm-stock-$series
	rm -rf "$work"
	mkdir -p "$work"
	mv "$build/vm-stock-$series.ko" "$work/gpupath.ko"
	run_guest "stock-$series" "$work" \
		"/src/selftests/vm/tests/show.sh /src/selftests/vm/tests/module-reload.sh /src/selftests/vm/tests/bar.sh /src/selftests/vm/tests/trace.sh" \
		--kernel "$stock/vmlinuz" --modroot "$stock/modroot" --topology flat \
		--modules configfs,virtio_pci,9pnet_virtio,9p,nvme \
		--append "EXPECT_P2PDMA=0" --timeout 600
	host_side_checks "stock-$series" "$work"
}

suite_dkms() {
	check "dkms: user space and test helpers build" $MAKE userspace test-bins || return
	dkms_series 6.1
	dkms_series 6.12
	selftests/vm/dkms-exclude.sh "$build/dkms-exclude"
}

# The Debian packages on this machine: make deb (debhelper) builds them,
# lintian finds no error and no warning that tools/deb/debian's overrides do
# not explain, each package holds what it should; dpkg -i installs them,
# DKMS builds the module for the installed headers, a program builds
# against libgpupath-dev with pkg-config and dpkg-shlibdeps gives it a
# versioned libgpupath0 dependency; an upgrade leaves the QoS ledger alone,
# dpkg -r takes back what it holds (a device that is gone, one without DCB
# named as left) and every file away (the configuration stays, as Debian
# keeps it), and dpkg -P the configuration. Not where gpupath packages are
# installed already: those are left alone.
DEB_PKGS="gpupath gpupath-dkms libgpupath0 libgpupath-cufile0 libgpupath-cuda0 libgpupath-dev"

# deb_has DEB PATTERN...: the package's file list has a path matching each
# extended regular expression (anchored, without the leading ".").
deb_has() {
	local deb=$1 list p
	shift
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qE "^$p\$" <<<"$list" || { echo "$deb has no $p"; return 1; }
	done
}

# deb_lacks DEB PATTERN: no path of the package matches.
deb_lacks() {
	if dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -E "$2"; then
		echo "$1 has the above"
		return 1
	fi
}

# Each package holds its part of the tree, and nothing of another's.
deb_contents() {
	local d=$1 v=$2 a ma
	a=$(dpkg --print-architecture)
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	deb_has "$d/libgpupath0_${v}_$a.deb" "/usr/lib/$ma/libgpupath\.so\.0" &&
	deb_lacks "$d/libgpupath0_${v}_$a.deb" '^/usr/(sbin|include)/|\.so$|^/etc/' &&
	deb_has "$d/libgpupath-cufile0_${v}_$a.deb" "/usr/lib/$ma/libgpupath-cufile\.so\.0" \
		"/usr/lib/$ma/gpupath/libcufile\.so\.0" &&
	deb_lacks "$d/libgpupath-cufile0_${v}_$a.deb" '^/usr/(sbin|include)/|\.so$|libgpupath\.so' &&
	deb_has "$d/libgpupath-cuda0_${v}_$a.deb" "/usr/lib/$ma/libgpupath-cuda\.so\.0" &&
	deb_lacks "$d/libgpupath-cuda0_${v}_$a.deb" '^/usr/(sbin|include)/|\.so$|libgpupath\.so' &&
	deb_needs_no_cuda "$d/libgpupath-cuda0_${v}_$a.deb" &&
	deb_has "$d/libgpupath-dev_${v}_$a.deb" /usr/include/libgpupath\.h \
		/usr/include/libgpupath-admin\.h /usr/include/gpupath/cufile\.h \
		/usr/include/gpupath/linux/gpupath\.h /usr/include/gpupath/linux/gpupath_nl\.h \
		"/usr/lib/$ma/libgpupath\.so" "/usr/lib/$ma/libgpupath-cufile\.so" \
		"/usr/lib/$ma/libgpupath\.a" "/usr/lib/$ma/pkgconfig/libgpupath\.pc" \
		"/usr/lib/$ma/pkgconfig/libgpupath-cufile\.pc" \
		/usr/share/man/man3/libgpupath\.3\.gz &&
	deb_lacks "$d/libgpupath-dev_${v}_$a.deb" '\.so\.0$|^/usr/sbin/' &&
	deb_has "$d/gpupath_${v}_$a.deb" /usr/sbin/gpupathd /usr/sbin/gpupath /usr/sbin/gpupath-bench \
		/lib/systemd/system/gpupathd\.service /lib/udev/rules\.d/69-gpupath\.rules \
		/etc/gpupath/gpupath\.conf /usr/share/man/man8/gpupathd\.8\.gz \
		/usr/share/man/man8/gpupath-bench\.8\.gz /usr/share/doc/gpupath/copyright &&
	deb_lacks "$d/gpupath_${v}_$a.deb" '\.so(\.[0-9]+)?$|^/usr/include/|\.a$' &&
	deb_has "$d/gpupath-dkms_${v}_all.deb" "/usr/src/gpupath-$v/dkms\.conf" \
		"/usr/src/gpupath-$v/Kbuild" "/usr/src/gpupath-$v/kmod/main\.c" \
		"/usr/src/gpupath-$v/uapi/linux/gpupath\.h" &&
	for p in $DEB_PKGS; do
		deb_lacks "$d/${p}_${v}_"*.deb '^/usr/include/linux/' || return 1
	done &&
	dpkg-deb --ctrl-tarfile "$d/libgpupath0_${v}_$a.deb" | tar -tf - | grep -x './symbols' &&
	dpkg-deb --ctrl-tarfile "$d/libgpupath-cufile0_${v}_$a.deb" | tar -tf - | grep -x './symbols' &&
	dpkg-deb --ctrl-tarfile "$d/libgpupath-cuda0_${v}_$a.deb" | tar -tf - | grep -x './symbols'
}

# deb_needs_no_cuda DEB: its libraries need nothing of CUDA's (NEEDED), and
# its package nothing of NVIDIA's.
deb_needs_no_cuda() {
	local dir needed
	dir=$(mktemp -d)
	dpkg-deb -x "$1" "$dir"
	needed=$(find "$dir" -name '*.so*' -type f -exec readelf -d {} + | grep NEEDED)
	rm -rf "$dir"
	if grep -iE 'cuda|nvidia' <<<"$needed"; then
		echo "$1 needs the above"
		return 1
	fi
	! dpkg-deb -f "$1" Depends | grep -iE 'cuda|nvidia'
}

# Every override in tools/deb/debian/*.lintian-overrides comes after a
# comment that says why (a block of them after one comment).
lintian_overrides_explained() {
	awk '
		/^#/ { why = 1; next }
		/^[ \t]*$/ { why = 0; next }
		!why { print FILENAME ": " $0; bad = 1 }
		END { exit bad }
	' tools/deb/debian/*.lintian-overrides
}

# deb_shlibdeps PROGRAM PACKAGE: dpkg-shlibdeps, in a source tree of its
# own, gives PROGRAM a dependency on PACKAGE (>= a version).
deb_shlibdeps() {
	local dir out
	dir=$(mktemp -d)
	mkdir "$dir/debian"
	printf 'Source: t\n\nPackage: t\nArchitecture: any\n' >"$dir/debian/control"
	cp "$1" "$dir/prog"
	out=$(cd "$dir" && dpkg-shlibdeps -O prog 2>&1)
	rm -rf "$dir"
	echo "$out"
	grep -qE "^shlibs:Depends=.*\b$2 \(>= [0-9][^)]*\)" <<<"$out"
}

# The installed cuFile and CUDA libraries load with nothing of CUDA's (the
# CUDA driver is opened when a program runs, where there is one).
deb_no_cuda() {
	local libs l bad=0
	libs=$(dpkg -L libgpupath-cufile0 libgpupath-cuda0 | grep '\.so\.0$')
	[ "$(echo "$libs" | wc -l)" -ge 3 ] || { echo "libraries: $libs"; return 1; }
	for l in $libs; do
		ldd "$l" | grep -E 'libcuda|libcudart|not found' | sed "s|^|$l: |" | grep . && bad=1
	done
	return $bad
}

# A program built against the installed libgpupath-dev (pkg-config) runs.
deb_program() {
	local dir=$build/deb-prog
	rm -rf "$dir"
	mkdir -p "$dir"
	cat >"$dir/prog.c" <<-'EOF'
	#include <stdio.h>
	#include <libgpupath-admin.h>
	int main(void)
	{
		uint32_t s;
		/* LIBGPUPATH_0 and LIBGPUPATH_0.2, and the uapi header's constants */
		if (gpupath_ana_state_parse("optimized", &s) < 0)
			return 1;
		printf("%s %s %d\n", gpupath_tools_version(), gpupath_ana_state_name(s),
		       GPUPATH_IOC_VERSION != 0);
		return 0;
	}
	EOF
	cat >"$dir/cufile.c" <<-'EOF'
	#include <cufile.h>
	int main(void) { int v = 0; return cuFileGetVersion(&v).err != CU_FILE_SUCCESS || v <= 0; }
	EOF
	gcc -Wall -Wextra -Werror $(pkg-config --cflags libgpupath) -o "$dir/prog" "$dir/prog.c" \
		$(pkg-config --libs libgpupath) &&
	gcc -Wall -Wextra -Werror $(pkg-config --cflags libgpupath-cufile) -o "$dir/cufile" \
		"$dir/cufile.c" $(pkg-config --libs libgpupath-cufile) &&
	"$dir/prog" && "$dir/cufile"
}

suite_deb() {
	local d=$build/deb ver a files left ko k rels built="" out ledger=/run/gpupath/qos-ledger
	local qos="" run_made="" p
	if dpkg-query -W -f '${db:Status-Status}\n' $DEB_PKGS 2>/dev/null | grep -x installed >/dev/null
	then
		skipped "deb: build, install and remove the packages" \
			"gpupath packages are installed on this machine: not touching them"
		return
	fi
	ver=$(gpupath_version "$top")
	a=$(dpkg --print-architecture)
	rm -rf "$d"
	check "deb: make deb builds $DEB_PKGS with debhelper" $MAKE deb DEB_OUT="$d" || return
	check "deb: each package holds its part, none of them under /usr/include/linux" \
		deb_contents "$d" "$ver"
	out=$(lintian --fail-on error,warning -I --pedantic --show-overrides \
		"$d/gpupath_${ver}_$a.changes" 2>&1)
	if [ $? = 0 ]; then
		ok "deb: lintian: no error, no warning ($(grep -c '^O:' <<<"$out") overridden," \
			"$(grep -c '^[IP]:' <<<"$out") info or pedantic)"
	else
		notok "deb: lintian: errors or warnings"
	fi
	grep -v '^running with root privileges' <<<"$out" | sed 's/^/# /'
	check "deb: every lintian override says why" lintian_overrides_explained

	debs=()
	for p in $DEB_PKGS; do debs+=("$d/${p}_${ver}_"*.deb); done
	[ -d /run/gpupath ] || run_made=1
	check "deb: dpkg -i installs $DEB_PKGS" dpkg -i "${debs[@]}" ||
		{ dpkg -P $DEB_PKGS; return; }
	rels=$(for k in /lib/modules/*/build; do [ -d "$k" ] && basename "${k%/build}"; done)
	for k in $rels; do
		dkms status -m gpupath -v "$ver" -k "$k" 2>/dev/null | grep ": installed" >/dev/null &&
			built="$built $k"
	done
	check "deb: DKMS built gpupath $ver for the kernels with headers it builds for (${built# })" \
		sh -c "[ -n '$built' ] && { [ ! -d /lib/modules/$(uname -r)/build ] ||
			echo ' $built ' | grep -q ' $(uname -r) '; }"
	for k in $built; do
		ko=$(find "/lib/modules/$k/updates" -name "gpupath.ko*" 2>/dev/null | head -n 1)
		check "deb: gpupath.ko for $k is the module of this tree ($ver)" \
			sh -c "[ -n '$ko' ] && modinfo -F version '$ko' | grep -qx '$ver'"
	done
	check "deb: the installed gpupathd runs" /usr/sbin/gpupathd --version
	check "deb: the installed gpupathd checks the installed configuration" \
		/usr/sbin/gpupathd --check-config
	check "deb: the installed man pages render" sh -c \
		'for m in /usr/share/man/man*/gpupath*.gz /usr/share/man/man3/libgpupath*.gz; do
			zcat "$m" | groff -man -Tutf8 -ww -z 2>&1 | grep . && exit 1; done; exit 0'
	check "deb: a program builds against libgpupath-dev with pkg-config and runs" deb_program
	check "deb: dpkg-shlibdeps: the program depends on libgpupath0 (>= $ver)" \
		deb_shlibdeps "$build/deb-prog/prog" libgpupath0
	check "deb: the packaged cuFile and CUDA libraries need nothing of CUDA (ldd)" deb_no_cuda
	check "deb: dpkg-shlibdeps: a cuFile program depends on libgpupath-cufile0" \
		deb_shlibdeps "$build/deb-prog/cufile" libgpupath-cufile0

	# QoS settings gpupathd made, as its ledger holds them: on a device
	# that is not there, and PFC on lo, which has no DCB to take it back
	# from. (Not where a ledger is there already: a gpupathd's own.)
	if [ -e "$ledger" ]; then
		skipped "deb: QoS settings taken back on removal" "$ledger exists on this machine"
	else
		qos=1
		mkdir -p /run/gpupath
		printf '%s\n' "pfc gp-gone0 3 0" "dcb-app-dscp gp-gone0 $((26 << 8 | 3)) 0" \
			"ecn-roce_np gp-gone0 3 0" "default_roce_tos gp-gone-rxe 0 0" "pfc lo 3 0" \
			>"$ledger"
		cp "$ledger" "$build/deb-ledger"
		check "deb: an upgrade (gpupath again) leaves the QoS settings in place" sh -c \
			"dpkg -i $d/gpupath_${ver}_$a.deb && cmp $build/deb-ledger $ledger"
		grep -q '_dh_action=restart\|deb-systemd-invoke restart' \
			/var/lib/dpkg/info/gpupath.postinst &&
			! grep -q 'stop' /var/lib/dpkg/info/gpupath.preinst 2>/dev/null &&
			ok "deb: an upgrade restarts gpupathd once configured, never stopped before" ||
			notok "deb: an upgrade restarts gpupathd once configured, never stopped before"
	fi
	files=$(dpkg -L $DEB_PKGS | while read -r f; do [ -f "$f" ] && echo "$f"; done)
	out=$(dpkg -r $DEB_PKGS 2>&1)
	if [ $? = 0 ]; then
		ok "deb: dpkg -r removes them"
	else
		sed 's/^/# /' <<<"$out"
		notok "deb: dpkg -r removes them"
	fi
	if [ -n "$qos" ]; then
		grep -i 'qos\|taken back' <<<"$out" | sed 's/^/# /'
		check "deb: dpkg -r takes back what the QoS ledger holds, names what it cannot" sh -c \
			'for l in "gp-gone0: pfc on priority 3: taken back" \
				"gp-gone0: dcb-app-dscp 26 -> priority 3: taken back" \
				"gp-gone0: ecn-roce_np on priority 3 (0 before): taken back" \
				"gp-gone-rxe: default_roce_tos of port 1 (0 before): taken back" \
				"lo: pfc on priority 3: NOT taken back"; do
				printf "%s\n" "$1" | grep -qF "$l" || { echo "no \"$l\""; exit 1; }
			done
			[ "$(cat '"$ledger"')" = "pfc lo 3 0" ]' sh "$out"
	fi
	left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done | grep -vx /etc/gpupath/gpupath.conf)
	check "deb: no file of theirs is left but the configuration ($(echo "$files" | wc -l) were installed)" \
		test -z "$left"
	[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
	check "deb: DKMS knows no gpupath and no gpupath.ko is left" sh -c \
		"! dkms status -m gpupath | grep -q . && ! find /lib/modules -name 'gpupath.ko*' | grep -q ."
	out=$(dpkg -P $DEB_PKGS 2>&1)
	check "deb: dpkg -P removes the configuration" sh -c \
		'[ ! -e /etc/gpupath/gpupath.conf ] && ! dpkg-query -W '"$DEB_PKGS"' 2>/dev/null | grep -q .'
	if [ -n "$qos" ]; then
		grep -i 'qos\|ledger\|^  ' <<<"$out" | sed 's/^/# /'
		check "deb: dpkg -P names the QoS setting left and keeps its ledger, nothing else" \
			sh -c 'printf "%s\n" "$1" | grep -q "^  pfc lo 3 0$" &&
				[ "$(ls /run/gpupath)" = qos-ledger ]' sh "$out"
	fi
	[ -z "$run_made" ] || rm -rf /run/gpupath
}

# "all" starts both test kernels' builds (each skipped where it is cached)
# in the background as the lanes start with the host and static suites,
# which leave about half of the machine idle: 6.1 at normal priority, its
# guests come next; 6.12 at low priority, taking what the 6.1 guests leave,
# its guests come last. The vm suites wait for their kernel (build-kernel.sh locks). The
# 6.1 source is unpacked first, in the foreground: the host suite reads it.
background_kernel_builds() {
	ksrc_dir >/dev/null || return
	KERNEL_SERIES=6.1 selftests/vm/build-kernel.sh >/dev/null 2>"$build/log/kernel-6.1.log" &
	KERNEL_SERIES=6.12 nice -n 19 selftests/vm/build-kernel.sh >/dev/null \
		2>"$build/log/kernel-6.12.log" &
}

# The performance lab's smoke run: one boot, two devices, jobs of 100 ms of
# guest time. The figures are printed, never judged (make bench measures):
# what is checked is that the lab boots, runs every job without an error
# and reports a figure for each.
suite_lab() {
	local out=$build/lab-smoke log=$build/log/lab.log start same moved
	start=$(date +%s)
	if LAB_KERNELS=6.1 LAB_BOOTS=1 LAB_MODES=paths LAB_ONLY=raw,vol-round-robin-1 \
		LAB_MS=100 LAB_WARMUP_MS=100 LAB_OUT=$out selftests/lab/run.sh >"$log" 2>&1; then
		ok "lab: make bench's smoke run booted and reported ($(( $(date +%s) - start )) s)"
	else
		sed 's/^/# /' "$log" | tail -30
		notok "lab: make bench's smoke run (log: ${log#"$top"/})"
		return
	fi
	if jq -e '."6.1" | (.raw | length) == 4 and (."vol-round-robin-1" | length) == 4 and
		([.raw[], ."vol-round-robin-1"[]] | all(.instructions_per_io > 0)) and
		(."vol-round-robin-1" | all((.added | type) == "number"))' \
		"$out/lab.json" >/dev/null 2>&1; then
		ok "lab: a figure for each of the 4 jobs on both devices, the volume's against the raw one"
	else
		notok "lab: the report lacks figures: $(jq -c . "$out/lab.json" 2>&1 | head -c 400)"
	fi
	# LAB_AGAINST's comparison: against its own summary, one figure moved.
	jq '."6.1".raw."randread-4k-qd1".instructions_per_io *= 1.01' "$out/lab.json" \
		>"$out/moved.json"
	# (Each report is read whole before grep looks at it: grep -q stops
	# reading at its match, and the report would die of a broken pipe.)
	same=$(python3 selftests/lab/report.py --against "$out/lab.json" "$out/lab.jsonl" 2>&1)
	moved=$(python3 selftests/lab/report.py --against "$out/moved.json" "$out/lab.jsonl" 2>&1)
	if grep -q "8 figures compared, 0 differ by over 0.5%" <<<"$same" &&
		grep -A1 "8 figures compared, 1 differ by over 0.5%, the largest by -0.990%" \
			<<<"$moved" | grep -q "^  raw randread-4k-qd1 "; then
		ok "lab: a run against an earlier one: the one figure moved by 1% is named"
	else
		notok "lab: a run against an earlier one: $(tail -3 <<<"$same") / $(tail -3 <<<"$moved")"
	fi
	# A boot's median repetition counts: one faster and one slower than
	# the middle one (25,000 IOPS: 20,000 instructions at shift 1) move
	# nothing.
	for i in 26500:1 25000:2 21000:3; do
		printf '{"kernel":"t","boot":1,"shift":1,"mode":"paths","config":"raw","job":"randread-4k-qd1","rep":%s,"iops":%s,"bw":1,"errors":0}\n' \
			"${i#*:}" "${i%:*}"
	done >"$out/median.jsonl"
	if python3 selftests/lab/report.py --json "$out/median.json" "$out/median.jsonl" >/dev/null &&
		jq -e '.t.raw."randread-4k-qd1".instructions_per_io == 20000' "$out/median.json" >/dev/null
	then
		ok "lab: a boot's median repetition counts, not its fastest or slowest"
	else
		notok "lab: median repetition: $(jq -c .t "$out/median.json" 2>&1 | head -c 300)"
	fi
	sed -n '/instructions added/,/^$/{/^$/d;s/^/# /p}' "$out/report.txt"
	# The reads from QEMU's emulated NVMe (selftests/lab/pcie.sh): one boot,
	# the namespace into host memory and into the BAR directly (the guest
	# checks every byte of direct went direct).
	start=$(date +%s)
	if LAB_KERNELS=6.1 LAB_BOOTS=1 LAB_MODES=pcie LAB_REPS=1 LAB_ONLY=ns-host,ns-direct \
		LAB_OUT=$out-pcie selftests/lab/run.sh >"$log.pcie" 2>&1 &&
		jq -e '."6.1" | [."ns-host", ."ns-direct"] |
			all(."pcie-1m".instructions_per_gb > 0 and ."pcie-128k".instructions_per_gb > 0)' \
			"$out-pcie/lab.json" >/dev/null 2>&1; then
		ok "lab: reads from QEMU's NVMe into host memory and the BAR counted ($(( $(date +%s) - start )) s)"
		sed -n '/from QEMU/,/^$/{/^$/d;s/^/# /p}' "$out-pcie/report.txt"
	else
		sed 's/^/# /' "$log.pcie" | tail -30
		notok "lab: reads from QEMU's NVMe (log: ${log#"$top"/}.pcie)"
	fi
}

suite_vm2() {
	KERNEL_SERIES=6.12 ONLY=$SECOND_KERNEL suite_vm
}

# vm2 in two parts, for make test's two lanes: the switch topology, and the
# others (a work directory of their own).
VM2A_PARTS="switch"
suite_vm2a() {
	KERNEL_SERIES=6.12 ONLY=$SECOND_KERNEL VM_PARTS=$VM2A_PARTS suite_vm
}
suite_vm2b() {
	local p all="switch flat rails stack stackmp iommu" rest=
	for p in $all; do [[ " $VM2A_PARTS " == *" $p "* ]] || rest="$rest $p"; done
	KERNEL_SERIES=6.12 ONLY=$SECOND_KERNEL VM_PARTS=$rest VM_WORK_SUFFIX=-b suite_vm
}

# The whole VM suite on Debian's stock 7.3 kernel (trixie-backports), the
# module built by DKMS in the Debian 13 tree against its stock headers.
suite_vm3() {
	KERNEL_SERIES=7.3 KERNEL_VARIANT=default suite_vm
}

# run_lane NAME SUITE...: the suites one after the other, their TAP into
# $log.NAME, the time of each into $build/log/times.NAME.
run_lane() {
	local lane=$1 s t0 label
	shift
	: >"$log.$lane"
	: >"$build/log/times.$lane"
	for s in "$@"; do
		echo "# suite $s"
		t0=$(date +%s)
		"suite_$s" 2>&1 | tee -a "$log.$lane"
		label=$s
		case $s in
		vm | one) label="$s ($KERNEL_SERIES, $KERNEL_VARIANT)" ;;
		fuzz | stress) label="$s ($KERNEL_SERIES, ${KERNEL_VARIANT_LONG:-debug})" ;;
		vm2) label="vm (6.12, second kernel)" ;;
		vm2a) label="vm (6.12: $VM2A_PARTS)" ;;
		vm2b) label="vm (6.12: the other parts)" ;;
		vm3) label="vm (7.3, Debian's stock)" ;;
		esac
		printf '#   %-28s %5d s\n' "$label" $(( $(date +%s) - t0 )) >>"$build/log/times.$lane"
	done
}

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(all)
all=
if [ "${suites[*]}" = all ]; then
	all=1
	# The benchmarks among the VM tests, shorter: 4 pairs of runs per
	# comparison instead of 12 (they assert no figure, only clean runs).
	export BENCH_PAIRS=${BENCH_PAIRS:-4}
	[ "$KERNEL_SERIES" = 6.1 ] || die "make test runs every kernel: leave KERNEL_SERIES unset"
fi
for s in "${suites[@]}"; do
	case $s in
	all | host | static | vm | vm2 | vm2a | vm2b | vm3 | lab | dkms | deb | fuzz | stress | one) ;;
	*) die "unknown suite '$s' (host, static, vm, vm2, vm2a, vm2b, vm3, lab, dkms, deb, fuzz, stress, one, all)" ;;
	esac
done
log=$build/test.log
: >"$log"
mkdir -p "$build/log"
rm -f "$log".* "$build"/log/times.*
start=$(date +%s)
if [ -n "$all" ]; then
	# The test kernels' builds start first, in the background. Then two
	# lanes side by side, each guest on one virtual CPU (run-vm.sh): one
	# host core each. A vm suite waits for its kernel's build
	# (build-kernel.sh locks); 7.3 is Debian's stock kernel and starts at
	# once. The lanes take about the same time (Documentation/testing.md).
	background_kernel_builds
	SKIP=$FIRST_KERNEL_SKIP run_lane 1 ${LANE1:-host vm vm2a lab deb} &
	run_lane 2 ${LANE2:-static vm3 vm2b dkms}
	wait
	suites=("${LANE1:-host vm vm2a lab deb}" "${LANE2:-static vm3 vm2b dkms}")
else
	run_lane 0 "${suites[@]}"
fi
wait
cat "$log".* >>"$log"
pass=$(grep -a -c -E '^ok ' "$log")
skip=$(grep -a -c -E '^ok .*# SKIP' "$log")
fail=$(grep -a -c -E '^not ok ' "$log")
if [ "$fail" -gt 0 ]; then
	echo "# what failed:"
	grep -a -E '^not ok ' "$log" | head -40 | sed 's/^/#   /'
fi
echo "# time of each phase (two lanes side by side):"
cat "$build"/log/times.*
echo "# ${suites[*]}: $(( $(date +%s) - start )) s"
echo "$((pass - skip)) passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
