// SPDX-License-Identifier: GPL-2.0
/*
 * cpubusy: each online CPU's idle and I/O-wait time, for the performance
 * lab (selftests/lab) only. /proc/cpubusy reads
 *
 *	now NS
 *	cpuN IDLE_US IOWAIT_US
 *	...
 *
 * NS is CLOCK_MONOTONIC in nanoseconds; IDLE_US and IOWAIT_US are the
 * kernel's own idle accounting (get_cpu_idle_time_us(), the cpufreq
 * governors' source), in microseconds. /proc/stat gives the same times in
 * clock ticks, too coarse for a job of a few milliseconds of busy time.
 * Busy time over an interval is the elapsed time less the idle and I/O-wait
 * time; under QEMU's icount it is the guest's instructions, whatever the
 * emulated devices did meanwhile.
 */
#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/tick.h>

static struct proc_dir_entry *cpubusy_entry;

static int cpubusy_show(struct seq_file *m, void *v)
{
	u64 idle, iowait;
	int cpu;

	seq_printf(m, "now %llu\n", ktime_get_ns());
	for_each_online_cpu(cpu) {
		idle = get_cpu_idle_time_us(cpu, NULL);
		iowait = get_cpu_iowait_time_us(cpu, NULL);
		/* No NOHZ idle accounting on this CPU: no figure rather than a wrong one. */
		if (idle == (u64)-1 || iowait == (u64)-1)
			return -EOPNOTSUPP;
		seq_printf(m, "cpu%d %llu %llu\n", cpu, idle, iowait);
	}
	return 0;
}

static int __init cpubusy_init(void)
{
	cpubusy_entry = proc_create_single("cpubusy", 0444, NULL, cpubusy_show);
	return cpubusy_entry ? 0 : -ENOMEM;
}

static void __exit cpubusy_exit(void)
{
	proc_remove(cpubusy_entry);
}

module_init(cpubusy_init);
module_exit(cpubusy_exit);
MODULE_DESCRIPTION("Per-CPU idle time in microseconds, for gpupath's performance lab");
MODULE_LICENSE("GPL");
