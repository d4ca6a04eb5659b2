// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath topology: the PCIe tree of the GPUs (and gpupath's providers),
 * NICs and NVMe functions, and the rails it gives: each GPU with its
 * closest NIC and NVMe.
 *
 *   gpupath topology [-j]
 *
 * Read from sysfs ($GPUPATH_SYSFS, or /sys); works without the module,
 * which only adds its providers' devices as GPUs. Devices are named as lspci
 * names them, from pci.ids through libpci, with their IDs beside.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <pci/pci.h>

#include "cli.h"
#include "internal.h"

struct topo_providers {
	struct gpupath_provider *list;
	size_t n;
	const char **pci_dev;		/* list[i].pci_dev, for the scan */
	bool listed;			/* the module was asked */
	struct pci_access *pci;		/* libpci, for names; NULL: none */
};

/* libpci's warnings (no pci.ids, say) leave the IDs alone, unnamed. */
static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static struct pci_access *pci_names_open(void)
{
	struct pci_access *pci = pci_alloc();

	if (pci) {
		pci->warning = pci_quiet;
		pci->debug = pci_quiet;
	}
	return pci;
}

/* "NVIDIA Corporation GH100 [H100 SXM5 80GB]", or NULL when pci.ids has none. */
static const char *pci_name(const struct topo_providers *p, const struct gpupath_topo_dev *d,
			    char *buf, size_t size)
{
	if (!p->pci)
		return NULL;
	return pci_lookup_name(p->pci, buf, size,
			       PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
			       d->vendor, d->device);
}

/*
 * The module's providers, if it is loaded; without it there are none, and
 * a failure to list them is reported without failing the command.
 */
static void get_providers(struct cli *cli, struct topo_providers *p)
{
	size_t i;
	int r;

	r = gpupath_ctl_open(&cli->ctl);
	if (r == -ENOENT)
		return;
	if (r < 0) {
		fprintf(stderr, "gpupath: topology: providers not listed: generic netlink: %s\n",
			strerror(-r));
		return;
	}
	r = gpupath_ctl_provider_list(cli->ctl, &p->list, sizeof(*p->list), &p->n);
	if (r >= 0) {
		p->pci_dev = calloc(p->n ? p->n : 1, sizeof(*p->pci_dev));
		r = p->pci_dev ? 0 : -ENOMEM;
	}
	if (r < 0) {
		cli_err(cli, r, "topology: providers not listed", gpupath_ctl_errmsg(cli->ctl));
		free(p->list);
		p->list = NULL;
		p->n = 0;
		return;
	}
	for (i = 0; i < p->n; i++)
		p->pci_dev[i] = p->list[i].pci_dev;
	p->listed = true;
}

/* The id of the provider on @pci_dev, 0 if none. */
static uint32_t provider_id(const struct topo_providers *p, const char *pci_dev)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcasecmp(p->list[i].pci_dev, pci_dev))
			return p->list[i].id;
	return 0;
}

static const char *kind_label(uint32_t kind)
{
	switch (kind) {
	case GPUPATH_TOPO_GPU:
		return "GPU";
	case GPUPATH_TOPO_NIC:
		return "NIC";
	default:
		return "NVMe";
	}
}

/* "eth0, rdma mlx5_0", "nvme0", "provider 1"; "" when there is nothing. */
static const char *dev_names(const struct topo_providers *p, const struct gpupath_topo_dev *d,
			     char *buf, size_t size)
{
	const char *sep = "";
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	if (d->provider && provider_id(p, d->pci_dev)) {
		len += snprintf(buf, size, "provider %u", provider_id(p, d->pci_dev));
		sep = ", ";
	}
	for (i = 0; i < d->nnames && len < size; i++, sep = ", ")
		len += snprintf(buf + len, size - len, "%s%s", sep, d->name[i]);
	for (i = 0; i < d->nrdma && len < size; i++, sep = ", ")
		len += snprintf(buf + len, size - len, "%srdma %s", sep, d->rdma[i]);
	return buf;
}

/* ---- text ------------------------------------------------------------------ */

/* Tree order: host bridge, bridges from the root port down, address. */
static int cmp_tree(const void *a, const void *b)
{
	const struct gpupath_topo_dev *x = *(const struct gpupath_topo_dev *const *)a;
	const struct gpupath_topo_dev *y = *(const struct gpupath_topo_dev *const *)b;
	unsigned int i;
	int c;

	c = strcmp(x->host_bridge, y->host_bridge);
	for (i = 0; !c && i < x->nbridges && i < y->nbridges; i++)
		c = strcmp(x->bridge[i], y->bridge[i]);
	if (c)
		return c;
	return strcmp(i < x->nbridges ? x->bridge[i] : x->pci_dev,
		      i < y->nbridges ? y->bridge[i] : y->pci_dev);
}

/* Bridge @level below the host bridge: the root port, then switch ports. */
static const char *bridge_label(unsigned int level)
{
	if (!level)
		return "root port";
	return level % 2 ? "switch" : "downstream port";
}

/* An NVIDIA GPU's P2PDMA region, under its line. */
static void print_nvidia_text(const struct gpupath_topo_dev *d)
{
	int indent = 2 * (d->nbridges + 2);
	const char *fix;
	struct nv_gpu g;

	if (!nv_gpu_read(d, &g))
		return;
	printf("%*sdriver %s, P2PDMA region over its BAR: %s\n", indent, "",
	       g.driver[0] ? g.driver : "none", g.region ? "yes" : "no");
	fix = nv_gpu_fix(&g);
	if (fix)
		printf("%*s%s\n", indent, "", fix);
}

/* The bridges of @d not printed for @prev, then @d. */
static void print_tree_dev(const struct topo_providers *p, const struct gpupath_topo_dev *prev,
			   const struct gpupath_topo_dev *d)
{
	char names[256], numa[32] = "", buf[256], domain[32];
	const char *model, *iommu;
	unsigned int i = 0;

	if (!prev || strcmp(prev->host_bridge, d->host_bridge))
		printf("host bridge %s\n", d->host_bridge[0] ? d->host_bridge : "unknown");
	else
		while (i < prev->nbridges && i < d->nbridges && !strcmp(prev->bridge[i], d->bridge[i]))
			i++;
	for (; i < d->nbridges; i++)
		printf("%*s%s %s\n", 2 * (i + 1), "", bridge_label(i), d->bridge[i]);
	if (d->numa_node >= 0)
		snprintf(numa, sizeof(numa), ", numa node %d", d->numa_node);
	dev_names(p, d, names, sizeof(names));
	model = pci_name(p, d, buf, sizeof(buf));
	iommu = cli_iommu(d->pci_dev, domain, sizeof(domain));
	printf("%*s%s %s %s%s[%04x:%04x]%s%s%s%s%s\n", 2 * (d->nbridges + 1), "",
	       kind_label(d->kind), d->pci_dev, model ? model : "", model ? " " : "", d->vendor,
	       d->device, numa, strcmp(iommu, "off") ? ", iommu " : "",
	       strcmp(iommu, "off") ? iommu : "", names[0] ? ": " : "", names);
	print_nvidia_text(d);
}

static int print_tree(const struct topo_providers *p, const struct gpupath_topo *t)
{
	const struct gpupath_topo_dev **order;
	size_t i;

	order = calloc(t->ndevs ? t->ndevs : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < t->ndevs; i++)
		order[i] = &t->dev[i];
	qsort(order, t->ndevs, sizeof(*order), cmp_tree);
	for (i = 0; i < t->ndevs; i++)
		print_tree_dev(p, i ? order[i - 1] : NULL, order[i]);
	free(order);
	return 0;
}

static void print_rail_text(const struct topo_providers *p, size_t n,
			    const struct gpupath_topo_rail *rail)
{
	char names[256];
	unsigned int i;

	printf("rail %zu: GPU %s <-> ", n, rail->gpu->pci_dev);
	if (rail->nic)
		printf("NIC %s (%s) via %s\n", rail->nic->pci_dev,
		       dev_names(p, rail->nic, names, sizeof(names)),
		       gpupath_topo_rel_name(rail->nic_rel));
	else
		printf("no NIC\n");
	for (i = 0; i < rail->nnvme; i++)
		printf("  NVMe %s (%s) via %s\n", rail->nvme[i]->pci_dev,
		       dev_names(p, rail->nvme[i], names, sizeof(names)),
		       gpupath_topo_rel_name(rail->nvme_rel));
	if (!rail->nnvme)
		printf("  no NVMe\n");
}

static int print_text(const struct topo_providers *p, const struct gpupath_topo *t)
{
	size_t i;

	if (print_tree(p, t) < 0)
		return -ENOMEM;
	if (!t->nrails) {
		printf("no GPU found: no display or 3D controller from NVIDIA, AMD or Intel, %s\n",
		       p->listed ? "and no gpupath provider" : "and the gpupath module is not loaded");
		return 0;
	}
	printf("rails:\n");
	for (i = 0; i < t->nrails; i++)
		print_rail_text(p, i, &t->rail[i]);
	return 0;
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_names(struct json *j, const char *key, const char (*names)[GPUPATH_NAME_LEN],
		       unsigned int n)
{
	unsigned int i;

	json_arr_open(j, key);
	for (i = 0; i < n; i++)
		json_str(j, NULL, names[i]);
	json_arr_close(j);
}

static void json_hex(struct json *j, const char *key, const char *fmt, uint32_t v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), fmt, v);
	json_str(j, key, buf);
}

/* A member @key naming a bridge, or null. */
static void json_bridge(struct json *j, const char *key, const struct gpupath_topo_dev *d,
			unsigned int level, bool present)
{
	if (present)
		json_str(j, key, d->bridge[level]);
	else
		json_null(j, key);
}

static void print_dev_json(struct json *j, const struct topo_providers *p,
			   const struct gpupath_topo_dev *d)
{
	uint32_t id = d->provider ? provider_id(p, d->pci_dev) : 0;
	const char *model;
	struct nv_gpu g;
	unsigned int i;
	char buf[256], domain[32];

	json_obj_open(j, NULL);
	json_str(j, "kind", gpupath_topo_kind_name(d->kind));
	json_str(j, "pci_dev", d->pci_dev);
	json_hex(j, "vendor", "0x%04x", d->vendor);
	json_hex(j, "device", "0x%04x", d->device);
	json_hex(j, "class", "0x%06x", d->pci_class);
	model = pci_name(p, d, buf, sizeof(buf));
	if (model)
		json_str(j, "name", model);
	else
		json_null(j, "name");
	if (d->numa_node >= 0)
		json_u64(j, "numa_node", d->numa_node);
	else
		json_null(j, "numa_node");
	json_str(j, "iommu", cli_iommu(d->pci_dev, domain, sizeof(domain)));
	if (d->host_bridge[0])
		json_str(j, "host_bridge", d->host_bridge);
	else
		json_null(j, "host_bridge");
	json_bridge(j, "root_port", d, 0, d->nbridges > 0);
	/* The switch: the upstream port above the function's downstream port. */
	json_bridge(j, "switch", d, d->nbridges >= 3 ? d->nbridges - 2 : 0, d->nbridges >= 3);
	json_arr_open(j, "bridges");
	for (i = 0; i < d->nbridges; i++)
		json_str(j, NULL, d->bridge[i]);
	json_arr_close(j);
	if (id)
		json_u64(j, "provider", id);
	else
		json_null(j, "provider");
	json_names(j, d->kind == GPUPATH_TOPO_NVME ? "controllers" : "netdevs", d->name,
		   d->nnames);
	json_names(j, "rdma", d->rdma, d->nrdma);
	if (nv_gpu_read(d, &g))
		nv_gpu_json(j, &g);
	json_obj_close(j);
}

static void print_rail_json(struct json *j, size_t n, const struct gpupath_topo_rail *rail)
{
	unsigned int i;

	json_obj_open(j, NULL);
	json_u64(j, "rail", n);
	json_str(j, "gpu", rail->gpu->pci_dev);
	if (rail->nic) {
		json_str(j, "nic", rail->nic->pci_dev);
		json_names(j, "netdevs", rail->nic->name, rail->nic->nnames);
		json_names(j, "rdma", rail->nic->rdma, rail->nic->nrdma);
		json_str(j, "nic_relation", gpupath_topo_rel_name(rail->nic_rel));
	} else {
		json_null(j, "nic");
		json_null(j, "nic_relation");
	}
	json_arr_open(j, "nvme");
	for (i = 0; i < rail->nnvme; i++) {
		json_obj_open(j, NULL);
		json_str(j, "pci_dev", rail->nvme[i]->pci_dev);
		json_names(j, "controllers", rail->nvme[i]->name, rail->nvme[i]->nnames);
		json_obj_close(j);
	}
	json_arr_close(j);
	if (rail->nnvme)
		json_str(j, "nvme_relation", gpupath_topo_rel_name(rail->nvme_rel));
	else
		json_null(j, "nvme_relation");
	json_obj_close(j);
}

static void print_json(struct json *j, const struct topo_providers *p,
		       const struct gpupath_topo *t)
{
	size_t i;

	json_bool(j, "providers_listed", p->listed);
	json_arr_open(j, "devices");
	for (i = 0; i < t->ndevs; i++)
		print_dev_json(j, p, &t->dev[i]);
	json_arr_close(j);
	json_arr_open(j, "rails");
	for (i = 0; i < t->nrails; i++)
		print_rail_json(j, i, &t->rail[i]);
	json_arr_close(j);
}

int cmd_topology(struct cli *cli, int argc, char **argv)
{
	const char *sysfs = getenv("GPUPATH_SYSFS");
	struct topo_providers p = { 0 };
	struct gpupath_topo *t;
	int r;

	if (cli_parse_common(cli, argc, argv, "gpupath topology [-j]") != argc)
		return 2;
	if (!sysfs || !sysfs[0])
		sysfs = "/sys";
	get_providers(cli, &p);
	p.pci = pci_names_open();
	r = gpupath_topo_scan(sysfs, p.pci_dev, p.n, &t);
	if (r < 0) {
		fprintf(stderr, "gpupath: topology: cannot read the PCI devices in %s/bus/pci/devices: %s\n",
			sysfs, strerror(-r));
		r = 1;
		goto out_free;
	}
	cli_output_begin(cli);
	if (cli->json)
		print_json(&cli->j, &p, t);
	else if (print_text(&p, t) < 0)
		r = cli_err(cli, -ENOMEM, "topology", NULL);
	r = cli_output_end(cli, r);
	gpupath_topo_free(t);
out_free:
	if (p.pci)
		pci_cleanup(p.pci);
	free(p.pci_dev);
	free(p.list);
	return r;
}

/*
 * What the IOMMU does with the DMA of PCI function @bdf: the kernel's
 * default domain type of its IOMMU group (in @domain, "" when it has no
 * group), and what that means, as one of the names below.
 */
const char *cli_iommu(const char *bdf, char *domain, size_t size)
{
	static const struct {
		const char *type, *mode;
	} modes[] = {
		{ "DMA", "translated" }, { "DMA-FQ", "translated" },
		{ "identity", "passthrough" }, { "blocked", "blocked" },
		{ "unmanaged", "unmanaged" },
	};
	const char *sys = getenv("GPUPATH_SYSFS");
	char path[PATH_MAX];
	size_t i;

	domain[0] = 0;
	if (!bdf || !bdf[0])
		return "unknown";
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", sys ? sys : "/sys", bdf);
	if (access(path, F_OK))
		return errno == ENOENT ? "off" : "unknown";
	if (gpupath_sysfs_read(path, "type", domain, size))
		domain[0] = 0;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(domain, modes[i].type))
			return modes[i].mode;
	return "unknown";
}

const char *cli_iommu_text(const char *mode)
{
	if (!strcmp(mode, "off"))
		return "no IOMMU: the device's DMA addresses reach memory as they are";
	if (!strcmp(mode, "passthrough"))
		return "DMA addresses are not translated";
	if (!strcmp(mode, "translated"))
		return "every DMA address goes through the IOMMU: P2P through the host bridge is "
		       "mapped for each I/O, P2P by bus address must stay inside a PCIe switch";
	if (!strcmp(mode, "blocked"))
		return "the IOMMU blocks the device's DMA";
	if (!strcmp(mode, "unmanaged"))
		return "a driver such as VFIO owns the device's IOMMU domain";
	return "the kernel does not say";
}
