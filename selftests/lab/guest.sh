# SPDX-License-Identifier: GPL-2.0
# The performance lab, inside the guest (selftests/lab/run.sh boots it under
# QEMU's icount, one vCPU, kmemleak off). Every I/O is guest CPU work:
# nvme-loop over null_blk (no data copied, completion in softirq), so guest
# time is instructions x 2^shift ns and the figures repeat from boot to boot.
#
# LAB_MODE=paths (nvme_core.multipath=N): 8 loop controllers of one
#   subsystem, 8 block devices of one namespace; measured: the raw namespace,
#   dm-linear on it, gpupath volumes of 1, 2, 4 and 8 paths under each
#   policy, md RAID0 over two namespaces (raw, and as one-path volumes), the namespace and a one-path volume over NVMe/TCP and NVMe/RDMA
#   (soft-RoCE), and the data path (gpupath-bench: compat and host reads of 1 MiB
#   from the namespace, from a memory-backed null_blk and from a file on
#   XFS on it).
# LAB_MODE=head (nvme_core.multipath=Y): the native multipath head with 1
#   path, with 8 paths (iopolicy numa and round-robin), a gpupath volume
#   over the one-path head, and md RAID0 over the two one-path heads.
# LAB_MS (default 500) ms of guest time for each job after LAB_RAMP_MS (100)
# of ramp (fio reads "0.5" as 5 seconds: whole milliseconds here), after
# LAB_WARMUP_MS (3000) of each job uncounted on the first device;
# LAB_ONLY (optional): the configurations to run, comma-separated, e.g.
# raw,vol-round-robin-1,head-1 (a kernel parameter has no spaces).
# LAB_REPS (3): each job runs as that many repetitions of LAB_MS / LAB_REPS;
# the report keeps a boot's median one (a repetition may catch a burst of
# the kernel's own background work, or run faster than the others).
# One JSON object per repetition of a job goes to /out/lab.jsonl.
. /src/selftests/vm/guest-lib.sh

MODE=${LAB_MODE:-paths}
MS=${LAB_MS:-500}
RAMP=${LAB_RAMP_MS:-100}
REPS=${LAB_REPS:-3}
# Each repetition's milliseconds.
REP_MS=$(( MS / REPS > 0 ? MS / REPS : 1 ))
NPATHS=8
OUT=/out/lab.jsonl
# The lab's subsystem (guest-lib's nvmet helpers act on $NQN).
NQN=nqn.2026-12.io.gpupath:lab
POLICIES="round-robin queue-depth service-time weighted gpu-affinity"
# Huge pages reserved for the buffers (fio: 2 MiB for QD16 x 128 KiB;
# gpupath-bench: 2 MiB of host buffer, 4 MiB of bounce).
HUGEPAGES=8
: >$OUT

# The jobs: name, then fio's options. The 128 KiB reads' buffers come from
# huge pages: in pages of 4 KiB, how many of them happen to be contiguous
# (so how many segments an I/O takes) changed from boot to boot, and their
# figures with it (by 0.5-2% on 6.12). gpupath-bench's host buffers and
# compat bounce buffer come from the same pool (GPUPATH_HUGEPAGES=1; 1 MiB
# reads from the loop namespace spread by 3-22% without).
JOBS="randread-4k-qd1:rw=randread,bs=4k,iodepth=1
randread-4k-qd16:rw=randread,bs=4k,iodepth=16
read-128k-qd16:rw=read,bs=128k,iodepth=16,iomem=shmhuge
randwrite-4k-qd1:rw=randwrite,bs=4k,iodepth=1"

wanted() { [ -z "${LAB_ONLY:-}" ] || case ",$LAB_ONLY," in *",$1,"*) ;; *) return 1 ;; esac; }

# loop_ns NQN: the block devices of NQN's controllers, one a line.
loop_ns() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/subsysnqn)" = "$1" ] || continue
		ls -d $c/nvme*n1 2>/dev/null | sed 's|.*/||'
	done
}

# noqueue: no I/O scheduler on the lab's NVMe disks (per-path disks of the
# head included, hidden as they are): every device is measured without one.
noqueue() {
	local q
	for q in /sys/block/nvme*/queue/scheduler; do
		echo none >$q 2>/dev/null
	done
}

# fio_jobs DEV RUNTIME-MS [REPS [SKIP]]: the job file of every job on DEV
# but SKIP, each REPS times (default 1), the repetitions named JOB@N.
fio_jobs() {
	local j name r
	printf '[global]\nfilename=%s\ndirect=1\nioengine=libaio\ntime_based\n' "$1"
	printf 'runtime=%sms\nramp_time=%sms\nsize=1g\nnorandommap\nrandrepeat=1\nstonewall\n' \
		"$2" "$RAMP"
	echo "$JOBS" | while IFS=: read -r name j; do
		[ "$name" != "${4:-}" ] || continue
		for r in $(seq "${3:-1}"); do
			printf '[%s@%s]\n%s\n' "$name" "$r" "$(echo "$j" | tr , '\n')"
		done
	done
}

# warm_up DEV: every job on DEV for LAB_WARMUP_MS (default 3000) ms, not
# counted. The first seconds of I/O of a boot cost more on 6.12: 128 KiB
# reads of the raw namespace counted 41,000 instructions per I/O after a
# warm-up of 100 ms, 37,000 after 3 s, and the devices measured next drifted
# with what ran before them.
warm_up() {
	noqueue
	fio_jobs "$1" "${LAB_WARMUP_MS:-3000}" >/tmp/lab.fio
	fio --eta=never /tmp/lab.fio >/tmp/lab.err 2>&1 || { cat /tmp/lab.err; fail "warm-up on $1"; }
}

# fio_run CONFIG DEV [SKIP]: each job on DEV but SKIP, its figures into $OUT.
fio_run() {
	local config=$1 dev=$2 jf=/tmp/lab.fio
	wanted "$config" || return 0
	noqueue
	fio_jobs "$dev" "$REP_MS" "$REPS" "${3:-}" >$jf
	fio --eta=never --output-format=json --output=/tmp/lab.out $jf >/tmp/lab.err 2>&1 ||
		{ cat /tmp/lab.err /tmp/lab.out; fail "fio on $config ($dev)"; }
	# fio may print notes before its JSON.
	sed -n '/^{/,$p' /tmp/lab.out >/tmp/lab.json
	jq -e . /tmp/lab.json >/dev/null || { cat /tmp/lab.out; fail "fio on $config: no JSON"; }
	jq -c --arg c "$config" --arg m "$MODE" '.jobs[] |
		(if .read.io_bytes > 0 then .read else .write end) as $d |
		(.jobname | split("@")) as $n |
		{mode: $m, config: $c, job: $n[0], rep: ($n[1] | tonumber), ios: $d.total_ios, iops: $d.iops,
		 lat_ns: $d.lat_ns.mean, bw: $d.bw_bytes, errors: .error}' /tmp/lab.json >>$OUT
	jq -e '.jobs | all(.error == 0)' /tmp/lab.json >/dev/null || fail "fio errors on $config"
	note "$config: $(jq -r '[.jobs[] | "\(.jobname) \((.read.iops + .write.iops) | floor)"] |
		join(", ")' /tmp/lab.json) IOPS"
}

# md_run CONFIG DEV1 DEV2: fio_run on md RAID0 (no superblock, 64 KiB
# chunks) over DEV1 and DEV2.
md_run() {
	wanted "$1" || return 0
	mdadm --build /dev/md0 --quiet --level=0 --raid-devices=2 --chunk=64 "$2" "$3" ||
		fail "mdadm --build $1"
	fio_run "$1" /dev/md0
	mdadm --stop /dev/md0 >/dev/null || fail "mdadm --stop"
}

# bench_run CONFIG DEV|FILE MODE: gpupath-bench reads of 1 MiB (MODE
# compat or host) into device memory of $prov, LAB_REPS times LAB_MS (its
# start, the buffers' setup, would weigh on shorter runs).
bench_run() {
	local config=$1-$3 r
	wanted "$config" || return 0
	for r in $(seq "$REPS"); do
		gpupath-bench -d "$2" -p "$prov" -m "$3" -s 1M -S 256M \
			-D "$(awk -v m="$MS" 'BEGIN { print m / 1000 }')" -j >/tmp/bench.json \
			2>/tmp/bench.err || { cat /tmp/bench.err /tmp/bench.json; fail "gpupath-bench $config"; }
		jq -c --arg c "$config" --arg m "$MODE" --arg k "$3" --argjson r "$r" '.modes[$k] |
			{mode: $m, config: $c, job: "read-1m", rep: $r, ios: .ios, bw: (.gbps * 1e9),
			 iops: (.gbps * 1e9 / 1048576), errors: (.errors + .mismatches)}' \
			/tmp/bench.json >>$OUT
		jq -e --arg k "$3" '.modes[$k].errors == 0 and .modes[$k].ios > 0' /tmp/bench.json \
			>/dev/null || { cat /tmp/bench.json; fail "gpupath-bench $config: errors"; }
		note "$config ($r): $(jq --arg k "$3" '.modes[$k].gbps' /tmp/bench.json) GB/s"
	done
}

echo $HUGEPAGES >/proc/sys/vm/nr_hugepages
[ "$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)" = $HUGEPAGES ] ||
	fail "$HUGEPAGES huge pages: $(grep -i huge /proc/meminfo | tr '\n' ' ')"
export GPUPATH_HUGEPAGES=1
modprobe null_blk nr_devices=2 gb=1 || fail "null_blk"
modprobe -a nvmet nvme-loop || fail "nvmet, nvme-loop"
nvmet_subsys $NQN /dev/nullb0 || fail "nvmet subsystem"
# A second namespace, for the md arrays (each controller's nvmeXn2).
ns2=$CFG/subsystems/$NQN/namespaces/2
mkdir $ns2 && echo -n /dev/nullb1 >$ns2/device_path && echo 1 >$ns2/enable ||
	fail "namespace 2"
mkdir $CFG/ports/1 && echo loop >$CFG/ports/1/addr_trtype && nvmet_link 1 || fail "loop port"
# connect I: controller I of the subsystem over the loop port, as host I,
# through the kernel's fabrics device (nvme-cli 2.3 takes every loop
# connect after the first for a duplicate, -D or not).
connect() {
	local id
	id=$(printf '00000000-0000-4000-8000-%012d' "$1")
	echo "transport=loop,nqn=$NQN,hostnqn=nqn.2014-08.org.nvmexpress:uuid:$id,hostid=$id" \
		>/dev/nvme-fabrics || fail "connect $1"
}
i=1
while [ $i -le $NPATHS ]; do
	connect $i
	i=$((i + 1))
done
load_module

if [ "$MODE" = head ]; then
	# The subsystem's head is nvmeXn1; its paths (nvmeXcYn1) are hidden.
	lab_sub() {
		local d
		for d in /sys/class/nvme-subsystem/*; do
			[ "$(cat $d/subsysnqn)" = $NQN ] && { echo $d; return 0; }
		done
		return 1
	}
	wait_for 20 lab_sub || fail "no subsystem $NQN"
	sub=$(lab_sub)
	head=$(ls $sub | grep -E '^nvme[0-9]+n1$') || fail "no multipath head in $sub"
	[ "$(ls $sub | grep -cE '^nvme[0-9]+$')" = $NPATHS ] ||
		fail "the head has not $NPATHS paths: $(ls $sub)"
	# One path: the other controllers go for the time being.
	for c in $(ls $sub | grep -E '^nvme[0-9]+$' | sort -V | tail -n +2); do
		echo 1 >/sys/class/nvme/$c/delete_controller
	done
	warm_up /dev/$head
	fio_run head-1 /dev/$head
	volume_new policy round-robin
	$GP path add "$vol" /dev/$head >/dev/null || fail "path add the head"
	fio_run vol-head "$VOL"
	$GP volume del "$vol" || fail "volume del"
	head2=$(ls $sub | grep -E '^nvme[0-9]+n2$') || fail "no second head in $sub"
	md_run md0-head /dev/$head /dev/$head2
	i=2
	while [ $i -le $NPATHS ]; do
		connect $i
		i=$((i + 1))
	done
	wait_for 20 sh -c "[ \$(ls $sub | grep -cE '^nvme[0-9]+\$') = $NPATHS ]" ||
		fail "the head has not $NPATHS paths"
	for p in numa round-robin; do
		echo $p >$sub/iopolicy || fail "iopolicy $p"
		fio_run head-$NPATHS-$p /dev/$head
	done
	exit 0
fi

wait_for 20 sh -c "[ \$(ls -d /sys/block/nvme*n1 | wc -l) -ge $NPATHS ]" ||
	fail "not $NPATHS namespaces"
set -- $(loop_ns $NQN | sort -V)
[ $# = $NPATHS ] || fail "$# loop namespaces, $NPATHS expected"
NS=/dev/$1
warm_up $NS
fio_run raw $NS
if wanted dm-linear; then
	# No udev in the guest to wait for.
	export DM_DISABLE_UDEV=1
	echo "0 $(blockdev --getsz $NS) linear $NS 0" | dmsetup create labdm || fail "dm-linear"
	fio_run dm-linear /dev/mapper/labdm
	dmsetup remove labdm || fail "dmsetup remove"
fi
for policy in $POLICIES; do
	for n in 1 2 4 8; do
		wanted "vol-$policy-$n" || continue
		volume_new policy $policy
		for d in $(loop_ns $NQN | sort -V | head -n $n); do
			$GP path add "$vol" /dev/$d >/dev/null || fail "path add $d"
		done
		fio_run "vol-$policy-$n" "$VOL"
		$GP volume del "$vol" || fail "volume del"
	done
done

# md RAID0 over the two namespaces of the first controller, raw and as
# one-path volumes.
NS2=/dev/$(basename "$NS")
NS2=${NS2%n1}n2
md_run md0-raw $NS $NS2
if wanted md0-vol; then
	volume_new policy round-robin
	$GP path add "$vol" $NS >/dev/null || fail "path add $NS"
	v1=$VOL id1=$vol
	volume_new policy round-robin
	$GP path add "$vol" $NS2 >/dev/null || fail "path add $NS2"
	md_run md0-vol "$v1" "$VOL"
	$GP volume del "$vol" && $GP volume del "$id1" || fail "volume del"
fi

# The same namespace over NVMe/TCP and NVMe/RDMA (soft-RoCE on a veth pair
# inside the guest): the network stacks are guest CPU work as well.
if wanted tcp-raw || wanted vol-tcp || wanted rdma-raw || wanted vol-rdma; then
	modprobe -a nvmet-tcp nvmet-rdma nvme-tcp nvme-rdma rdma_rxe veth || fail "fabric modules"
	veth_pair || fail "veth pair"
	rdma link add rxe0 type rxe netdev veth0 || fail "rxe0"
	for p in "2 tcp 4421" "3 rdma 4420"; do
		set -- $p
		nvmet_port $1 $2 10.99.0.1 $3 || fail "$2 port"
		nvme connect -t $2 -a 10.99.0.1 -s $3 -n $NQN >/dev/null || fail "$2 connect"
		wait_for 20 ctrl_ns transport $2 || fail "$2: no namespace"
		dev=/dev/$(ctrl_ns transport $2)
		# soft-RoCE's 128 KiB reads wait on its timers (1.7 to 2 million
		# "instructions" per I/O, spread up to 3%): guest time, not work.
		skip=
		[ $2 = rdma ] && skip=read-128k-qd16
		fio_run $2-raw $dev $skip
		if wanted vol-$2; then
			volume_new policy round-robin
			$GP path add "$vol" $dev >/dev/null || fail "path add $dev"
			fio_run vol-$2 "$VOL" $skip
			$GP volume del "$vol" || fail "volume del"
		fi
	done
fi

# The data path: what a 1 MiB read costs into host memory, and through a
# bounce into device memory (compat). nvme-loop is no PCI device, so direct
# I/O cannot reach device memory here (and QEMU's emulated NVMe, which can,
# does its DMA outside the instruction count).
prov=$(bind_bar) || fail "no provider"
for m in host compat; do
	bench_run ns "$NS" $m
done
# A file on XFS against its raw device: a memory-backed null_blk (the
# loop namespace's keeps no data), not behind nvme-loop.
if wanted mem-host || wanted mem-compat || wanted file-host || wanted file-compat; then
	mkdir /sys/kernel/config/nullb/lab &&
	echo 512 >/sys/kernel/config/nullb/lab/size &&
	echo 1 >/sys/kernel/config/nullb/lab/memory_backed &&
	echo 1 >/sys/kernel/config/nullb/lab/power || fail "memory-backed null_blk"
	wait_for 10 test -b /dev/lab || fail "no /dev/lab"
	dd if=/dev/zero of=/dev/lab bs=1M count=256 oflag=direct 2>/dev/null || fail "fill /dev/lab"
	for m in host compat; do
		bench_run mem /dev/lab $m
	done
	mkfs.xfs -q -f /dev/lab || fail "mkfs.xfs"
	# XFS is a module on Debian's stock kernels (built in on the test kernels).
	modprobe -q xfs
	mkdir -p /mnt/lab && mount -t xfs /dev/lab /mnt/lab || fail "mount"
	gpupath-bench -d /mnt/lab/data -F 256M -p "$prov" -m host -D 0.01 >/dev/null ||
		fail "the file"
	for m in host compat; do
		bench_run file /mnt/lab/data $m
	done
	umount /mnt/lab
fi
unbind_bar
