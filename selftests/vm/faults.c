// SPDX-License-Identifier: GPL-2.0
/*
 * gp-faults: every allocation of an operation failed in turn, through the
 * kernel's per-task fault injection (/proc/self/fail-nth, with failslab and
 * fail_page_alloc made to count GFP_KERNEL allocations). The BAR's probe as
 * a provider is not faulted: the memory hotplug under
 * pci_p2pdma_add_resource() WARNs on any failed allocation (add_pages()),
 * which a panic_on_warn kernel does not survive.
 *
 *   gp-faults PROVIDER_BDF BLOCKDEV NVME_NAMESPACE
 *
 * For each operation, n = 1, 2, ...: the n-th fault site the kernel meets
 * in the operation fails, until an n is reached that the operation no
 * longer gets to (it then ran clean). Each time, the operation must end in
 * a clean error (a negative errno, nothing half made) or succeed fully,
 * and what it made must be there or not accordingly; then it is undone.
 * ENOBUFS, a reply lost to the socket, leaves the outcome open (netlink's
 * rule): only the undo is checked then, by the later operations.
 * PROVIDER_BDF is the ivshmem "GPU", unbound; BLOCKDEV is read from;
 * NVME_NAMESPACE becomes a volume's path. The caller then checks that the
 * module unloads and that kmemleak found nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/gpupath.h>

#include "libgpupath-admin.h"

#define MAX_NTH 2000

static const char *bdf, *blkdev, *nvme;
static struct gpupath_ctl *ctl;
static int failures;

static void fail(const char *op, unsigned int nth, const char *what)
{
	printf("FAIL %s, fault %u: %s\n", op, nth, what);
	failures++;
}

/*
 * /proc/self/fail-nth, opened once: reading and writing it meet no fault
 * site, so they do not disturb the count.
 */
static int nth_fd = -1;

static int set_nth(unsigned int n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	return pwrite(nth_fd, buf, strlen(buf), 0) < 0 ? -errno : 0;
}

/* What is left of the count: 0 when the fault was injected. */
static unsigned int get_nth(void)
{
	char buf[16] = "";

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) < 0)
		return 0;
	return atoi(buf);
}

/* ---- operations: run (faulted), then check and undo (not faulted) ---- */

struct op {
	const char *name;
	int (*setup)(void);
	int (*run)(void);		/* faulted: 0 or a negative errno */
	const char *(*check)(int r);	/* NULL when the state matches r */
	void (*undo)(void);
};

static int none(void)
{
	return 0;
}

static void nothing(void)
{
}

/* QoS class add */
static int qos_add(void)
{
	struct gpupath_qos_conf c = { .set = GPUPATH_QOS_SET_DSCP, .dscp = 26 };

	return gpupath_ctl_qos_add(ctl, "fault", &c, NULL, 0);
}

static const char *qos_check(int r)
{
	struct gpupath_qos q;
	int g = gpupath_ctl_qos_get(ctl, "fault", &q, sizeof(q));

	if (!r && (g || q.dscp != 26))
		return "added, but not there as added";
	if (r && g != -ENOENT)
		return "failed, but there";
	return NULL;
}

static void qos_undo(void)
{
	gpupath_ctl_qos_del(ctl, "fault");
}

/* QoS class: a report of applied settings */
static int qos_report(void)
{
	struct gpupath_qos_applied a[3] = {
		{ "nvme9", "tos", GPUPATH_APPLIED_OK, 0, 104 },
		{ "eth9", "pfc", GPUPATH_APPLIED_UNSUPPORTED, EOPNOTSUPP, 1 },
		{ "rxe9", "default_roce_tos", GPUPATH_APPLIED_FAILED, EIO, 0 },
	};
	struct gpupath_qos_conf c = { .set = GPUPATH_QOS_SET_APPLIED, .napplied = 3,
				      .applied = a };

	return gpupath_ctl_qos_set(ctl, "fault", &c);
}

static const char *qos_report_check(int r)
{
	struct gpupath_qos q;

	if (gpupath_ctl_qos_get(ctl, "fault", &q, sizeof(q)))
		return "the class is gone";
	if (!r && q.napplied != 3)
		return "reported, but the report is not there";
	if (r && q.napplied != 0)
		return "failed, but a report is there";
	return NULL;
}

static void qos_report_undo(void)
{
	struct gpupath_qos_conf c = { .set = GPUPATH_QOS_SET_APPLIED };

	gpupath_ctl_qos_set(ctl, "fault", &c);
}

/* Portal add, with rails */
static int portal_add(void)
{
	struct gpupath_portal_conf c = {
		.name = "fault", .transport = GPUPATH_TRANSPORT_TCP, .traddr = "10.99.0.1",
		.subsysnqn = "nqn.2026-11.io.gpupath:fault",
		.set = GPUPATH_PORTAL_SET_RAILS | GPUPATH_PORTAL_SET_QOS, .qos = "fault",
		.nrails = 2, .rail = { { 1, "lo", "" }, { 2, "", "10.99.0.2" } },
	};

	return gpupath_ctl_portal_add(ctl, &c, NULL, 0);
}

static struct gpupath_portal portal;

static const char *portal_check(int r)
{
	int g = gpupath_ctl_portal_get(ctl, 0, "fault", &portal, sizeof(portal));

	if (!r && (g || portal.nrails != 2 || strcmp(portal.qos, "fault")))
		return "added, but not there as added";
	if (r && g != -ENOENT)
		return "failed, but there";
	return NULL;
}

static void portal_undo(void)
{
	gpupath_ctl_portal_del(ctl, 0, "fault");
}

/* Portal: connections reported */
static int portal_conns(void)
{
	struct gpupath_portal_conn conn[2] = {
		{ .rail = 1, .subsysnqn = "nqn.2026-11.io.gpupath:fault", .traddr = "10.99.0.1",
		  .trsvcid = 4420, .state = GPUPATH_CONN_LIVE, .controller = "nvme9" },
		{ .rail = 2, .subsysnqn = "nqn.2026-11.io.gpupath:fault", .traddr = "10.99.0.1",
		  .trsvcid = 4420, .state = GPUPATH_CONN_BACKOFF, .attempts = 3, .error = EIO },
	};
	struct gpupath_portal_conf c = { .set = GPUPATH_PORTAL_SET_CONNS, .nconns = 2,
					 .conn = conn };

	return gpupath_ctl_portal_set(ctl, 0, "fault", &c);
}

static const char *portal_conns_check(int r)
{
	if (gpupath_ctl_portal_get(ctl, 0, "fault", &portal, sizeof(portal)))
		return "the portal is gone";
	if (!r && portal.nconns != 2)
		return "reported, but the connections are not there";
	if (r && portal.nconns)
		return "failed, but connections are there";
	return NULL;
}

static void portal_conns_undo(void)
{
	struct gpupath_portal_conf c = { .set = GPUPATH_PORTAL_SET_CONNS };

	gpupath_ctl_portal_set(ctl, 0, "fault", &c);
}

/* Volume with a path */
static uint32_t vol;

static int volume_add(void)
{
	struct gpupath_volume_conf c = { 0 };
	struct gpupath_volume v;
	int r;

	vol = 0;
	r = gpupath_ctl_volume_add(ctl, &c, &v, sizeof(v));
	if (r)
		return r;
	vol = v.id;
	return gpupath_ctl_path_add(ctl, vol, nvme, NULL, NULL, 0);
}

static const char *volume_check(int r)
{
	struct gpupath_volume v;

	if (!vol)
		return r ? NULL : "added, but no volume";
	if (gpupath_ctl_volume_get(ctl, vol, &v, sizeof(v)))
		return "the volume made is not there";
	if (!r && v.paths != 1)
		return "path added, but not in the volume";
	if (r && v.paths != 0)
		return "path add failed, but a path is there";
	return NULL;
}

/* Every volume: one made behind a lost reply has no id here. */
static void volume_undo(void)
{
	struct gpupath_volume *list;
	size_t i, n;

	if (gpupath_ctl_volume_list(ctl, &list, sizeof(*list), &n))
		return;
	for (i = 0; i < n; i++)
		gpupath_ctl_volume_del(ctl, list[i].id);
	free(list);
}

/* The BAR bound to gpupath's stub: a provider */
static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static int bind_setup(void)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override", bdf);
	return sysfs_write(path, "gpupath");
}

static bool bound(void)
{
	char path[256], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return strstr(link, "/gpupath") != NULL;
}

static int bind_run(void)
{
	int r = sysfs_write("/sys/bus/pci/drivers_probe", bdf);

	if (r)
		printf("drivers_probe: %s\n", strerror(-r));
	return r ? r : bound() ? 0 : -ENODEV;
}

static void unbind(void)
{
	char path[256];

	if (!bound())
		return;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind", bdf);
	sysfs_write(path, bdf);
}

/* /dev/gpupath: open, device memory, host memory, I/O, a batch */
static int dev = -1, blk = -1;
static uint32_t prov;
static struct gpupath_alloc alloc;
static void *host;

static int dev_setup(void)
{
	struct gpupath_provider *list;
	size_t n;
	int r;

	r = bind_setup();
	if (r)
		return r;
	r = bind_run();
	if (r)
		return r;
	r = gpupath_ctl_provider_list(ctl, &list, sizeof(*list), &n);
	if (r) {
		printf("provider list: %s\n", strerror(-r));
		return r;
	}
	prov = n ? list[0].id : 0;
	free(list);
	blk = open(blkdev, O_RDONLY | O_CLOEXEC);
	host = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return blk < 0 || host == MAP_FAILED || !prov ? -EIO : 0;
}

static int open_run(void)
{
	dev = open("/dev/" GPUPATH_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	return dev < 0 ? -errno : 0;
}

static const char *open_check(int r)
{
	return !r == (dev >= 0) ? NULL : "open's result and descriptor disagree";
}

static void dev_close(void)
{
	if (dev >= 0)
		close(dev);
	dev = -1;
}

static int alloc_run(void)
{
	memset(&alloc, 0, sizeof(alloc));
	alloc.provider = prov;
	alloc.size = 1 << 20;
	return ioctl(dev, GPUPATH_IOC_ALLOC, &alloc) < 0 ? -errno : 0;
}

static uint64_t allocated(void)
{
	struct gpupath_provider p;

	return gpupath_ctl_provider_get(ctl, prov, &p, sizeof(p)) ? ~0ULL : p.allocated;
}

static const char *alloc_check(int r)
{
	void *p;

	if (r)
		return allocated() ? "failed, but memory is allocated" : NULL;
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, dev, alloc.mmap_offset);
	if (p == MAP_FAILED)
		return "allocated, but it does not map";
	memset(p, 0x3c, 1 << 20);
	munmap(p, 1 << 20);
	return NULL;
}

static void free_alloc(void)
{
	if (alloc.handle)
		ioctl(dev, GPUPATH_IOC_FREE, &alloc.handle);
	alloc.handle = 0;
}

static struct gpupath_host_reg reg;

static int reg_run(void)
{
	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)host;
	reg.size = 1 << 20;
	return ioctl(dev, GPUPATH_IOC_REG_HOST, &reg) < 0 ? -errno : 0;
}

static const char *reg_check(int r)
{
	uint64_t h = reg.handle;
	int f;

	if (r)
		return NULL;
	/* Registered: freeing it works once. */
	f = ioctl(dev, GPUPATH_IOC_FREE, &h);
	reg.handle = 0;
	return f ? "registered, but the handle does not free" : NULL;
}

static void free_reg(void)
{
	if (reg.handle)
		ioctl(dev, GPUPATH_IOC_FREE, &reg.handle);
	reg.handle = 0;
}

static int io_setup(void)
{
	return alloc_run() ? -EIO : 0;
}

static int io_run(void)
{
	struct gpupath_io io = { .handle = alloc.handle, .fd = blk, .op = GPUPATH_IO_READ,
				 .len = 1 << 20 };

	return ioctl(dev, GPUPATH_IOC_IO, &io) < 0 ? -errno : 0;
}

static const char *io_check(int r)
{
	(void)r;
	return NULL;	/* either way: the buffer must still free (undo) */
}

/* Set by an operation that stops the faulting itself: what was left. */
static int nth_left = -1;

static int batch_run(void)
{
	struct gpupath_io io[4];
	struct gpupath_submit s = { .ios = (uintptr_t)io, .count = 4 };
	struct gpupath_completion c[4];
	struct gpupath_reap reap = { .completions = (uintptr_t)c, .max = 4 };
	unsigned int i, done = 0;
	int n, tries;

	for (i = 0; i < 4; i++) {
		memset(&io[i], 0, sizeof(io[i]));
		io[i].handle = alloc.handle;
		io[i].fd = blk;
		io[i].op = GPUPATH_IO_READ;
		io[i].buf_offset = io[i].dev_offset = i << 18;
		io[i].len = 1 << 18;
		io[i].user_data = i;
	}
	n = ioctl(dev, GPUPATH_IOC_SUBMIT, &s);
	nth_left = get_nth();
	set_nth(0);	/* reaping is not under test */
	if (n < 0)
		return -errno;
	for (tries = 0; done < (unsigned int)n && tries < 2000; tries++) {
		reap.count = 0;
		if (ioctl(dev, GPUPATH_IOC_REAP, &reap) < 0)
			return -errno;
		done += reap.count;
		if (!reap.count)
			usleep(1000);
	}
	return done == (unsigned int)n ? 0 : -ETIMEDOUT;
}

static const char *batch_check(int r)
{
	return r == -ETIMEDOUT ? "started I/Os never completed" : NULL;
}

static const struct op ops[] = {
	{ "qos add", none, qos_add, qos_check, qos_undo },
	{ "qos applied report", qos_add, qos_report, qos_report_check, qos_report_undo },
	{ "portal add", none, portal_add, portal_check, portal_undo },
	{ "portal connections report", portal_add, portal_conns, portal_conns_check,
	  portal_conns_undo },
	{ "volume and path add", none, volume_add, volume_check, volume_undo },
	{ "open /dev/gpupath", dev_setup, open_run, open_check, dev_close },
	{ "alloc device memory", open_run, alloc_run, alloc_check, free_alloc },
	{ "register host memory", none, reg_run, reg_check, free_reg },
	{ "I/O into device memory", io_setup, io_run, io_check, nothing },
	{ "batch of 4 I/Os, reaped", none, batch_run, batch_check, nothing },
};

/* The setups of later operations build on earlier ones; undone at the end. */
static void teardown(void)
{
	free_alloc();
	dev_close();
	unbind();
	portal_undo();
	qos_undo();
}

int main(int argc, char **argv)
{
	unsigned int i, nth, errs[512] = { 0 };
	const char *why;
	int r, e;

	if (argc != 4) {
		fprintf(stderr, "Usage: gp-faults PROVIDER_BDF BLOCKDEV NVME_NAMESPACE\n");
		return 2;
	}
	bdf = argv[1];
	blkdev = argv[2];
	nvme = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	nth_fd = open("/proc/self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		fprintf(stderr, "gp-faults: /proc/self/fail-nth: %s\n", strerror(errno));
		return 2;
	}
	if (gpupath_ctl_open(&ctl)) {
		fprintf(stderr, "gp-faults: no gpupath module\n");
		return 2;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct op *op = &ops[i];
		unsigned int faults = 0;

		r = op->setup();
		if (r) {
			printf("FAIL %s: setup: %s\n", op->name, strerror(-r));
			failures++;
			break;
		}
		memset(errs, 0, sizeof(errs));
		for (nth = 1; nth <= MAX_NTH; nth++) {
			if (set_nth(nth)) {
				fprintf(stderr, "gp-faults: no /proc/self/fail-nth\n");
				return 2;
			}
			nth_left = -1;
			r = op->run();
			e = nth_left >= 0 ? nth_left : (int)get_nth();	/* nonzero: no fault */
			set_nth(0);
			/* A lost reply (ENOBUFS): either outcome is right. */
			why = r == -ENOBUFS ? NULL : op->check(r);
			if (why) {
				fail(op->name, nth, why);
				printf("     it returned %s%s%s\n", r ? strerror(-r) : "success",
				       r ? ": " : "", r ? gpupath_ctl_errmsg(ctl) ?: "" : "");
			}
			if (r < -511 || r > 0)
				fail(op->name, nth, "not a negative errno");
			else if (r)
				errs[-r]++;
			op->undo();
			if (e)
				break;
			faults++;
		}
		if (nth > MAX_NTH)
			fail(op->name, nth, "still faulting");
		printf("%s: %u fault sites failed in turn, then clean (", op->name, faults);
		for (e = 1, r = 0; e < 512; e++)
			if (errs[e])
				printf("%s%u %s", r++ ? ", " : "", errs[e], strerror(e));
		printf(")\n");
	}
	teardown();
	gpupath_ctl_close(ctl);
	return failures ? 1 : 0;
}
