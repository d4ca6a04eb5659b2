/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgpupath: the user library of gpupath.
 *
 * Two halves, both with opaque handles and functions that return 0 or a
 * negative errno:
 *   gpupath_dev_*  the data device /dev/gpupath (ioctls);
 *   gpupath_ctl_*  the control plane, the "gpupath" generic-netlink family,
 *                  decoded into the plain structures below.
 */
#ifndef LIBGPUPATH_H
#define LIBGPUPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/gpupath.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUPATH_DEV_PATH	"/dev/" GPUPATH_DEVICE_NAME

/* Version of these tools and this library. */
const char *gpupath_tools_version(void);

/* ---- data device ---------------------------------------------------- */

struct gpupath_dev;

int gpupath_dev_open(struct gpupath_dev **dev);
void gpupath_dev_close(struct gpupath_dev *dev);
int gpupath_dev_fd(const struct gpupath_dev *dev);
int gpupath_dev_version(struct gpupath_dev *dev, struct gpupath_version *ver);

/* ---- names ----------------------------------------------------------- */

/* Short name of one GPUPATH_FEATURE_* bit ("p2pdma-usable"), NULL if unknown. */
const char *gpupath_feature_name(uint64_t bit);
/*
 * Space-separated names of the bits set in @features ("bitN" for bits these
 * tools do not know), or "none"; truncated to fit @size.
 */
void gpupath_features_format(uint64_t features, char *buf, size_t size);
/* Short name of a P2PDMA status ("ok", "not-built"), "unknown" otherwise. */
const char *gpupath_p2pdma_status_name(uint32_t status);
/* One sentence explaining a P2PDMA status to a user. */
const char *gpupath_p2pdma_status_text(uint32_t status);
/* Name of a GPUPATH_CMD_* ("get-info"), NULL if unknown. */
const char *gpupath_cmd_name(uint32_t cmd);

/* ---- control plane model ----------------------------------------------- */

/* Which members of struct gpupath_info the kernel sent. */
enum gpupath_info_has {
	GPUPATH_INFO_HAS_VERSION	= 1u << 0,
	GPUPATH_INFO_HAS_GENL_VERSION	= 1u << 1,
	GPUPATH_INFO_HAS_FEATURES	= 1u << 2,
	GPUPATH_INFO_HAS_P2PDMA_STATUS	= 1u << 3,
	GPUPATH_INFO_HAS_KERNEL		= 1u << 4,
	GPUPATH_INFO_HAS_IOCTL_VERSION	= 1u << 5,
};

struct gpupath_info {
	uint32_t has;			/* GPUPATH_INFO_HAS_* */
	char version[32];
	uint32_t genl_version;
	uint64_t features;		/* GPUPATH_FEATURE_* */
	uint32_t p2pdma_status;		/* enum gpupath_p2pdma_status */
	char kernel[65];
	uint32_t ioctl_version;
};

/* ---- control plane ----------------------------------------------------- */

struct gpupath_ctl;

/*
 * Open a request socket and resolve the family. -ENOENT: the module is not
 * loaded (the family does not exist).
 */
int gpupath_ctl_open(struct gpupath_ctl **ctl);
void gpupath_ctl_close(struct gpupath_ctl *ctl);

/*
 * The kernel's extended-ACK message of the last failed request on @ctl, or
 * NULL when it sent none.
 */
const char *gpupath_ctl_errmsg(const struct gpupath_ctl *ctl);

int gpupath_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info);

/* ---- notifications ----------------------------------------------------- */

enum gpupath_event_type {
	GPUPATH_EVENT_FAMILY_NEW,	/* the module was loaded */
	GPUPATH_EVENT_FAMILY_DEL,	/* the module was unloaded */
	GPUPATH_EVENT_NOTIFY,		/* a message on "config" or "events" */
};

struct gpupath_event {
	enum gpupath_event_type type;
	const char *group;		/* NOTIFY: GPUPATH_MCGRP_* name */
	uint8_t cmd;			/* NOTIFY: GPUPATH_CMD_* */
	bool has_info;			/* NOTIFY: carried GPUPATH_A_INFO */
	struct gpupath_info info;
};

struct gpupath_mon;

typedef void (*gpupath_event_fn)(const struct gpupath_event *ev, void *arg);

/*
 * Subscribe to the family's multicast groups and to the generic-netlink
 * controller's notifications, so that a module loaded later (or reloaded) is
 * followed too. Works whether or not the module is loaded now; *loaded says
 * which.
 */
int gpupath_mon_open(struct gpupath_mon **mon, bool *loaded);
void gpupath_mon_close(struct gpupath_mon *mon);
/* A file descriptor to poll for input. */
int gpupath_mon_fd(const struct gpupath_mon *mon);
/*
 * Read what is pending without blocking and call @fn for each event.
 * Returns the number of events, or a negative errno; -ENOBUFS means
 * notifications were lost and the caller should read the state again.
 */
int gpupath_mon_dispatch(struct gpupath_mon *mon, gpupath_event_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* LIBGPUPATH_H */
