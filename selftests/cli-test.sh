#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CLI and the daemon on the host, where the module is not loaded: bad
# input gets a clear message and the documented exit status. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
GP=$top/tools/gpupath/gpupath
GPD=$top/daemon/gpupathd
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# t NAME WANT_RC PATTERN CMD...: CMD exits WANT_RC and its output matches
# the extended regular expression PATTERN.
t() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -eq "$want" ] && grep -qE -- "$pat" "$out"; then
		echo "ok - cli: $name"
	else
		sed 's/^/# /' "$out"
		echo "not ok - cli: $name (exit $rc, wanted $want and /$pat/)"
	fi
}

if "$GP" show >/dev/null 2>&1; then
	echo "ok - cli: module-absent checks # SKIP a gpupath module is loaded on this host"
else
	t "show without the module says how to load it" 1 'module is not loaded.*modprobe gpupath' "$GP" show
	t "version without the module" 0 '^module not loaded' "$GP" version
	t "version -j without the module is JSON with module null" 0 '"module":null' "$GP" version -j
	t "volume show without the module says how to load it" 1 'module is not loaded' "$GP" volume show
	t "good path arguments get as far as the module" 1 'module is not loaded' \
		"$GP" path add 1 /dev/nvme0n1 weight 1000 rail 0 state draining
	t "numbers: leading zeros are decimal, 0x is hex" 1 'module is not loaded' \
		"$GP" qos add gold dscp 08 priority 0x7
fi
t "topology works without the module" 0 '^(host bridge|no GPU found)' "$GP" topology
t "topology: stray argument" 2 'Usage: gpupath topology' "$GP" topology extra
t "no command prints usage" 2 '^Usage: gpupath' "$GP"
t "unknown command" 2 "unknown command 'frobnicate'" "$GP" frobnicate
t "unknown option" 2 'Usage: gpupath' "$GP" --frobnicate show
t "stray argument to show" 2 'Usage: gpupath show' "$GP" show extra
t "help lists the commands" 0 'monitor.*notifications' "$GP" --help
t "run without a program prints usage" 2 'Usage: gpupath run' "$GP" run --
t "run without gpupath's cuFile library says so" 1 'install gpupath.s libraries, or set GPUPATH_CUFILE' \
	env GPUPATH_CUFILE=/nonexistent/libcufile.so.0 "$GP" run true
t "run: a program that is not there" 127 'gpupath: run: /nonexistent/prog: No such file' \
	env GPUPATH_CUFILE=/dev/null "$GP" run /nonexistent/prog
t "run passes its arguments and the program's exit status" 3 '^a -j b$' \
	env GPUPATH_CUFILE=/dev/null "$GP" run sh -c 'echo "$@"; exit 3' - a -j b
t "diagnose --pid: the cuFile library of a process" 0 ': no cuFile library loaded$' \
	"$GP" diagnose --pid $$
t "diagnose --pid without a PID" 2 'Usage: gpupath diagnose' "$GP" diagnose --pid
t "diagnose --pid with a FILE too" 2 'Usage: gpupath diagnose' "$GP" diagnose /etc/hosts --pid $$
t "cufile: not a process ID" 1 'cufile: 12x: not a process ID' "$GP" cufile 12x
t "cufile: a process with no cuFile library" 0 ': no cuFile library loaded$' "$GP" cufile $$
t "monitor --count 0 is refused" 2 "positive number, not '0'" "$GP" monitor --count 0
t "monitor --count junk is refused" 2 "positive number, not '3x'" "$GP" monitor --count 3x
t "daemon --version" 0 '^gpupathd [0-9]+\.[0-9]+\.[0-9]+' "$GPD" --version
t "daemon refuses --interval 0" 2 'interval' "$GPD" --foreground --interval 0
t "daemon refuses --interval 3601" 2 'interval' "$GPD" --foreground --interval 3601
t "stats: -j and --prometheus together are refused" 2 'exclude each other' \
	"$GP" stats -j --prometheus
t "stats: stray argument" 2 'Usage: gpupath stats' "$GP" stats extra
t "diagnose: unknown option" 2 'Usage: gpupath diagnose' "$GP" diagnose --frobnicate
t "daemon refuses --metrics-port 0" 2 "invalid metrics port '0'" "$GPD" --metrics-port 0
t "daemon refuses --metrics-port 65536" 2 "invalid metrics port" "$GPD" --metrics-port 65536
t "daemon refuses an unknown option" 2 'gpupathd --help' "$GPD" --frobnicate
t "daemon refuses a stray argument" 2 'gpupathd --help' "$GPD" --foreground extra
t "daemon refuses --check-config with --release-qos" 2 'exclude each other' \
	"$GPD" --check-config --release-qos
# (Where no gpupathd has left a ledger: --release-qos then touches nothing.)
if [ ! -e /run/gpupath/qos-ledger ] && [ ! -e /run/gpupath/qos-ledger.lock ]; then
	t "daemon --release-qos without a ledger: nothing to take back" 0 \
		"^no QoS setting of gpupathd's is left" "$GPD" --release-qos
fi

# gpupath.conf, checked without the module: every mistake named with its line.
conf=$(mktemp)
trap 'rm -f "$out" "$conf"' EXIT
# c NAME LINE PATTERN TEXT: --check-config on TEXT fails, naming LINE.
c() {
	printf '%b' "$4" >"$conf"
	t "gpupath.conf: $1" 1 "^$conf:$2: $3" "$GPD" --check-config -c "$conf"
}
t "gpupath.conf: the shipped file names nothing and is good" 0 'good: 0 portals, 0 QoS classes' \
	"$GPD" --check-config -c "$top/daemon/gpupath.conf"
sed 's/^#\([^ #\t-]\)/\1/' "$top/daemon/gpupath.conf" >"$conf"
t "gpupath.conf: the shipped examples, uncommented, are good" 0 \
	'good: 4 portals, 1 QoS class$' "$GPD" --check-config -c "$conf"
t "gpupath.conf: a missing file is an error" 1 'cannot read .*/nonexistent.conf: No such file' \
	"$GPD" --check-config -c "$top/nonexistent.conf"
c "a setting outside any section" 2 "'dscp' is outside any section" '# x\ndscp = 1\n'
c "unknown section" 3 'unknown section \[volume\]' '\n\n[volume v]\n'
c "section without a name" 1 '\[portal\] needs a name' '[portal]\n'
c "bad name" 1 "portal name 'a/b' \\(3 characters\\): 1 to 31 of letters, digits" '[portal a/b]\n'
c "name defined twice" 4 'qos q is defined twice' '[qos q]\ndscp = 1\n\n[qos q]\ndscp = 2\n'
c "unclosed header" 1 "a section header ends with '\]'" '[qos q\n'
c "missing =" 2 'expected KEYWORD = VALUE' '[qos q]\ndscp 1\n'
c "qos without dscp" 1 'qos q: no dscp' '[qos q]\npriority = 1\n'
c "dscp out of range" 2 'qos q: dscp must be 0 to 63, not 64' '[qos q]\ndscp = 64\n'
c "pfc not on/off" 3 "qos q: pfc is on or off, not 'yes'" '[qos q]\ndscp = 1\npfc = yes\n'
c "a keyword twice" 3 "qos q: 'dscp' given twice" '[qos q]\ndscp = 1\ndscp = 2\n'
c "unknown keyword lists the keywords" 3 \
	"portal p: unknown keyword 'addr' \(one of: rails qos .* traddr nqn discover\)" \
	'[portal p]\ntransport = tcp\naddr = 10.0.0.1\n'
c "portal without traddr" 1 'portal p: no traddr' '[portal p]\ntransport = tcp\n'
c "host NQN not an NQN" 4 "portal p: host-nqn: 'tenant-a' is not an NVMe qualified name" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nhost-nqn = tenant-a\n'
c "host ID not a UUID" 4 "portal p: host-id: '1234' is not a UUID" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nhost-id = 1234\n'
c "secret file not absolute" 4 \
	"portal p: dhchap-secret-file: 'keys/a' is not an absolute path" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\ndhchap-secret-file = keys/a\n'
c "portal without transport" 1 'portal p: no transport' '[portal p]\ntraddr = 10.0.0.1\n'
c "unknown transport" 2 "portal p: unknown transport 'fc' \(one of: rdma tcp\)" \
	'[portal p]\ntransport = fc\ntraddr = 10.0.0.1\n'
c "traddr not an address" 3 "portal p: traddr 'target1' is not an IPv4 or IPv6 address" \
	'[portal p]\ntransport = tcp\ntraddr = target1\n'
c "nqn not an NQN" 4 "portal p: nqn 'pool0' is not an NVMe qualified name" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nnqn = pool0\n'
c "bad rails" 4 "portal p: rails: '1' is not RAIL:IFACE" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nrails = 1\n'
c "a rail given twice" 4 "portal p: rails: rail 1 is given twice" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nrails = 1:eth0,1:eth1\n'
c "a rail's host address" 4 "portal p: rails: host address '10.1' is not an IPv4 or IPv6" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nrails = 1:@10.1\n'
c "an NQN with a space" 4 "portal p: nqn 'nqn.a b' is not an NVMe qualified name" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nnqn = nqn.a b\n'
c "bad timeout word" 4 "portal p: ctrl-loss-tmo \(or forever\): 'never' is not a number" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nctrl-loss-tmo = never\n'
c "daemon interval out of range" 2 '\[daemon\]: interval must be 1 to 3600, not 0' \
	'[daemon]\ninterval = 0\n'
c "a NUL byte" 2 'a NUL byte in the line' '[qos q]\ndscp = 1\0\n'
# What the module refuses of a portal as a whole: refused by --check-config
# too, so that a file it calls good is one a reload applies.
c "a host NQN of its own without a host ID" 1 \
	"portal p: a host NQN of its own needs a host ID of its own \\(host-id\\)" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nhost-nqn = nqn.2026-12.io.x:tenant-a\n'
printf '[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nhost-nqn = nqn.2014-08.org.nvmexpress:uuid:0f8fad5b-d9cb-469f-a165-70867728950e\n' >"$conf"
t "gpupath.conf: a host NQN ending in its UUID needs no host ID" 0 'good: 1 portal, 0 QoS' \
	"$GPD" --check-config -c "$conf"
c "a controller secret without a host secret" 1 \
	'portal p: a controller secret needs a host secret' \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\ndhchap-ctrl-secret-file = /etc/k\n'
c "discover mdns without rails" 1 'portal p: discover = mdns needs rails' \
	'[portal p]\ntransport = tcp\ndiscover = mdns\n'
c "two portals with the same target" 5 "portal b: portal a \\(line 1\\) has this target" \
	'[portal a]\ntransport = tcp\ntraddr = 10.0.0.1\n\n[portal b]\ntransport = tcp\ntraddr = 10.0.0.1\ntrsvcid = 4420\n'
c "an NQN with a comma" 4 "portal p: nqn 'nqn.2026-12.io.x:a,fast_io_fail_tmo=0' is not an NVMe" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nnqn = nqn.2026-12.io.x:a,fast_io_fail_tmo=0\n'
c "an empty rail" 4 "portal p: rails: ',,,' has an empty rail" \
	'[portal p]\ntransport = tcp\ntraddr = 10.0.0.1\nrails = ,,,\n'
printf '[qos q]\ndscp = 99\n[portal p]\ntransport = x\n' >"$conf"
t "gpupath.conf: every mistake is reported, then counted" 1 '^.*: 3 mistakes$' \
	"$GPD" --check-config -c "$conf"
t "gpupathd refuses to start on a file with mistakes" 1 "$conf:2: qos q: dscp must be" \
	"$GPD" --foreground -c "$conf"

# Volumes and paths: arguments are checked before anything is sent, so these
# behave the same with or without the module.
t "help lists volume and path" 0 'path .*add VOL DEVICE' "$GP" --help
t "volume: unknown subcommand" 2 "unknown volume command 'frob'" "$GP" volume frob
t "volume add: unknown policy lists the policies" 2 \
	"unknown policy 'fastest' \(one of: round-robin queue-depth service-time weighted gpu-affinity\)" \
	"$GP" volume add policy fastest
t "volume add: fallback gpu-affinity is refused" 2 'gpu-affinity cannot be its own fallback' \
	"$GP" volume add policy gpu-affinity fallback gpu-affinity
t "volume add: queue-timeout must be a number" 2 "queue-timeout.*'10s' is not a number" \
	"$GP" volume add queue-timeout 10s
t "volume add: queue-timeout below forever" 2 'must be 0 to 4294967294' \
	"$GP" volume add queue-timeout 4294967295
t "volume add: unknown keyword lists the keywords" 2 \
	"unknown keyword 'weight' \(one of: wwid policy fallback queue-timeout\)" \
	"$GP" volume add weight 1
t "volume add: keyword without a value" 2 "'policy' needs a value" "$GP" volume add policy
t "volume add: keyword given twice" 2 "'policy' given twice" \
	"$GP" volume add policy weighted policy round-robin
t "volume add: empty wwid" 2 'wwid cannot be empty' "$GP" volume add wwid ''
t "volume set: wwid is not settable" 2 "unknown keyword 'wwid'" "$GP" volume set 1 wwid x
t "volume set: nothing to set" 2 'nothing to set' "$GP" volume set 1
t "volume set: volume id 0" 2 "'0' is not a volume id" "$GP" volume set 0 policy weighted
t "volume del: needs VOL" 2 'Usage: gpupath volume' "$GP" volume del
t "volume show: one VOL at most" 2 'Usage: gpupath volume' "$GP" volume show 1 2
t "path: unknown subcommand" 2 "unknown path command 'frob'" "$GP" path frob
t "path add: needs VOL and DEVICE" 2 'Usage: gpupath path' "$GP" path add 1
t "path add: weight 0" 2 'weight must be 1 to 1000, not 0' "$GP" path add 1 /dev/nvme0n1 weight 0
t "path add: weight 1001" 2 'weight must be 1 to 1000, not 1001' \
	"$GP" path add 1 /dev/nvme0n1 weight 1001
t "path add: weight not a number" 2 "weight: '1k' is not a number" \
	"$GP" path add 1 /dev/nvme0n1 weight 1k
t "path add: rail beyond u32" 2 'rail must be 0 to 4294967295' \
	"$GP" path add 1 /dev/nvme0n1 rail 4294967296
t "path add: unknown state lists the states" 2 "unknown state 'sideways' \(one of: up down draining\)" \
	"$GP" path add 1 /dev/nvme0n1 state sideways
t "path set: unknown keyword" 2 "unknown keyword 'policy' \(one of: weight rail state link ana ana-tt ana-group\)" \
	"$GP" path set 3 policy weighted
t "path set: nothing to set" 2 'nothing to set' "$GP" path set 3
t "portal: unknown subcommand" 2 "unknown portal command 'frob'" "$GP" portal frob
t "portal add: needs transport and traddr" 2 'transport and traddr \(or discover mdns\) are needed' \
	"$GP" portal add p1 traddr 10.0.0.1
t "portal add: unknown transport" 2 "unknown transport 'fc' \(one of: rdma tcp\)" \
	"$GP" portal add p1 transport fc traddr 10.0.0.1
t "portal add: port 0" 2 'trsvcid must be 1 to 65535, not 0' \
	"$GP" portal add p1 transport tcp traddr 10.0.0.1 trsvcid 0
t "portal add: a rail without an interface or address" 2 "'1' is not RAIL:IFACE" \
	"$GP" portal add p1 transport rdma traddr 10.0.0.1 rails 1
t "portal add: rail 0" 2 'rail must be 1 to 4294967295, not 0' \
	"$GP" portal add p1 transport rdma traddr 10.0.0.1 rails 0:eth0
t "portal add: interface name too long" 2 "'abcdefghijklmnopq' is not an interface name" \
	"$GP" portal add p1 transport rdma traddr 10.0.0.1 rails 1:abcdefghijklmnopq
t "portal add: reconnect-delay 0" 2 'reconnect-delay must be 1 to 3600' \
	"$GP" portal add p1 transport tcp traddr 10.0.0.1 reconnect-delay 0
t "portal set: the target cannot change" 2 "unknown keyword 'traddr'" \
	"$GP" portal set p1 traddr 10.0.0.2
t "portal set: nothing to set" 2 'nothing to set' "$GP" portal set p1
t "portal del: needs PORTAL" 2 'Usage: gpupath portal' "$GP" portal del
t "qos: unknown subcommand" 2 "unknown qos command 'frob'" "$GP" qos frob
t "qos add: needs a dscp" 2 'a class needs a dscp' "$GP" qos add gold priority 3
t "qos add: dscp 64" 2 'dscp must be 0 to 63, not 64' "$GP" qos add gold dscp 64
t "qos add: priority 8" 2 'priority must be 0 to 7, not 8' "$GP" qos add gold dscp 1 priority 8
t "qos add: pfc yes" 2 "pfc is on or off, not 'yes'" "$GP" qos add gold dscp 1 pfc yes
t "qos add: ets 101" 2 'ets must be 0 to 100, not 101' "$GP" qos add gold dscp 1 ets 101
t "qos set: nothing to set" 2 'nothing to set' "$GP" qos set gold
t "path set: PATH is an id" 2 "'nvme1n1' is not a path id" "$GP" path set nvme1n1 weight 2
t "path del: path id 0" 2 "'0' is not a path id" "$GP" path del 0
t "path show volume: needs VOL" 2 'Usage: gpupath path' "$GP" path show volume
t "provider del: bad id before the module is asked" 2 "'x' is not a provider id" "$GP" provider del x

# What a new user tries: each refusal names the argument, the rule and the limit.
t "a negative number is a value, not an option" 2 "dscp: '-1' is not a number from 0 to 63" \
	"$GP" qos add gold dscp -1
t "numbers are decimal: 077 is not octal 63" 2 'dscp must be 0 to 63, not 077 \(decimal 77: no octal\)' \
	"$GP" qos add gold dscp 077
t "an unknown option of a command is named" 2 "unknown option '--frobnicate'" \
	"$GP" volume show --frobnicate
t "volume add: a wwid with a space" 2 'wwid: character 2 is whitespace \(0x20\)' \
	"$GP" volume add wwid 'a b'
t "volume add: a wwid with a newline" 2 'wwid: character 2 is whitespace \(0x0a\)' \
	"$GP" volume add wwid "$(printf 'a\nb')"
t "volume add: a wwid of 300 characters" 2 'is 300 characters long, at most 255' \
	"$GP" volume add wwid "$(printf 'w%.0s' $(seq 300))"
t "portal add: a name of 40 characters" 2 "\(40 characters\): 1 to 31 of letters" \
	"$GP" portal add "$(printf 'n%.0s' $(seq 40))" transport tcp traddr 10.0.0.1
t "qos add: a name with a slash" 2 "qos class name 'a/b' \(3 characters\)" "$GP" qos add a/b dscp 1
t "portal add: an nqn of 300 characters" 2 'nqn .* is 300 characters long, at most 223' \
	"$GP" portal add p1 transport tcp traddr 10.0.0.1 nqn "$(printf 'q%.0s' $(seq 300))"
t "path add: a device path of 5000 characters" 2 'is 5005 characters long, at most 4095' \
	"$GP" path add 1 "/dev/$(printf 'x%.0s' $(seq 5000))"
fifo=$(mktemp -u)
mkfifo "$fifo"
t "gpupathd: a config path that is a directory" 1 'cannot read /tmp: it is a directory' \
	"$GPD" --check-config -c /tmp
t "gpupathd: a config path that is a FIFO" 1 'it is not a regular file \(a FIFO' \
	timeout 5 "$GPD" --check-config -c "$fifo"
rm -f "$fifo"
