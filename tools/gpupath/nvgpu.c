// SPDX-License-Identifier: GPL-2.0
/*
 * An NVIDIA GPU's P2PDMA state, as `gpupath topology` and `gpupath
 * diagnose` report it: whether its BAR has a P2PDMA region (NVIDIA's UVM
 * registers one over BAR1 when the driver maps BAR1 statically and not
 * write-combined), the driver's registry settings for that, and whether
 * gpupath may register its own region (its nvidia_bar_region parameter).
 *
 * Read from sysfs ($GPUPATH_SYSFS, or /sys) and procfs ($GPUPATH_PROCFS, or
 * /proc), so that the tests can give a tree of their own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

#define NVIDIA_VENDOR	0x10de

static const char *root(const char *env, const char *dflt)
{
	const char *r = getenv(env);

	return r && r[0] ? r : dflt;
}

/* Whether the registry string @dwords sets @key to a non-zero value. */
static bool regkey_set(const char *dwords, const char *key)
{
	size_t len = strlen(key);
	const char *p = dwords;

	while (p && *p) {
		p += strspn(p, "; \t\"");
		if (!strncasecmp(p, key, len) && p[len] == '=')
			return strtoul(p + len + 1, NULL, 0) != 0;
		p = strchr(p, ';');
	}
	return false;
}

/* The RegistryDwords line of the NVIDIA driver's /proc/driver/nvidia/params. */
static void read_params(struct nv_gpu *g)
{
	char path[512], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/driver/nvidia/params", root("GPUPATH_PROCFS", "/proc"));
	f = fopen(path, "re");
	if (!f)
		return;
	g->params_read = true;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "RegistryDwords:", 15))
			continue;
		g->static_bar1 = regkey_set(line + 15, "RMForceStaticBar1");
		g->wc_disabled = regkey_set(line + 15, "RmForceDisableIomapWC");
	}
	fclose(f);
}

int nv_gpu_read(const struct gpupath_topo_dev *d, struct nv_gpu *g)
{
	const char *sys = root("GPUPATH_SYSFS", "/sys");
	char path[512], buf[256];
	const char *name;
	ssize_t n;

	memset(g, 0, sizeof(*g));
	if (d->kind != GPUPATH_TOPO_GPU || d->vendor != NVIDIA_VENDOR)
		return 0;
	g->nvidia = true;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/driver", sys, d->pci_dev);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		name = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
		snprintf(g->driver, sizeof(g->driver), "%.*s", (int)sizeof(g->driver) - 1, name);
	}
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/p2pmem", sys, d->pci_dev);
	g->region = !access(path, F_OK);
	snprintf(path, sizeof(path), "%s/module/gpupath/parameters", sys);
	g->own_allowed = !gpupath_sysfs_read(path, "nvidia_bar_region", buf, sizeof(buf)) &&
			 (buf[0] == 'Y' || buf[0] == '1');
	read_params(g);
	return 1;
}

const char nv_gpu_region_fix[] =
	"load nvidia with NVreg_RegistryDwords=\"RMForceStaticBar1=1;RmForceDisableIomapWC=1\" "
	"(its UVM then registers BAR1 for P2PDMA), or, knowing the cost (install.md), set "
	"gpupath's nvidia_bar_region module parameter";

const char *nv_gpu_fix(const struct nv_gpu *g)
{
	if (!g->nvidia || g->region)
		return NULL;
	if (g->own_allowed)
		return "no P2PDMA region over its BAR yet: gpupath registers its own at the first "
		       "CUDA registration by root (nvidia_bar_region is set)";
	if (g->static_bar1 && g->wc_disabled)
		return "no P2PDMA region over its BAR now, though the driver's registry asks for "
		       "static BAR1 without write-combining: UVM of 565 to 590 registers it only "
		       "while a CUDA process uses the GPU; else check that nvidia-uvm is loaded "
		       "(565 or later) and that the kernel has CONFIG_PCI_P2PDMA";
	return nv_gpu_region_fix;
}

void nv_gpu_json(struct json *j, const struct nv_gpu *g)
{
	const char *fix = nv_gpu_fix(g);

	json_obj_open(j, "nvidia");
	if (g->driver[0])
		json_str(j, "driver", g->driver);
	else
		json_null(j, "driver");
	json_bool(j, "p2pdma_region", g->region);
	if (g->params_read) {
		json_bool(j, "static_bar1", g->static_bar1);
		json_bool(j, "iomap_wc_disabled", g->wc_disabled);
	} else {
		json_null(j, "static_bar1");
		json_null(j, "iomap_wc_disabled");
	}
	json_bool(j, "gpupath_region_allowed", g->own_allowed);
	if (fix)
		json_str(j, "fix", fix);
	else
		json_null(j, "fix");
	json_obj_close(j);
}
