// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath diagnose: where is the GPU waiting?
 *
 *   gpupath diagnose [-j] [--no-probe]
 *   gpupath diagnose [-j] FILE
 *
 * For each provider (a GPU, or the device memory gpupath serves), every
 * NVMe namespace that could feed it, as a path: the PCI function that DMAs
 * for it (the NVMe controller, or the NIC a fabric connection leaves
 * through), how far that function is from the GPU on PCIe against the
 * closest one there is (rail alignment), whether P2P is possible and why
 * not, the QoS settings gpupathd applied on it, and a short read-only
 * probe: 4 KiB reads for latency and 1 MiB reads for throughput into the
 * provider's memory, under a quarter of a second per path. Then the bounce
 * reasons the provider has counted so far, and a verdict with the fix.
 *
 * With a FILE: the file system it is on and the block device under it, and
 * for each provider whether a read of the file's first block goes direct
 * into its memory, and if not why, with the fix.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

#define PROBE_LAT_IOS	16
#define PROBE_LAT_SIZE	4096u
#define PROBE_BW_SIZE	(1u << 20)
#define PROBE_BW_MAX	(32u << 20)
#define PROBE_NS	(200 * 1000000ull)

/* A namespace that can feed a GPU. */
struct dpath {
	char device[64];		/* "nvme1n1" */
	char controller[32];		/* "nvme1" */
	char transport[16];		/* "pcie", "rdma", "tcp" */
	char netdev[IFNAMSIZ];		/* fabrics: the interface it leaves through */
	char dma_dev[16];		/* PCI function that DMAs for it, "" if none */
	const struct gpupath_volume *vol;	/* the volume it is a path of */
	const struct gpupath_path *vpath;	/* as that volume's path */
};

/* What the probe of one path into one provider saw. */
struct probe {
	bool done;
	int landed;			/* a direct read's bytes arrived: 1, 0, -1 unchecked */
	int error;			/* errno, 0: none */
	uint32_t mode, reason;
	uint64_t lat_avg_ns, lat_max_ns;
	uint64_t bw_bytes, bw_ns;
};

struct finding {
	/* "misaligned", "no-p2p", "bounced", "probe", "p2p-data" */
	const char *problem;
	char path[64];
	char text[384];
	char fix[384];
};

#define FINDINGS_MAX 64

/* Every counter at one moment, as this program's structures. */
struct snapshot {
	struct gpupath_stats *s;
	const struct gpupath_provider *prov;
	size_t nprov;
	const struct gpupath_volume *vol;
	size_t nvol;
	const struct gpupath_qos *qos;
	size_t nqos;
};

struct diag {
	struct cli *cli;
	bool probe;
	struct snapshot st;
	struct gpupath_topo *topo;
	struct dpath *paths;
	size_t npaths;
	struct gpupath_dev *dev;	/* for the probe */
	struct finding find[FINDINGS_MAX];
	unsigned int nfind;
};

static void snapshot_free(struct snapshot *st)
{
	gpupath_stats_free(st->s);
	memset(st, 0, sizeof(*st));
}

/* gpupath_stats_get() into @st; on failure *@what names what failed. */
static int snapshot_get(struct gpupath_ctl *ctl, struct snapshot *st, const char **what)
{
	int r;

	memset(st, 0, sizeof(*st));
	r = gpupath_stats_get(ctl, &st->s, what);
	if (r < 0)
		return r;
	*what = "stats";
	r = gpupath_stats_providers(st->s, &st->prov, sizeof(*st->prov), &st->nprov);
	if (!r)
		r = gpupath_stats_volumes(st->s, &st->vol, sizeof(*st->vol), &st->nvol);
	if (!r)
		r = gpupath_stats_qos(st->s, &st->qos, sizeof(*st->qos), &st->nqos);
	if (r < 0)
		snapshot_free(st);
	return r;
}

/* ---- sysfs ------------------------------------------------------------------ */

/*
 * The interface whose subnet holds @ip (a route's choice), IPv4 or IPv6,
 * the loopback left out (no NIC DMAs for it); "" if none.
 */
static void subnet_netdev(const char *ip, char *name, size_t size)
{
	struct ifaddrs *ifa, *i;

	name[0] = '\0';
	if (getifaddrs(&ifa))
		return;
	/* the first address but the loopback's whose subnet holds @ip */
	for (i = ifa; i; i = i->ifa_next) {
		struct ifaddrs one = *i;

		one.ifa_next = NULL;
		if (strcmp(i->ifa_name, "lo") && gpupath_ifaddr_subnet_in(&one, NULL, ip, name, size))
			break;
	}
	freeifaddrs(ifa);
}

/* The topology's function of @kind that has @name (a controller, a netdev). */
static const struct gpupath_topo_dev *topo_named(const struct diag *d, uint32_t kind,
						 const char *name)
{
	size_t i;
	unsigned int n;

	for (i = 0; name[0] && i < d->topo->ndevs; i++)
		for (n = 0; d->topo->dev[i].kind == kind && n < d->topo->dev[i].nnames; n++)
			if (!strcmp(d->topo->dev[i].name[n], name))
				return &d->topo->dev[i];
	return NULL;
}

/* Controller, transport and DMA function of namespace @p->device. */
static void describe(const struct diag *d, struct dpath *p)
{
	char path[PATH_MAX], real[PATH_MAX], addr[512], val[64], *base;
	const struct gpupath_topo_dev *fn;

	snprintf(path, sizeof(path), "/sys/block/%s/device", p->device);
	if (realpath(path, real) && (base = strrchr(real, '/')))
		snprintf(p->controller, sizeof(p->controller), "%s", base + 1);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s", p->controller);
	if (gpupath_sysfs_read(path, "transport", p->transport, sizeof(p->transport)) < 0)
		snprintf(p->transport, sizeof(p->transport), "%s",
			 strncmp(p->controller, "nvme-subsys", 11) ? "unknown" : "multipath");
	if (!strcmp(p->transport, "pcie")) {
		fn = topo_named(d, GPUPATH_TOPO_NVME, p->controller);
	} else {
		if (gpupath_sysfs_read(path, "address", addr, sizeof(addr)) < 0)
			return;
		if (gpupath_addr_field(addr, "host_iface", val, sizeof(val)) && val[0] &&
		    strcmp(val, "none"))
			snprintf(p->netdev, sizeof(p->netdev), "%.*s", IFNAMSIZ - 1, val);
		else if (gpupath_addr_field(addr, "host_traddr", val, sizeof(val)) &&
			 strcmp(val, "none"))
			gpupath_ifaddr_find(NULL, val, AF_UNSPEC, p->netdev, sizeof(p->netdev),
					    NULL, 0);
		if (!p->netdev[0] && gpupath_addr_field(addr, "traddr", val, sizeof(val)))
			subnet_netdev(val, p->netdev, sizeof(p->netdev));
		fn = topo_named(d, GPUPATH_TOPO_NIC, p->netdev);
	}
	if (fn)
		snprintf(p->dma_dev, sizeof(p->dma_dev), "%s", fn->pci_dev);
}

static int cmp_path(const void *a, const void *b)
{
	return strverscmp(((const struct dpath *)a)->device, ((const struct dpath *)b)->device);
}

/* Every NVMe namespace with a block device. */
static int scan_paths(struct diag *d)
{
	struct dirent *de;
	size_t i, j;
	DIR *dir;

	dir = opendir("/sys/block");
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		unsigned int c, n;
		char tail;
		struct dpath *p;

		/* Namespaces are nvme<c>n<n>; nvme<c>c<p>n<n> are hidden paths. */
		if (sscanf(de->d_name, "nvme%un%u%c", &c, &n, &tail) != 2)
			continue;
		p = realloc(d->paths, (d->npaths + 1) * sizeof(*p));
		if (!p) {
			closedir(dir);
			return -ENOMEM;
		}
		d->paths = p;
		p = &d->paths[d->npaths++];
		memset(p, 0, sizeof(*p));
		snprintf(p->device, sizeof(p->device), "%.63s", de->d_name);
		describe(d, p);
	}
	closedir(dir);
	qsort(d->paths, d->npaths, sizeof(*d->paths), cmp_path);
	for (i = 0; i < d->npaths; i++)
		for (j = 0; j < d->st.nvol; j++)
			for (unsigned int k = 0; k < d->st.vol[j].npaths; k++)
				if (!strcmp(d->st.vol[j].path[k].device, d->paths[i].device)) {
					d->paths[i].vol = &d->st.vol[j];
					d->paths[i].vpath = &d->st.vol[j].path[k];
				}
	return 0;
}

/* ---- probe ------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/*
 * Whether a direct read of @node's first 4 KiB really lands in @buf, the
 * provider's memory laid with a canary first, against the same read into
 * host memory: 1, 0, or -1 when it did not go direct (nothing to check).
 * Where the route does not deliver (an IOMMU that faults a P2P write by bus
 * address, a switch that does not route it), the read still succeeds and
 * the device memory keeps what it had. Twice, against a namespace written
 * meanwhile.
 */
static int probe_landed(struct gpupath_buf *buf, const char *node)
{
	uint8_t *mem = gpupath_buf_addr(buf);
	struct gpupath_result res = { 0 };
	void *host = NULL;
	int fd, i, landed = -1;

	fd = open(node, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (posix_memalign(&host, 4096, PROBE_LAT_SIZE)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < 2 && landed != 1; i++) {
		memset(mem, 0xa5, PROBE_LAT_SIZE);
		if (gpupath_read(buf, 0, fd, 0, PROBE_LAT_SIZE, GPUPATH_POLICY_DIRECT, &res) ||
		    pread(fd, host, PROBE_LAT_SIZE, 0) != PROBE_LAT_SIZE)
			break;
		landed = !memcmp(mem, host, PROBE_LAT_SIZE);
	}
	free(host);
	close(fd);
	return landed;
}

/* Read-only: reads from the namespace into the provider's memory. */
static void probe(struct diag *d, const struct gpupath_provider *prov, const struct dpath *p,
		  struct probe *pr)
{
	struct gpupath_result res = { 0 };
	struct gpupath_buf *buf = NULL;
	uint64_t size = 0, span, t, start;
	char node[80];
	unsigned int i;
	int fd, r;

	memset(pr, 0, sizeof(*pr));
	pr->done = true;
	pr->landed = -1;
	snprintf(node, sizeof(node), "/dev/%s", p->device);
	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0) {
		pr->error = errno;
		if (fd >= 0)
			close(fd);
		return;
	}
	r = d->dev ? gpupath_buf_alloc(d->dev, prov->id, PROBE_BW_SIZE, &buf) : -ENODEV;
	if (r < 0) {
		pr->error = -r;
		close(fd);
		return;
	}
	span = size < (64u << 20) ? size : (64u << 20);
	for (i = 0; i < PROBE_LAT_IOS && span >= PROBE_LAT_SIZE; i++) {
		uint64_t off = (span / PROBE_LAT_IOS * i) & ~(uint64_t)(PROBE_LAT_SIZE - 1);

		t = now_ns();
		r = gpupath_read(buf, 0, fd, off, PROBE_LAT_SIZE, GPUPATH_POLICY_AUTO, &res);
		t = now_ns() - t;
		if (r < 0)
			break;
		if (!i) {
			pr->mode = res.mode;
			pr->reason = res.reason;
		}
		pr->lat_avg_ns += t;
		if (t > pr->lat_max_ns)
			pr->lat_max_ns = t;
	}
	if (i)
		pr->lat_avg_ns /= i;
	if (r == 0 && pr->mode == GPUPATH_MODE_DIRECT)
		pr->landed = probe_landed(buf, node);
	start = now_ns();
	while (r == 0 && pr->bw_bytes + PROBE_BW_SIZE <= size && pr->bw_bytes < PROBE_BW_MAX &&
	       now_ns() - start < PROBE_NS) {
		r = gpupath_read(buf, 0, fd, pr->bw_bytes, PROBE_BW_SIZE, GPUPATH_POLICY_AUTO, &res);
		if (r == 0)
			pr->bw_bytes += PROBE_BW_SIZE;
	}
	pr->bw_ns = now_ns() - start;
	if (r < 0)
		pr->error = -r;
	gpupath_buf_free(buf);
	close(fd);
}

/* ---- analysis ------------------------------------------------------------- */

static const struct gpupath_topo_dev *topo_dev(const struct diag *d, const char *bdf)
{
	size_t i;

	for (i = 0; bdf[0] && i < d->topo->ndevs; i++)
		if (!strcasecmp(d->topo->dev[i].pci_dev, bdf))
			return &d->topo->dev[i];
	return NULL;
}

static const struct gpupath_topo_rail *rail_of(const struct diag *d, const char *bdf)
{
	size_t i;

	for (i = 0; i < d->topo->nrails; i++)
		if (!strcasecmp(d->topo->rail[i].gpu->pci_dev, bdf))
			return &d->topo->rail[i];
	return NULL;
}

static bool fabric(const struct dpath *p)
{
	return !strcmp(p->transport, "rdma") || !strcmp(p->transport, "tcp");
}

/* The first name of a topology device ("eth0", "nvme0"), or its address. */
static const char *first_name(const struct gpupath_topo_dev *t)
{
	return t->nnames ? t->name[0] : t->pci_dev;
}

/*
 * Relation of the path's DMA function to the GPU, and the best there is
 * for its kind; -1 when the path has no PCI function to place.
 */
static int relation(const struct diag *d, const struct gpupath_topo_dev *gpu,
		    const struct dpath *p, uint32_t *best, const struct gpupath_topo_dev **ideal)
{
	const struct gpupath_topo_rail *rail = rail_of(d, gpu->pci_dev);
	const struct gpupath_topo_dev *fn = topo_dev(d, p->dma_dev);

	*best = GPUPATH_TOPO_REL_SYSTEM;
	*ideal = NULL;
	if (rail && fabric(p) && rail->nic) {
		*best = rail->nic_rel;
		*ideal = rail->nic;
	} else if (rail && !fabric(p) && rail->nnvme) {
		*best = rail->nvme_rel;
		*ideal = rail->nvme[0];
	}
	if (!fn)
		return -1;
	return gpupath_topo_relation(gpu, fn);
}

/* Why P2P cannot be, what to do about it. */
static const char *reason_fix(uint32_t reason)
{
	switch (reason) {
	case GPUPATH_REASON_NO_P2P_ROUTE:
		return "put the GPU and the NVMe controller (or RNIC) under one PCIe switch, or use a "
		       "platform whose host bridge the kernel allows for P2P; with a switch, turn off "
		       "ACS redirect on its ports (kernel option pci=disable_acs_redir=...)";
	case GPUPATH_REASON_CPU_COPY:
		return "nvme-tcp copies with the CPU: connect the target over nvme-rdma on a hardware "
		       "RNIC for direct transfers";
	case GPUPATH_REASON_VIRTUAL_DMA:
		return "a software RDMA device (soft-RoCE, siw) has no DMA engine: use a hardware RNIC";
	case GPUPATH_REASON_MULTIPATH_HEAD:
		return "boot with nvme_core.multipath=N and group the paths in a gpupath volume";
	case GPUPATH_REASON_P2PDMA_NOT_BUILT:
		return "run a kernel built with CONFIG_PCI_P2PDMA=y";
	case GPUPATH_REASON_NO_PEER_MEMORY:
		return "load NVIDIA's driver (nvidia.ko, whose nvidia_p2p_* functions gpupath calls; "
		       "nvidia-peermem is not needed)";
	case GPUPATH_REASON_NO_GPU_REGION:
		return nv_gpu_region_fix;
	case GPUPATH_REASON_IOMMU_BUS_ADDR:
		return "boot with iommu=pt (as GPUDirect Storage asks too), or let ACS redirect P2P "
		       "through a host bridge that allows it; where the PCIe switch does route P2P "
		       "between its ports (gpupath diagnose checks the data with it set), set "
		       "gpupath's p2p_past_iommu module parameter";
	case GPUPATH_REASON_DMA_MAP_FAILED:
		return "the NVMe driver refused the mapping: check the IOMMU (iommu=pt) and ACS";
	case GPUPATH_REASON_NO_P2P_QUEUE:
		return "this block device's driver cannot take device memory: read through an NVMe "
		       "namespace (nvme-pci or nvme-rdma) instead";
	case GPUPATH_REASON_UNKNOWN_MEMORY:
		return "the memory's provider is gone: free the buffer and allocate from a listed "
		       "provider";
	case GPUPATH_REASON_FS_UNSUPPORTED:
		return "keep the data on ext4 (mounted as ext4) or XFS on an NVMe namespace or a "
		       "gpupath volume";
	case GPUPATH_REASON_FILE_DAX:
		return "mount without -o dax (or chattr -x the file) to read it through its device";
	case GPUPATH_REASON_FILE_ENCRYPTED:
		return "keep data meant for device memory outside encrypted directories";
	case GPUPATH_REASON_FILE_VERITY:
		return "verity files are read through the page cache: copy the data to a plain file";
	case GPUPATH_REASON_FILE_INLINE_DATA:
		return "the file is tiny (inline in its inode): bouncing it costs nothing";
	case GPUPATH_REASON_FILE_DATA_JOURNAL:
		return "mount with data=ordered (the default) and chattr -j the file";
	case GPUPATH_REASON_FILE_BLOCK_MAPPED:
		return "the file has no extents (made on ext3): copy it to a new file on ext4";
	case GPUPATH_REASON_FILE_REALTIME:
		return "keep the file on the XFS data device (chattr -r, or a file system without an "
		       "rt device)";
	case GPUPATH_REASON_STACKED_DEVICE:
		return "put the file system on an NVMe namespace, a gpupath volume, md RAID0/1/10 "
		       "or a dm linear/striped table (with gpupathd running) instead";
	case GPUPATH_REASON_FILE_MAPPED:
		return "write files meant for direct writes through I/O, not through a shared "
		       "writable mmap of them";
	default:
		return "see gpupath provider show";
	}
}

static void add_finding(struct diag *d, const char *problem, const char *path, const char *text,
			const char *fix)
{
	struct finding *f;

	if (d->nfind == FINDINGS_MAX)
		return;
	f = &d->find[d->nfind++];
	f->problem = problem;
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(f->text, sizeof(f->text), "%s", text);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
}

/* The fix for a path further from the GPU than the closest function of its kind. */
static void misaligned(struct diag *d, const struct gpupath_topo_dev *gpu, const struct dpath *p,
		       int rel, uint32_t best, const struct gpupath_topo_dev *ideal)
{
	char text[384], fix[384];
	size_t i;

	if (fabric(p)) {
		snprintf(text, sizeof(text),
			 "path %s leaves through %s (%s), which reaches GPU %s via the %s; the GPU's "
			 "rail NIC %s (%s) is reached via the %s", p->device,
			 p->netdev[0] ? p->netdev : "?", p->dma_dev, gpu->pci_dev,
			 gpupath_topo_rel_name(rel), first_name(ideal), ideal->pci_dev,
			 gpupath_topo_rel_name(best));
		snprintf(fix, sizeof(fix),
			 "connect the portal with host_iface=%s (gpupath portal set PORTAL rails "
			 "RAIL:%s), or nvme connect --host-iface=%s",
			 first_name(ideal), first_name(ideal), first_name(ideal));
	} else {
		const char *better = NULL;

		/* A namespace of the rail's controller, if there is one. */
		for (i = 0; i < d->npaths && !better; i++)
			if (!strcasecmp(d->paths[i].dma_dev, ideal->pci_dev))
				better = d->paths[i].device;
		snprintf(text, sizeof(text),
			 "path %s (controller %s, %s) reaches GPU %s via the %s; the GPU's rail "
			 "NVMe %s (%s) is reached via the %s", p->device, p->controller, p->dma_dev,
			 gpu->pci_dev, gpupath_topo_rel_name(rel), first_name(ideal),
			 ideal->pci_dev, gpupath_topo_rel_name(best));
		if (p->vol && better)
			snprintf(fix, sizeof(fix),
				 "read through %s: give volume %s the path (gpupath path add %s "
				 "/dev/%s) and let it pick by GPU (gpupath volume set %s policy "
				 "gpu-affinity)", better, p->vol->name, p->vol->name, better,
				 p->vol->name);
		else if (better)
			snprintf(fix, sizeof(fix), "read through /dev/%s, the namespace of %s",
				 better, first_name(ideal));
		else
			snprintf(fix, sizeof(fix),
				 "attach the namespace to %s (%s), the GPU's rail NVMe controller",
				 first_name(ideal), ideal->pci_dev);
	}
	add_finding(d, "misaligned", p->device, text, fix);
}

/* ---- output ------------------------------------------------------------------ */

/* The QoS settings applied on the path's devices: into @j, or as text when NULL. */
static void qos_of(const struct diag *d, const struct dpath *p, struct json *j)
{
	bool json = j;
	const struct gpupath_topo_dev *fn = topo_dev(d, p->dma_dev);
	size_t i;
	unsigned int k, n;

	if (json)
		json_arr_open(j, "qos");
	for (i = 0; i < d->st.nqos; i++) {
		for (k = 0; k < d->st.qos[i].napplied; k++) {
			const struct gpupath_qos_applied *a = &d->st.qos[i].applied[k];
			bool mine = !strcmp(a->device, p->controller) ||
				    (p->netdev[0] && !strcmp(a->device, p->netdev));

			for (n = 0; fn && !mine && n < fn->nrdma; n++)
				mine = !strcmp(a->device, fn->rdma[n]);
			for (n = 0; fn && !mine && n < fn->nnames; n++)
				mine = !strcmp(a->device, fn->name[n]);
			if (!mine)
				continue;
			if (json) {
				json_obj_open(j, NULL);
				json_str(j, "class", d->st.qos[i].name);
				json_str(j, "device", a->device);
				json_str(j, "setting", a->setting);
				json_str(j, "result", gpupath_applied_name(a->result));
				json_u64(j, "value", a->value);
				json_obj_close(j);
			} else {
				printf("      qos %s: %s %s = %u (%s)\n", d->st.qos[i].name, a->device,
				       a->setting, a->value, gpupath_applied_name(a->result));
			}
		}
	}
	if (json)
		json_arr_close(j);
}

/*
 * The module's own decision for an I/O between the provider's memory and
 * the namespace (GPUPATH_CMD_ROUTE_GET): ROUTE_UNKNOWN, with a finding,
 * when it cannot be asked.
 */
#define ROUTE_UNKNOWN	UINT32_MAX

static uint32_t route_reason(struct diag *d, const struct gpupath_provider *prov,
			     const struct dpath *p)
{
	struct gpupath_ctl *ctl = cli_ctl(d->cli);
	struct gpupath_route rt;
	char node[80], text[384];
	const char *kmsg;
	int r;

	snprintf(node, sizeof(node), "/dev/%s", p->device);
	r = ctl ? gpupath_ctl_route(ctl, prov->id, node, GPUPATH_IO_READ, &rt, sizeof(rt)) : -ENODEV;
	if (r == 0)
		return rt.reason;
	kmsg = ctl ? gpupath_ctl_errmsg(ctl) : NULL;
	snprintf(text, sizeof(text), "the module was not asked about %s: %s%s%s", node,
		 strerror(-r), kmsg ? ": " : "", kmsg ? kmsg : "");
	add_finding(d, "route", p->device, text,
		    r == -EOPNOTSUPP ? "load the gpupath module of these tools' version"
				     : "run as root, with the namespace readable");
	return ROUTE_UNKNOWN;
}

static void path_out(struct diag *d, const struct gpupath_provider *prov,
		     const struct gpupath_topo_dev *gpu, const struct dpath *p)
{
	bool json = d->cli->json;
	struct json *j = &d->cli->j;
	const struct gpupath_topo_dev *ideal = NULL;
	struct probe pr = { .landed = -1 };
	uint32_t best = GPUPATH_TOPO_REL_SYSTEM, reason;
	char domain[32];
	const char *iommu = p->dma_dev[0] ? cli_iommu(p->dma_dev, domain, sizeof(domain)) : NULL;
	int rel = gpu ? relation(d, gpu, p, &best, &ideal) : -1;

	/* The memory of an NVIDIA provider is CUDA's: the probe cannot allocate it. */
	if (d->probe && prov->type != GPUPATH_PROVIDER_NVIDIA)
		probe(d, prov, p, &pr);
	reason = route_reason(d, prov, p);

	if (gpu && rel >= 0 && ideal && (uint32_t)rel > best)
		misaligned(d, gpu, p, rel, best, ideal);
	if (reason != GPUPATH_REASON_NONE && reason != ROUTE_UNKNOWN) {
		char text[384];

		snprintf(text, sizeof(text), "path %s cannot DMA into provider %u's memory: %s (%s)",
			 p->device, prov->id, gpupath_reason_name(reason), gpupath_reason_text(reason));
		add_finding(d, "no-p2p", p->device, text, reason_fix(reason));
	}
	if (pr.landed == 0) {
		char text[384], fix[384];

		snprintf(text, sizeof(text), "direct reads from %s into provider %u's memory do not "
			 "land: the read succeeds and the device memory keeps other bytes (IOMMU "
			 "for %s: %s)", p->device, prov->id, p->dma_dev[0] ? p->dma_dev : "it",
			 iommu ? iommu : "unknown");
		if (iommu && !strcmp(iommu, "translated"))
			snprintf(fix, sizeof(fix), "DMA translation is on for %s: its P2P writes by "
				 "bus address reach the IOMMU, which drops them (dmesg | grep DMAR). "
				 "Boot with iommu=pt, as GPUDirect Storage asks too", p->dma_dev);
		else
			snprintf(fix, sizeof(fix), "the PCIe route between them does not deliver "
				 "P2P writes: check the switch's ACS and the firmware's PCIe "
				 "settings; use the compat mode until then");
		add_finding(d, "p2p-data", p->device, text, fix);
	}
	if (pr.done && pr.error) {
		char text[384];

		snprintf(text, sizeof(text), "probe of %s: %s", p->device, strerror(pr.error));
		add_finding(d, "probe", p->device, text, "run as root with the namespace readable");
	}

	if (json) {
		json_obj_open(j, NULL);
		json_str(j, "device", p->device);
		json_str(j, "controller", p->controller);
		json_str(j, "transport", p->transport);
		if (p->netdev[0])
			json_str(j, "netdev", p->netdev);
		else
			json_null(j, "netdev");
		if (p->dma_dev[0]) {
			json_str(j, "dma_dev", p->dma_dev);
			json_str(j, "iommu", iommu);
		} else {
			json_null(j, "dma_dev");
			json_null(j, "iommu");
		}
		if (p->vol)
			json_str(j, "volume", p->vol->name);
		else
			json_null(j, "volume");
		if (p->vpath)
			json_str(j, "ana", gpupath_ana_state_name(p->vpath->ana_state));
		else
			json_null(j, "ana");
		if (rel >= 0)
			json_str(j, "relation", gpupath_topo_rel_name(rel));
		else
			json_null(j, "relation");
		if (rel >= 0 && ideal)
			json_bool(j, "aligned", (uint32_t)rel <= best);
		else
			json_null(j, "aligned");
		json_bool(j, "p2p", reason == GPUPATH_REASON_NONE);
		json_str(j, "reason", gpupath_reason_name(reason));
		qos_of(d, p, j);
		if (pr.done) {
			json_obj_open(j, "probe");
			if (pr.error) {
				json_str(j, "error", strerror(pr.error));
			} else {
				json_str(j, "mode", gpupath_mode_name(pr.mode));
				if (pr.landed >= 0)
					json_bool(j, "landed", pr.landed);
				else
					json_null(j, "landed");
				json_u64(j, "latency_avg_ns", pr.lat_avg_ns);
				json_u64(j, "latency_max_ns", pr.lat_max_ns);
				json_u64(j, "bytes", pr.bw_bytes);
				json_u64(j, "ns", pr.bw_ns);
				json_u64(j, "bytes_per_s", pr.bw_ns ? pr.bw_bytes * 1000000000ull /
							     pr.bw_ns : 0);
			}
			json_obj_close(j);
		} else {
			json_null(j, "probe");
		}
		json_obj_close(j);
		return;
	}
	printf("  %-10s %-9s %-5s %-13s %-12s %-11s %s\n", p->device, p->vol ? p->vol->name : "-",
	       p->transport, p->dma_dev[0] ? p->dma_dev : "-",
	       rel >= 0 ? gpupath_topo_rel_name(rel) : "-",
	       rel < 0 || !ideal ? "-" : (uint32_t)rel <= best ? "aligned" : "MISALIGNED",
	       reason == GPUPATH_REASON_NONE ? "p2p" : gpupath_reason_name(reason));
	if (pr.done && !pr.error)
		printf("      probe: %s%s, 4 KiB latency %.1f us (max %.1f), %.1f MB/s over %" PRIu64
		       " MiB\n", gpupath_mode_name(pr.mode),
		       !pr.landed ? " (THE DATA DID NOT LAND)" : pr.landed > 0 ? " (data checked)" : "",
		       pr.lat_avg_ns / 1e3, pr.lat_max_ns / 1e3,
		       pr.bw_ns ? pr.bw_bytes * 1e3 / pr.bw_ns : 0.0, pr.bw_bytes >> 20);
	else if (pr.done)
		printf("      probe: %s\n", strerror(pr.error));
	if (iommu)
		printf("      iommu: %s\n", iommu);
	if (p->vpath && p->vpath->ana_state != GPUPATH_ANA_UNKNOWN)
		printf("      ana: %s (group %u)%s\n", gpupath_ana_state_name(p->vpath->ana_state),
		       p->vpath->ana_group,
		       p->vpath->ana_state == GPUPATH_ANA_NON_OPTIMIZED ?
		       ": used only while no optimized path is" :
		       p->vpath->ana_state == GPUPATH_ANA_OPTIMIZED ? "" : ": takes no I/O");
	qos_of(d, p, NULL);
}

/* One provider: its paths, bounces seen, findings and the verdict. */
static void provider_out(struct diag *d, const struct gpupath_provider *prov)
{
	const struct gpupath_topo_rail *rail = rail_of(d, prov->pci_dev);
	const struct gpupath_topo_dev *gpu = topo_dev(d, prov->pci_dev);
	bool json = d->cli->json;
	struct json *j = &d->cli->j;
	unsigned int first = d->nfind, i, r;
	const struct finding *top;
	char verdict[512], fix[512], domain[32];
	const char *mode;
	size_t k;

	if (json) {
		json_obj_open(j, NULL);
		json_u64(j, "provider", prov->id);
		json_str(j, "pci_dev", prov->pci_dev);
		json_str(j, "iommu", cli_iommu(prov->pci_dev, domain, sizeof(domain)));
		json_obj_open(j, "rail");
		if (rail && rail->nic) {
			json_str(j, "nic", rail->nic->pci_dev);
			json_str(j, "nic_name", first_name(rail->nic));
			json_str(j, "nic_relation", gpupath_topo_rel_name(rail->nic_rel));
		}
		if (rail && rail->nnvme) {
			json_str(j, "nvme", rail->nvme[0]->pci_dev);
			json_str(j, "nvme_name", first_name(rail->nvme[0]));
			json_str(j, "nvme_relation", gpupath_topo_rel_name(rail->nvme_rel));
		}
		json_obj_close(j);
		json_arr_open(j, "paths");
	} else {
		printf("provider %u: %s %s\n", prov->id, gpupath_provider_type_name(prov->type),
		       prov->pci_dev);
		mode = cli_iommu(prov->pci_dev, domain, sizeof(domain));
		printf("  iommu: %s: %s\n", mode, cli_iommu_text(mode));
		if (rail)
			printf("  rail: NIC %s via %s, NVMe %s via %s\n",
			       rail->nic ? first_name(rail->nic) : "none",
			       rail->nic ? gpupath_topo_rel_name(rail->nic_rel) : "-",
			       rail->nnvme ? first_name(rail->nvme[0]) : "none",
			       rail->nnvme ? gpupath_topo_rel_name(rail->nvme_rel) : "-");
		printf("  %-10s %-9s %-5s %-13s %-12s %-11s %s\n", "PATH", "VOLUME", "VIA", "DMA BY",
		       "PCIE ROUTE", "RAIL", "P2P");
	}
	for (k = 0; k < d->npaths; k++)
		path_out(d, prov, gpu, &d->paths[k]);
	if (json) {
		json_arr_close(j);
		json_obj_open(j, "bounced");
	}
	for (r = 1; r < GPUPATH_REASONS_KNOWN; r++) {
		if (!prov->refused_ios[r])
			continue;
		if (json) {
			json_obj_open(j, gpupath_reason_name(r));
			json_u64(j, "ios", prov->refused_ios[r]);
			json_u64(j, "bytes", prov->refused_bytes[r]);
			json_obj_close(j);
		} else {
			printf("  bounced so far (%s): %" PRIu64 " I/Os, %" PRIu64 " bytes\n",
			       gpupath_reason_name(r), prov->refused_ios[r], prov->refused_bytes[r]);
		}
	}
	if (json) {
		json_obj_close(j);
		json_arr_open(j, "findings");
		for (i = first; i < d->nfind; i++) {
			json_obj_open(j, NULL);
			json_str(j, "problem", d->find[i].problem);
			json_str(j, "path", d->find[i].path);
			json_str(j, "text", d->find[i].text);
			json_str(j, "fix", d->find[i].fix);
			json_obj_close(j);
		}
		json_arr_close(j);
	}

	/*
	 * The verdict: data that does not land first (wrong bytes, not a wait),
	 * then the first misalignment, else the first other finding.
	 */
	verdict[0] = fix[0] = '\0';
	top = NULL;
	for (i = first; i < d->nfind && !top; i++)
		if (!strcmp(d->find[i].problem, "p2p-data"))
			top = &d->find[i];
	for (i = first; i < d->nfind && !top; i++)
		if (!strcmp(d->find[i].problem, "misaligned"))
			top = &d->find[i];
	if (!top && first < d->nfind)
		top = &d->find[first];
	if (top && !strcmp(top->problem, "p2p-data")) {
		snprintf(verdict, sizeof(verdict), "WRONG DATA on %s: %s", top->path, top->text);
		snprintf(fix, sizeof(fix), "%s", top->fix);
	} else if (top) {
		snprintf(verdict, sizeof(verdict), "waits on %s: %s", top->path, top->text);
		snprintf(fix, sizeof(fix), "%s", top->fix);
	} else {
		snprintf(verdict, sizeof(verdict), d->npaths ?
			 "no wait found: every path is rail-aligned and goes direct" :
			 "no NVMe namespace to read from");
	}
	if (json) {
		json_str(j, "verdict", verdict);
		if (fix[0])
			json_str(j, "fix", fix);
		else
			json_null(j, "fix");
		json_obj_close(j);
		return;
	}
	for (i = first; i < d->nfind; i++)
		printf("  %s: %s\n    fix: %s\n", d->find[i].problem, d->find[i].text, d->find[i].fix);
	printf("  verdict: %s\n", verdict);
	if (fix[0])
		printf("  fix: %s\n", fix);
}

/* The file system types a file may be on, by magic, for the report. */
static const char *fs_name(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53: return "ext2/ext3/ext4";
	case 0x58465342: return "xfs";
	case 0x01021994: return "tmpfs";
	case 0x858458f6: return "ramfs";
	case 0x9123683E: return "btrfs";
	case 0x6969: return "nfs";
	case 0x65735546: return "fuse";
	case 0x9fa0: return "proc";
	default: return "other";
	}
}

/* One provider against the file: a read of its first block, direct or nothing. */
static void file_probe(struct cli *cli, struct gpupath_dev *dev, const struct gpupath_provider *p,
		       int fd)
{
	struct gpupath_result res = { 0 };
	struct gpupath_buf *buf;
	const char *verdict;
	int r;

	r = dev ? gpupath_buf_alloc(dev, p->id, 65536, &buf) : -ENODEV;
	if (r == 0) {
		r = gpupath_read(buf, 0, fd, 0, 65536, GPUPATH_POLICY_DIRECT, &res);
		gpupath_buf_free(buf);
	}
	verdict = r == 0 ? "direct" : r == -EXDEV ? "refused" : "error";
	if (cli->json) {
		json_obj_open(&cli->j, NULL);
		json_u64(&cli->j, "provider", p->id);
		json_str(&cli->j, "pci_dev", p->pci_dev);
		json_str(&cli->j, "verdict", verdict);
		if (r == -EXDEV) {
			json_str(&cli->j, "reason", gpupath_reason_name(res.reason));
			json_str(&cli->j, "text", gpupath_reason_text(res.reason));
			json_str(&cli->j, "fix", reason_fix(res.reason));
		} else if (r) {
			json_str(&cli->j, "error", strerror(-r));
		}
		json_obj_close(&cli->j);
		return;
	}
	printf("  provider %u (%s): %s", p->id, p->pci_dev, verdict);
	if (r == -EXDEV)
		printf(": %s (%s)\n    fix: %s\n", gpupath_reason_name(res.reason),
		       gpupath_reason_text(res.reason), reason_fix(res.reason));
	else if (r)
		printf(": %s\n", strerror(-r));
	else
		printf("\n");
}

/*
 * gpupath diagnose FILE: the file system, the block device under it (a
 * partition's disk too), and per provider whether the file goes direct.
 */
static int diagnose_file(struct cli *cli, const char *path)
{
	char link[PATH_MAX], sys[64], dev_name[64] = "none";
	struct snapshot st;
	struct gpupath_dev *dev = NULL;
	struct gpupath_ctl *ctl;
	const char *what;
	struct statfs sf;
	struct stat sb;
	ssize_t n;
	size_t k;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || fstatfs(fd, &sf) < 0) {
		fprintf(stderr, "gpupath: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(sb.st_mode)) {
		fprintf(stderr, "gpupath: %s: not a regular file (diagnose without it for devices)\n",
			path);
		close(fd);
		return 2;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		snprintf(dev_name, sizeof(dev_name), "%s", strrchr(link, '/') + 1);
	}
	ctl = cli_ctl(cli);
	if (!ctl) {
		close(fd);
		return 1;
	}
	r = snapshot_get(ctl, &st, &what);
	if (r < 0) {
		close(fd);
		return cli_err(cli, r, what, gpupath_ctl_errmsg(ctl));
	}
	if (gpupath_dev_open(&dev) < 0)
		dev = NULL;
	cli_output_begin(cli);
	if (cli->json) {
		json_str(&cli->j, "file", path);
		json_str(&cli->j, "fs", fs_name(sf.f_type));
		json_str(&cli->j, "device", dev_name);
		json_u64(&cli->j, "size", sb.st_size);
		json_arr_open(&cli->j, "providers");
	} else {
		printf("file %s: %jd bytes on %s, block device %s (%u:%u)\n", path,
		       (intmax_t)sb.st_size, fs_name(sf.f_type), dev_name, major(sb.st_dev),
		       minor(sb.st_dev));
		if (!st.nprov)
			printf("  no provider: no device memory to read it into\n");
	}
	for (k = 0; k < st.nprov; k++)
		if (st.prov[k].type != GPUPATH_PROVIDER_NVIDIA)
			file_probe(cli, dev, &st.prov[k], fd);
	if (cli->json)
		json_arr_close(&cli->j);
	r = cli_output_end(cli, 0);
	gpupath_dev_close(dev);
	snapshot_free(&st);
	close(fd);
	return r;
}

/*
 * What the running kernel does for device memory by itself, and what
 * gpupath adds on it: by the release (these are upstream's, by version;
 * a distribution may carry them earlier) and the module's P2PDMA status.
 */
static void kernel_out(struct diag *d, const struct gpupath_info *info)
{
	static const struct {
		unsigned int since;	/* major << 8 | minor */
		const char *what;
	} upstream[] = {
		{ 0x0414, "P2PDMA between PCI devices for the kernel's own users (nvmet, RDMA)" },
		{ 0x0602, "user-space O_DIRECT into P2PDMA memory on NVMe-PCIe namespaces" },
		{ 0x0701, "nvme-rdma namespaces take P2PDMA memory where the RNIC can map it" },
		{ 0x0702, "native-multipath heads and md RAID0/1/10 take P2PDMA memory from their "
			  "paths and members" },
	};
	static const char *const adds[] = {
		"GPU memory as providers: BARs bound to gpupath, NVMe CMBs, NVIDIA peer memory",
		"volumes that pick a path per I/O by the GPU's place in the PCIe tree",
		"a reason for every I/O that cannot go direct, and the bounce that keeps it working",
		"files on ext4 and XFS, checked file by file",
		"md RAID0/1/10, dm linear/striped (told by gpupathd) and native-multipath heads seen "
		"through for its own I/O on every kernel",
		"the fabric daemon (connections, RoCEv2 QoS, path states) and tenants' limits",
	};
	bool usable = info->features & GPUPATH_FEATURE_P2PDMA_USABLE;
	const char *status = cli_kernel_status(info->kernel);
	unsigned int major = 0, minor = 0, v;
	struct json *j = &d->cli->j;
	size_t k;

	if (sscanf(info->kernel, "%u.%u", &major, &minor) != 2)
		major = minor = 0;
	v = major << 8 | minor;
	if (d->cli->json) {
		json_obj_open(j, "kernel");
		json_str(j, "release", info->kernel);
		json_str(j, "status", status);
		json_bool(j, "p2pdma", usable);
		json_arr_open(j, "upstream");
		for (k = 0; usable && k < sizeof(upstream) / sizeof(upstream[0]); k++)
			if (v >= upstream[k].since)
				json_str(j, NULL, upstream[k].what);
		json_arr_close(j);
		json_arr_open(j, "gpupath_adds");
		for (k = 0; k < sizeof(adds) / sizeof(adds[0]); k++)
			json_str(j, NULL, adds[k]);
		json_arr_close(j);
		json_obj_close(j);
		return;
	}
	printf("kernel %s: %s\n", info->kernel, cli_kernel_status_text(status));
	printf("  upstream does by itself:%s\n", usable ? "" : " nothing with device memory "
	       "(P2PDMA unavailable: every device-memory I/O bounces through host memory)");
	for (k = 0; usable && k < sizeof(upstream) / sizeof(upstream[0]); k++)
		if (v >= upstream[k].since)
			printf("    - %s\n", upstream[k].what);
	printf("  gpupath adds:\n");
	for (k = 0; k < sizeof(adds) / sizeof(adds[0]); k++)
		printf("    - %s\n", adds[k]);
}

/* Each NVIDIA GPU's P2PDMA region, and the fix where it has none. */
static void nvidia_out(struct diag *d)
{
	struct json *j = &d->cli->j;
	const char *fix;
	struct nv_gpu g;
	size_t k;

	if (d->cli->json)
		json_arr_open(j, "nvidia_gpus");
	for (k = 0; k < d->topo->ndevs; k++) {
		if (!nv_gpu_read(&d->topo->dev[k], &g))
			continue;
		if (d->cli->json) {
			json_obj_open(j, NULL);
			json_str(j, "pci_dev", d->topo->dev[k].pci_dev);
			nv_gpu_json(j, &g);
			json_obj_close(j);
			continue;
		}
		printf("NVIDIA GPU %s (driver %s): P2PDMA region over its BAR: %s\n",
		       d->topo->dev[k].pci_dev, g.driver[0] ? g.driver : "none",
		       g.region ? "yes" : "no");
		fix = nv_gpu_fix(&g);
		if (fix)
			printf("  fix: %s\n", fix);
	}
	if (d->cli->json)
		json_arr_close(j);
}

static const char usage[] = "gpupath diagnose [-j] [--no-probe] [FILE] | [-j] --pid PID";

/* "--pid PID" taken out of argv: PID, or NULL; -1 in *@bad when PID is missing. */
static char *take_pid(int *argc, char **argv, int *bad)
{
	char *pid = NULL;
	int i, j;

	for (i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--pid"))
			continue;
		if (i + 1 >= *argc) {
			*bad = -1;
			return NULL;
		}
		pid = argv[i + 1];
		for (j = i; j + 2 <= *argc; j++)
			argv[j] = argv[j + 2];
		*argc -= 2;
		break;
	}
	return pid;
}

int cmd_diagnose(struct cli *cli, int argc, char **argv)
{
	struct diag d = { .cli = cli, .probe = !cli_take_flag(&argc, argv, "--no-probe") };
	struct gpupath_info info;
	const char **pci = NULL;
	struct gpupath_ctl *ctl;
	const char *what;
	int r, bad = 0;
	char *pid;
	size_t k;

	/* --pid: the cuFile library the process has loaded (gpupath cufile PID). */
	pid = take_pid(&argc, argv, &bad);
	/* With --pid, -j at most: no FILE, no --no-probe. */
	if (bad || (pid && (argc > 2 || !d.probe || (argc == 2 && argv[1][0] != '-')))) {
		fprintf(stderr, "Usage: %s\n", usage);
		return 2;
	}
	if (pid) {
		char *args[] = { argv[0], argc == 2 ? argv[1] : pid, pid, NULL };

		return cmd_cufile(cli, argc + 1, args);
	}
	r = cli_parse_opts(cli, argc, argv, usage);
	if (r < 0)
		return 2;
	if (r < argc - 1 || (r == argc - 1 && !d.probe)) {
		fprintf(stderr, "Usage: %s\n", usage);
		return 2;
	}
	if (r == argc - 1)
		return diagnose_file(cli, argv[r]);
	ctl = cli_ctl(cli);
	if (!ctl)
		return 1;
	r = snapshot_get(ctl, &d.st, &what);
	if (r < 0)
		return cli_err(cli, r, what, gpupath_ctl_errmsg(ctl));
	pci = calloc(d.st.nprov + 1, sizeof(*pci));
	r = pci ? 0 : -ENOMEM;
	for (k = 0; !r && k < d.st.nprov; k++)
		pci[k] = d.st.prov[k].pci_dev;
	if (!r)
		r = gpupath_topo_scan(NULL, pci, d.st.nprov, &d.topo);
	if (!r)
		r = scan_paths(&d);
	if (r < 0) {
		cli_err(cli, r, "diagnose: reading sysfs", NULL);
		goto out;
	}
	if (d.probe && gpupath_dev_open(&d.dev) < 0)
		d.dev = NULL;
	cli_output_begin(cli);
	if (!gpupath_ctl_get_info(ctl, &info, sizeof(info)))
		kernel_out(&d, &info);
	nvidia_out(&d);
	if (cli->json)
		json_arr_open(&cli->j, "providers");
	else if (!d.st.nprov)
		printf("no provider: no device memory for I/O to target (gpupath provider add, or "
		       "bind a device to gpupath)\n");
	for (k = 0; k < d.st.nprov; k++)
		provider_out(&d, &d.st.prov[k]);
	if (cli->json)
		json_arr_close(&cli->j);
	r = cli_output_end(cli, 0);
out:
	gpupath_dev_close(d.dev);
	gpupath_topo_free(d.topo);
	free(d.paths);
	free(pci);
	snapshot_free(&d.st);
	return r < 0 ? 1 : r;
}
