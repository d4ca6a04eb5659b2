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
 *
 * Busy time also counts what the kernel does while an I/O is outstanding:
 * timers that fall due, and under icount with sleep=off, every timer that
 * QEMU's clock jumps over while the guest waits for an emulated device in
 * host time. With io_irq=PREFIX (e.g. "nvme"), a last line
 *
 *	io USER_NS IRQ_NS
 *
 * gives the part an I/O's reader pays for: USER_NS, the time the CPUs ran
 * the threads of the process that last opened /proc/cpubusy, in user and
 * kernel mode, less the interrupts and softirqs that came on top; IRQ_NS,
 * the time in the handlers of the interrupts whose name begins with PREFIX
 * (the device's completions), whatever they interrupted. Both come from
 * the scheduler's and the interrupts' tracepoints, in local_clock()
 * nanoseconds. The interrupts' entry and exit code around the handlers is
 * left in whatever task they interrupted.
 *
 * With spans=FUNC,FUNC,... (at most 16), a kretprobe on each kernel or
 * module function named counts its calls and the local_clock() time from
 * entry to return, callees included:
 *
 *	span-cost FULL_NS EMPTY_NS
 *	span FUNC CALLS NS
 *
 * FULL_NS is what one probed call costs its caller beyond the call itself,
 * EMPTY_NS what the span of an empty function reads; both are measured on
 * this module's own empty function at each read. A function's own time is
 * NS less CALLS x EMPTY_NS, less FULL_NS for each probed call it made.
 */
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/kprobes.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/tracepoint.h>

static struct proc_dir_entry *cpubusy_entry;

static char *io_irq = "";
module_param(io_irq, charp, 0444);
MODULE_PARM_DESC(io_irq, "Count the reader's threads and the interrupts named PREFIX* (the \"io\" line)");

/* The thread group counted: the last to open /proc/cpubusy. */
static pid_t io_tgid;

/* One CPU's I/O time; touched by that CPU only, interrupts off. */
struct iotime {
	u64 user_ns;		/* io_tgid's threads, interrupts and softirqs excluded */
	u64 irq_ns;		/* the io_irq handlers */
	u64 since;		/* when the user task's current stretch began */
	u64 irq_since;		/* when the io_irq handler running began */
	unsigned int depth;	/* interrupts and softirqs now running */
	bool user;		/* the CPU runs one of io_tgid's threads */
	bool in_irq;		/* an io_irq handler runs */
};

static DEFINE_PER_CPU(struct iotime, iotime);

static bool counted(struct task_struct *p)
{
	return p->tgid == READ_ONCE(io_tgid) && !(p->flags & PF_KTHREAD);
}

/* An interrupt or softirq begins: the counted thread's stretch pauses. */
static void span_enter(struct iotime *t, u64 now)
{
	if (!t->depth++ && t->user)
		t->user_ns += now - t->since;
}

static void span_exit(struct iotime *t, u64 now)
{
	/* An exit whose entry came before the probes did. */
	if (!t->depth)
		return;
	if (!--t->depth && t->user)
		t->since = now;
}

static void probe_enter(void *data)
{
	unsigned long flags;

	local_irq_save(flags);
	span_enter(this_cpu_ptr(&iotime), local_clock());
	local_irq_restore(flags);
}

static void probe_exit(void *data)
{
	unsigned long flags;

	local_irq_save(flags);
	span_exit(this_cpu_ptr(&iotime), local_clock());
	local_irq_restore(flags);
}

/* The x86 vectors' and the softirqs' tracepoints pass one int we need not. */
static void probe_vec_enter(void *data, unsigned int vec)
{
	probe_enter(data);
}

static void probe_vec_exit(void *data, unsigned int vec)
{
	probe_exit(data);
}

static bool is_io_irq(struct irqaction *action)
{
	return action->name && !strncmp(action->name, io_irq, strlen(io_irq));
}

/* Device interrupt handlers run with interrupts off. */
static void probe_irq_enter(void *data, int irq, struct irqaction *action)
{
	struct iotime *t = this_cpu_ptr(&iotime);
	u64 now = local_clock();

	span_enter(t, now);
	if (is_io_irq(action)) {
		t->irq_since = now;
		t->in_irq = true;
	}
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct iotime *t = this_cpu_ptr(&iotime);
	u64 now = local_clock();

	if (t->in_irq) {
		t->irq_ns += now - t->irq_since;
		t->in_irq = false;
	}
	span_exit(t, now);
}

/* Called with interrupts off. */
static void probe_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct iotime *t = this_cpu_ptr(&iotime);
	u64 now = local_clock();

	if (t->user && !t->depth)
		t->user_ns += now - t->since;
	t->user = counted(next);
	t->since = now;
}

/*
 * On each CPU: the running thread's stretch so far into user_ns, and whether
 * the thread counts now that io_tgid may have changed. In the IPI that runs
 * this on another CPU, the stretch was closed on entry and reopens on exit.
 */
static void iotime_fold(void *unused)
{
	struct iotime *t = this_cpu_ptr(&iotime);
	unsigned long flags;
	u64 now;

	local_irq_save(flags);
	now = local_clock();
	if (t->user && !t->depth)
		t->user_ns += now - t->since;
	t->user = counted(current);
	if (!t->depth)
		t->since = now;
	local_irq_restore(flags);
}

/*
 * Registered in this order: every exit before its entry, so that no span
 * can begin whose end is not yet watched (an exit seen without its entry
 * is ignored); the scheduler's last. The first five are needed.
 */
static const struct {
	const char *name;
	void *probe;
} probes[] = {
	{ "irq_handler_exit", probe_irq_exit },
	{ "softirq_exit", probe_vec_exit },
	{ "irq_handler_entry", probe_irq_enter },
	{ "softirq_entry", probe_vec_enter },
	{ "sched_switch", probe_switch },
	/* x86's system vectors, which bypass irq_handler_entry. */
	{ "local_timer_exit", probe_vec_exit },
	{ "reschedule_exit", probe_vec_exit },
	{ "call_function_exit", probe_vec_exit },
	{ "call_function_single_exit", probe_vec_exit },
	{ "irq_work_exit", probe_vec_exit },
	{ "local_timer_entry", probe_vec_enter },
	{ "reschedule_entry", probe_vec_enter },
	{ "call_function_entry", probe_vec_enter },
	{ "call_function_single_entry", probe_vec_enter },
	{ "irq_work_entry", probe_vec_enter },
};

static struct tracepoint *tps[ARRAY_SIZE(probes)];

static void find_tp(struct tracepoint *tp, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (!strcmp(tp->name, probes[i].name))
			tps[i] = tp;
}

/* Entries before exits, the reverse of iotime_start(). */
static void iotime_stop(void)
{
	unsigned int i = ARRAY_SIZE(probes);

	while (i--)
		if (tps[i])
			tracepoint_probe_unregister(tps[i], probes[i].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int iotime_start(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(find_tp, NULL);
	/* The scheduler's and the device interrupts' are needed; x86's vectors where there. */
	for (i = 0; i < 5; i++)
		if (!tps[i])
			break;
	if (i < 5) {
		pr_err("cpubusy: the kernel has no sched_switch, irq_handler or softirq tracepoints\n");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!tps[i])
			continue;
		ret = tracepoint_probe_register(tps[i], probes[i].probe, NULL);
		if (ret) {
			while (i--)
				if (tps[i])
					tracepoint_probe_unregister(tps[i], probes[i].probe, NULL);
			tracepoint_synchronize_unregister();
			return ret;
		}
	}
	return 0;
}

static char *spans = "";
module_param(spans, charp, 0444);
MODULE_PARM_DESC(spans, "Functions to time from entry to return, comma-separated");

#define MAX_SPANS 16
#define CALIBRATE_CALLS 256

struct span {
	struct kretprobe rp;
	char name[KSYM_NAME_LEN];
	atomic64_t calls;
	atomic64_t ns;
};

/* The last is this module's empty function, for the probes' own cost. */
static struct span span_tab[MAX_SPANS + 1];
static unsigned int nspans;
static DEFINE_MUTEX(calibrate_lock);

/*
 * Eight one-byte no-ops: room at the entry for the jump an optimized kprobe
 * puts there, as the functions measured have; without it the probe would
 * trap, and cost more than theirs.
 */
static noinline void cpubusy_empty(void)
{
	asm volatile(".rept 8\n\tnop\n\t.endr");
}

/* Not probed: the loop's cost without a probe. */
static noinline void cpubusy_empty2(void)
{
	asm volatile(".rept 8\n\tnop\n\t.endr");
}

static int span_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = local_clock();
	return 0;
}

static int span_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct span *s = container_of(get_kretprobe(ri), struct span, rp);

	atomic64_add(local_clock() - *(u64 *)ri->data, &s->ns);
	atomic64_inc(&s->calls);
	return 0;
}

static void spans_stop(void)
{
	unsigned int i;

	for (i = 0; i <= MAX_SPANS; i++)
		if (span_tab[i].rp.handler)
			unregister_kretprobe(&span_tab[i].rp);
}

static int span_add(struct span *s, const char *name, void *addr)
{
	int ret;

	strscpy(s->name, name, sizeof(s->name));
	s->rp.kp.symbol_name = addr ? NULL : s->name;
	s->rp.kp.addr = addr;
	s->rp.entry_handler = span_entry;
	s->rp.handler = span_return;
	s->rp.data_size = sizeof(u64);
	s->rp.maxactive = 64;
	ret = register_kretprobe(&s->rp);
	if (ret) {
		pr_err("cpubusy: cannot probe %s: %d\n", name, ret);
		s->rp.handler = NULL;
	}
	return ret;
}

static int spans_start(void)
{
	char *list, *name, *p;
	int ret;

	ret = span_add(&span_tab[MAX_SPANS], "cpubusy_empty", cpubusy_empty);
	if (ret)
		return ret;
	list = kstrdup(spans, GFP_KERNEL);
	if (!list) {
		spans_stop();
		return -ENOMEM;
	}
	p = list;
	while ((name = strsep(&p, ",")) && !ret) {
		if (!*name)
			continue;
		if (nspans == MAX_SPANS)
			ret = -E2BIG;
		else
			ret = span_add(&span_tab[nspans++], name, NULL);
	}
	kfree(list);
	if (ret)
		spans_stop();
	return ret;
}

/* One call of @fn, timed, CALIBRATE_CALLS times: the mean in ns. */
static u64 time_calls(void (*fn)(void))
{
	u64 t0 = local_clock();
	unsigned int i;

	for (i = 0; i < CALIBRATE_CALLS; i++)
		fn();
	return div_u64(local_clock() - t0, CALIBRATE_CALLS);
}

static void spans_show(struct seq_file *m)
{
	struct span *e = &span_tab[MAX_SPANS];
	u64 calls0, ns0, full, bare;
	unsigned int i;

	mutex_lock(&calibrate_lock);
	calls0 = atomic64_read(&e->calls);
	ns0 = atomic64_read(&e->ns);
	full = time_calls(cpubusy_empty);
	bare = time_calls(cpubusy_empty2);
	calls0 = atomic64_read(&e->calls) - calls0;
	ns0 = atomic64_read(&e->ns) - ns0;
	mutex_unlock(&calibrate_lock);
	seq_printf(m, "span-cost %llu %llu\n", full > bare ? full - bare : 0,
		   calls0 ? div64_u64(ns0, calls0) : 0);
	for (i = 0; i < nspans; i++)
		seq_printf(m, "span %s %lld %lld\n", span_tab[i].name,
			   atomic64_read(&span_tab[i].calls), atomic64_read(&span_tab[i].ns));
}

static int cpubusy_show(struct seq_file *m, void *v)
{
	u64 idle, iowait, user = 0, irq = 0;
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
	if (*spans)
		spans_show(m);
	if (!*io_irq)
		return 0;
	on_each_cpu(iotime_fold, NULL, 1);
	for_each_possible_cpu(cpu) {
		user += READ_ONCE(per_cpu(iotime, cpu).user_ns);
		irq += READ_ONCE(per_cpu(iotime, cpu).irq_ns);
	}
	seq_printf(m, "io %llu %llu\n", user, irq);
	return 0;
}

static int cpubusy_open(struct inode *inode, struct file *file)
{
	if (*io_irq) {
		WRITE_ONCE(io_tgid, current->tgid);
		on_each_cpu(iotime_fold, NULL, 1);
	}
	return single_open(file, cpubusy_show, NULL);
}

static const struct proc_ops cpubusy_ops = {
	.proc_open = cpubusy_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static int __init cpubusy_init(void)
{
	int ret;

	if (*spans) {
		ret = spans_start();
		if (ret)
			return ret;
	}
	if (*io_irq) {
		ret = iotime_start();
		if (ret)
			goto err_spans;
	}
	cpubusy_entry = proc_create("cpubusy", 0444, NULL, &cpubusy_ops);
	if (!cpubusy_entry) {
		ret = -ENOMEM;
		goto err_io;
	}
	return 0;

err_io:
	if (*io_irq)
		iotime_stop();
err_spans:
	if (*spans)
		spans_stop();
	return ret;
}

static void __exit cpubusy_exit(void)
{
	proc_remove(cpubusy_entry);
	if (*io_irq)
		iotime_stop();
	if (*spans)
		spans_stop();
}

module_init(cpubusy_init);
module_exit(cpubusy_exit);
MODULE_DESCRIPTION("Per-CPU idle time in microseconds, for gpupath's performance lab");
MODULE_LICENSE("GPL");
