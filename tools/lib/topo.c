// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The PCIe topology of GPUs, NICs and NVMe functions, read from sysfs, and
 * the rails it gives: each GPU with the NIC and the NVMe closest to it.
 *
 * A PCI function's sysfs directory sits below those of its bridges:
 *
 *   devices/pci0000:00/0000:00:10.0/0000:01:00.0/0000:02:00.0/0000:03:00.0
 *           host       root port    switch       switch       the function
 *           bridge                  upstream     downstream
 *
 * so its realpath gives the chain; the last host bridge on the way counts
 * (a VMD domain, or a Hyper-V bus, sits below another device).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libgpupath-admin.h"
#include "internal.h"


#define PCI_CLASS_NVME	0x010802

struct scan {
	char root[PATH_MAX];		/* sysfs, resolved */
	struct gpupath_topo_dev *dev;
	size_t ndevs;
	size_t cap;
};

/* Where a sysfs path is: its host bridge and the PCI functions below it. */
struct pci_pos {
	char host_bridge[16];
	unsigned int n;			/* functions on the way, the last included */
	char fn[GPUPATH_TOPO_BRIDGES_MAX + 1][16];	/* the first ones */
	char last[16];
};

static const char *const rel_names[] = {
	[GPUPATH_TOPO_REL_SWITCH] = "switch",
	[GPUPATH_TOPO_REL_ROOT_PORT] = "root-port",
	[GPUPATH_TOPO_REL_HOST_BRIDGE] = "host-bridge",
	[GPUPATH_TOPO_REL_NUMA] = "numa",
	[GPUPATH_TOPO_REL_SYSTEM] = "system",
};

static const char *const kind_names[] = {
	[GPUPATH_TOPO_GPU] = "gpu",
	[GPUPATH_TOPO_NIC] = "nic",
	[GPUPATH_TOPO_NVME] = "nvme",
};

const char *gpupath_topo_rel_name(uint32_t rel)
{
	return rel < ARRAY_SIZE(rel_names) ? rel_names[rel] : "unknown";
}

const char *gpupath_topo_kind_name(uint32_t kind)
{
	return kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "unknown";
}

/* "0000:03:00.0" */
static bool is_bdf(const char *s)
{
	unsigned int domain, bus, slot, fn;
	int n = -1;

	return isxdigit((unsigned char)s[0]) && strlen(s) < 16 &&
	       sscanf(s, "%x:%x:%x.%x%n", &domain, &bus, &slot, &fn, &n) == 4 && !s[n];
}

/* "pci0000:00" */
static bool is_host_bridge(const char *s)
{
	unsigned int domain, bus;
	int n = -1;

	return !strncmp(s, "pci", 3) && isxdigit((unsigned char)s[3]) && strlen(s) < 16 &&
	       sscanf(s + 3, "%x:%x%n", &domain, &bus, &n) == 2 && !s[3 + n];
}

/* A path from @fmt into @path (PATH_MAX bytes); -ENAMETOOLONG if it does not fit. */
__attribute__((format(printf, 2, 3)))
static int path_fmt(char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

int gpupath_sysfs_read(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;
	int r;

	r = path_fmt(path, "%s/%s", dir, name);
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		r = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!r)
		buf[strcspn(buf, "\n")] = '\0';
	return r;
}

static uint32_t read_hex(const char *dir, const char *name)
{
	char buf[32];

	return gpupath_sysfs_read(dir, name, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 16);
}

/*
 * The host bridge and PCI functions of the sysfs path @path resolves to;
 * -ENODEV when it is not below a host bridge of @s's sysfs.
 */
static int pci_locate(const struct scan *s, const char *path, struct pci_pos *pos)
{
	char real[PATH_MAX], *c, *save;
	size_t len = strlen(s->root);

	if (!realpath(path, real))
		return -errno;
	if (strncmp(real, s->root, len) || strncmp(real + len, "/devices/", 9))
		return -ENODEV;
	memset(pos, 0, sizeof(*pos));
	for (c = strtok_r(real + len + 9, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (is_host_bridge(c)) {
			strcpy(pos->host_bridge, c);
			pos->n = 0;
		} else if (is_bdf(c) && pos->host_bridge[0]) {
			if (pos->n < ARRAY_SIZE(pos->fn))
				strcpy(pos->fn[pos->n], c);
			strcpy(pos->last, c);
			pos->n++;
		}
	}
	return pos->n ? 0 : -ENODEV;
}

static struct gpupath_topo_dev *find(struct scan *s, const char *bdf)
{
	size_t i;

	for (i = 0; i < s->ndevs; i++)
		if (!strcmp(s->dev[i].pci_dev, bdf))
			return &s->dev[i];
	return NULL;
}

/*
 * What function @d is and where it sits, from bus/pci/devices; one that is
 * not below a host bridge has none (and only its NUMA node to go by).
 */
static void place(struct scan *s, struct gpupath_topo_dev *d)
{
	char dir[PATH_MAX], buf[32];
	struct pci_pos pos;
	unsigned int i;

	d->numa_node = -1;
	if (path_fmt(dir, "%s/bus/pci/devices/%s", s->root, d->pci_dev) < 0)
		return;
	d->vendor = read_hex(dir, "vendor");
	d->device = read_hex(dir, "device");
	d->pci_class = read_hex(dir, "class");
	d->numa_node = gpupath_sysfs_read(dir, "numa_node", buf, sizeof(buf)) ? -1 : atoi(buf);
	if (pci_locate(s, dir, &pos) < 0)
		return;
	strcpy(d->host_bridge, pos.host_bridge);
	/* The bridges: what is above the function, the root port first. */
	for (i = 0; i + 1 < pos.n && i < GPUPATH_TOPO_BRIDGES_MAX; i++)
		strcpy(d->bridge[i], pos.fn[i]);
	d->nbridges = i;
}

/* A new function of kind @kind at @bdf; NULL when out of memory. */
static struct gpupath_topo_dev *add(struct scan *s, const char *bdf, uint32_t kind)
{
	struct gpupath_topo_dev *d;

	if (s->ndevs == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		d = realloc(s->dev, cap * sizeof(*d));
		if (!d)
			return NULL;
		s->dev = d;
		s->cap = cap;
	}
	d = &s->dev[s->ndevs++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	strcpy(d->pci_dev, bdf);
	place(s, d);
	return d;
}

static void add_name(char names[][GPUPATH_NAME_LEN], unsigned int *n, const char *name)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	if (*n < GPUPATH_TOPO_NAMES_MAX)
		snprintf(names[(*n)++], GPUPATH_NAME_LEN, "%s", name);
}

static bool is_gpu(uint32_t vendor, uint32_t class)
{
	switch (class >> 8) {
	case 0x0300:	/* VGA */
	case 0x0302:	/* 3D controller */
	case 0x0380:	/* display controller, other */
		break;
	default:
		return false;
	}
	return vendor == 0x10de || vendor == 0x1002 || vendor == 0x8086;
}

static bool listed(const char *bdf, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] && !strcasecmp(list[i], bdf))
			return true;
	return false;
}

/* GPUs, providers and NVMe functions, from bus/pci/devices. */
static int scan_pci(struct scan *s, const char *const *providers, size_t nproviders)
{
	char path[PATH_MAX];
	struct gpupath_topo_dev *d;
	struct dirent *e;
	uint32_t class;
	bool provider;
	DIR *dir;
	int r = 0;

	r = path_fmt(path, "%s/bus/pci/devices", s->root);
	if (r < 0)
		return r;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!r && (e = readdir(dir))) {
		if (!is_bdf(e->d_name) ||
		    path_fmt(path, "%s/bus/pci/devices/%s", s->root, e->d_name) < 0)
			continue;
		class = read_hex(path, "class");
		provider = listed(e->d_name, providers, nproviders);
		if (class == PCI_CLASS_NVME)
			d = add(s, e->d_name, GPUPATH_TOPO_NVME);
		else if (provider || is_gpu(read_hex(path, "vendor"), class))
			d = add(s, e->d_name, GPUPATH_TOPO_GPU);
		else
			continue;
		if (!d)
			r = -ENOMEM;
		else
			d->provider = provider;
	}
	closedir(dir);
	return r;
}

/*
 * The function of kind @kind that class device @dir's device link leads to
 * (or sits below: a virtio-net interface's device is virtioN, below its
 * function), into *@dp; NULL for a virtual device or another kind. A NIC
 * is added when first seen. Returns 0 or -ENOMEM.
 */
static int class_dev(struct scan *s, const char *dir, uint32_t kind,
		     struct gpupath_topo_dev **dp)
{
	char link[PATH_MAX];
	struct gpupath_topo_dev *d;
	struct pci_pos pos;

	*dp = NULL;
	if (path_fmt(link, "%s/device", dir) < 0 || pci_locate(s, link, &pos) < 0)
		return 0;
	d = find(s, pos.last);
	if (!d && kind == GPUPATH_TOPO_NIC) {
		d = add(s, pos.last, kind);
		if (!d)
			return -ENOMEM;
	}
	if (d && d->kind == kind)
		*dp = d;
	return 0;
}

/*
 * Calls @fn for each entry of class directory @class ("net"); none when
 * there is no such class.
 */
static int scan_class(struct scan *s, const char *class,
		      int (*fn)(struct scan *s, const char *dir, const char *name))
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int r = 0;

	r = path_fmt(path, "%s/class/%s", s->root, class);
	if (r < 0)
		return r;
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!r && (e = readdir(dir))) {
		if (e->d_name[0] == '.' ||
		    path_fmt(path, "%s/class/%s/%s", s->root, class, e->d_name) < 0)
			continue;
		r = fn(s, path, e->d_name);
	}
	closedir(dir);
	return r;
}

static int net_dev(struct scan *s, const char *dir, const char *name)
{
	struct gpupath_topo_dev *d;
	int r;

	r = class_dev(s, dir, GPUPATH_TOPO_NIC, &d);
	if (d)
		add_name(d->name, &d->nnames, name);
	return r;
}

/* The NIC with network interface @netdev. */
static struct gpupath_topo_dev *nic_of(struct scan *s, const char *netdev)
{
	unsigned int j;
	size_t i;

	for (i = 0; i < s->ndevs; i++)
		for (j = 0; s->dev[i].kind == GPUPATH_TOPO_NIC && j < s->dev[i].nnames; j++)
			if (!strcmp(s->dev[i].name[j], netdev))
				return &s->dev[i];
	return NULL;
}

/*
 * An RDMA device belongs to the function it is on (mlx5_0), or, a software
 * one (rxe, siw), to the NIC of the interface it is bound to: its "parent",
 * or the interface of its first GID.
 */
static int rdma_dev(struct scan *s, const char *dir, const char *name)
{
	char netdev[GPUPATH_NAME_LEN];
	struct gpupath_topo_dev *d;
	int r;

	r = class_dev(s, dir, GPUPATH_TOPO_NIC, &d);
	if (!r && !d && (!gpupath_sysfs_read(dir, "parent", netdev, sizeof(netdev)) ||
			 !gpupath_sysfs_read(dir, "ports/1/gid_attrs/ndevs/0", netdev, sizeof(netdev))))
		d = nic_of(s, netdev);
	if (d)
		add_name(d->rdma, &d->nrdma, name);
	return r;
}

static int nvme_dev(struct scan *s, const char *dir, const char *name)
{
	struct gpupath_topo_dev *d;
	int r;

	r = class_dev(s, dir, GPUPATH_TOPO_NVME, &d);
	if (d)
		add_name(d->name, &d->nnames, name);
	return r;
}

uint32_t gpupath_topo_relation(const struct gpupath_topo_dev *a,
			       const struct gpupath_topo_dev *b)
{
	unsigned int n;

	if (a->host_bridge[0] && !strcmp(a->host_bridge, b->host_bridge)) {
		for (n = 0; n < a->nbridges && n < b->nbridges; n++)
			if (strcmp(a->bridge[n], b->bridge[n]))
				break;
		if (n >= 2)
			return GPUPATH_TOPO_REL_SWITCH;
		return n ? GPUPATH_TOPO_REL_ROOT_PORT : GPUPATH_TOPO_REL_HOST_BRIDGE;
	}
	if (a->numa_node >= 0 && a->numa_node == b->numa_node)
		return GPUPATH_TOPO_REL_NUMA;
	return GPUPATH_TOPO_REL_SYSTEM;
}

/* The closest NIC to @rail's GPU, the first (lowest address) among equals. */
static void rail_nic(const struct gpupath_topo *t, struct gpupath_topo_rail *rail)
{
	uint32_t rel;
	size_t i;

	for (i = 0; i < t->ndevs; i++) {
		if (t->dev[i].kind != GPUPATH_TOPO_NIC)
			continue;
		rel = gpupath_topo_relation(rail->gpu, &t->dev[i]);
		if (!rail->nic || rel < rail->nic_rel) {
			rail->nic = &t->dev[i];
			rail->nic_rel = rel;
		}
	}
}

/* Every NVMe function as close to @rail's GPU as the closest one. */
static void rail_nvme(const struct gpupath_topo *t, struct gpupath_topo_rail *rail)
{
	uint32_t rel, best = GPUPATH_TOPO_REL_SYSTEM;
	size_t i;

	for (i = 0; i < t->ndevs; i++) {
		if (t->dev[i].kind != GPUPATH_TOPO_NVME)
			continue;
		rel = gpupath_topo_relation(rail->gpu, &t->dev[i]);
		if (rel < best)
			best = rel;
	}
	for (i = 0; i < t->ndevs; i++) {
		if (t->dev[i].kind != GPUPATH_TOPO_NVME ||
		    gpupath_topo_relation(rail->gpu, &t->dev[i]) != best)
			continue;
		if (rail->nnvme < GPUPATH_TOPO_NVME_MAX)
			rail->nvme[rail->nnvme++] = &t->dev[i];
		rail->nvme_rel = best;
	}
}

static int rails(struct gpupath_topo *t)
{
	size_t i;

	for (i = 0; i < t->ndevs; i++)
		if (t->dev[i].kind == GPUPATH_TOPO_GPU)
			t->nrails++;
	if (!t->nrails)
		return 0;
	t->rail = calloc(t->nrails, sizeof(*t->rail));
	if (!t->rail)
		return -ENOMEM;
	for (i = 0; i < t->nrails; i++) {
		/* GPUs sort first. */
		t->rail[i].gpu = &t->dev[i];
		rail_nic(t, &t->rail[i]);
		rail_nvme(t, &t->rail[i]);
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* By kind, then by address. */
static int cmp_dev(const void *a, const void *b)
{
	const struct gpupath_topo_dev *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->pci_dev, y->pci_dev);
}

static void sort(struct gpupath_topo *t)
{
	struct gpupath_topo_dev *d;
	size_t i;

	qsort(t->dev, t->ndevs, sizeof(*t->dev), cmp_dev);
	for (i = 0; i < t->ndevs; i++) {
		d = &t->dev[i];
		qsort(d->name, d->nnames, sizeof(d->name[0]), cmp_name);
		qsort(d->rdma, d->nrdma, sizeof(d->rdma[0]), cmp_name);
	}
}

static int scan(struct scan *s, const char *const *providers, size_t nproviders)
{
	int r;

	r = scan_pci(s, providers, nproviders);
	if (!r)
		r = scan_class(s, "net", net_dev);
	if (!r)
		r = scan_class(s, "infiniband", rdma_dev);
	if (!r)
		r = scan_class(s, "nvme", nvme_dev);
	return r;
}

int gpupath_topo_scan(const char *sysfs, const char *const *providers, size_t nproviders,
		      struct gpupath_topo **topo)
{
	struct scan s = { 0 };
	struct gpupath_topo *t;
	int r;

	if (!sysfs)
		sysfs = getenv("GPUPATH_SYSFS");
	if (!sysfs || !sysfs[0])
		sysfs = "/sys";
	if (!realpath(sysfs, s.root))
		return -errno;
	r = scan(&s, providers, nproviders);
	if (r < 0)
		goto err_free_devs;
	r = -ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto err_free_devs;
	t->dev = s.dev;
	t->ndevs = s.ndevs;
	sort(t);
	r = rails(t);
	if (r < 0) {
		gpupath_topo_free(t);
		return r;
	}
	*topo = t;
	return 0;

err_free_devs:
	free(s.dev);
	return r;
}

void gpupath_topo_free(struct gpupath_topo *topo)
{
	if (!topo)
		return;
	free(topo->rail);
	free(topo->dev);
	free(topo);
}

/* ---- host interfaces ------------------------------------------------------ */

bool gpupath_ifaddr_find(const char *iface, const char *addr, int family, char *iface_out,
			 size_t iface_size, char *addr_out, size_t addr_size)
{
	struct ifaddrs *ifa;
	bool found;

	if (getifaddrs(&ifa) < 0)
		return false;
	found = gpupath_ifaddr_find_in(ifa, iface, addr, family, iface_out, iface_size, addr_out,
				       addr_size);
	freeifaddrs(ifa);
	return found;
}

/* The address bytes of @sa, of family @fam (AF_INET or AF_INET6). */
static const unsigned char *inet_bytes(const struct sockaddr *sa, int fam)
{
	if (fam == AF_INET)
		return (const void *)&((const struct sockaddr_in *)sa)->sin_addr;
	return (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
}

/* The family of @i's address, AF_UNSPEC when it is neither IPv4 nor IPv6. */
static int inet_family(const struct ifaddrs *i)
{
	int fam = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;

	return fam == AF_INET || fam == AF_INET6 ? fam : AF_UNSPEC;
}

bool gpupath_ifaddr_find_in(const struct ifaddrs *ifa, const char *iface, const char *addr,
			    int family, char *iface_out, size_t iface_size, char *addr_out,
			    size_t addr_size)
{
	char buf[INET6_ADDRSTRLEN];
	const struct ifaddrs *i;
	bool found = false;
	int fam;

	for (i = ifa; i && !found; i = i->ifa_next) {
		fam = inet_family(i);
		if (fam == AF_UNSPEC || (family != AF_UNSPEC && fam != family) ||
		    (iface && strcmp(i->ifa_name, iface)) ||
		    !inet_ntop(fam, inet_bytes(i->ifa_addr, fam), buf, sizeof(buf)) ||
		    (addr && strcmp(buf, addr)))
			continue;
		found = true;
		if (iface_out)
			snprintf(iface_out, iface_size, "%s", i->ifa_name);
		if (addr_out)
			snprintf(addr_out, addr_size, "%s", buf);
	}
	return found;
}

/* Whether @want and @have are equal under @mask, over @len bytes. */
static bool masked_equal(const unsigned char *want, const unsigned char *have,
			 const unsigned char *mask, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		if ((want[k] ^ have[k]) & mask[k])
			return false;
	return true;
}

bool gpupath_ifaddr_subnet_in(const struct ifaddrs *ifa, const char *iface, const char *addr,
			      char *iface_out, size_t iface_size)
{
	unsigned char want[sizeof(struct in6_addr)];
	const struct ifaddrs *i;
	int fam = AF_INET;
	size_t len;

	if (inet_pton(fam, addr, want) != 1) {
		fam = AF_INET6;
		if (inet_pton(fam, addr, want) != 1)
			return false;
	}
	len = fam == AF_INET ? sizeof(struct in_addr) : sizeof(struct in6_addr);
	for (i = ifa; i; i = i->ifa_next) {
		if (inet_family(i) != fam || !i->ifa_netmask ||
		    (iface && strcmp(i->ifa_name, iface)) ||
		    !masked_equal(want, inet_bytes(i->ifa_addr, fam),
				  inet_bytes(i->ifa_netmask, fam), len))
			continue;
		if (iface_out)
			snprintf(iface_out, iface_size, "%s", i->ifa_name);
		return true;
	}
	return false;
}

bool gpupath_addr_field(const char *addr, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p;

	val[0] = 0;
	for (p = addr; p && *p; p += *p == ',') {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			snprintf(val, size, "%.*s", (int)strcspn(p, ","), p);
			return true;
		}
		p += strcspn(p, ",");
	}
	return false;
}
