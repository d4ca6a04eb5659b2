/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DH-HMAC-CHAP secrets (NVMe in-band authentication), read from the
 * root-only files a portal names. The secrets stay in gpupathd and the
 * kernel: never in netlink messages, logs or state files.
 */
#ifndef GPUPATHD_SECRET_H
#define GPUPATHD_SECRET_H

#include <stddef.h>

/* "DHHC-1:03:" + base64 of 64 bytes and a CRC + ":" */
#define SECRET_LEN	128

/*
 * Check @s, a secret in the DHHC-1 representation (TP 8006):
 * "DHHC-1:<hash>:<base64 of key and CRC-32>:", where <hash> is 00 (none),
 * 01 (SHA-256), 02 (SHA-384) or 03 (SHA-512) and the key 32, 48 or 64
 * bytes (the hash's length when there is one). Returns 0, or -EINVAL with
 * why in @why.
 */
int secret_check(const char *s, char *why, size_t size);

/*
 * Read the secret in file @path into @buf (SECRET_LEN bytes): a regular
 * file owned by root that neither group nor others may read or write,
 * holding one checked secret. Returns 0, or a negative errno with why in
 * @why (which never quotes the secret).
 */
int secret_read(const char *path, char *buf, char *why, size_t size);

/*
 * Make attribute @attr (dhchap_secret, dhchap_ctrl_secret) of controller
 * directory @dir hold @key: the kernel then authenticates the live
 * controller again with it. Returns 1 when it was written, 0 when it held
 * @key already, or a negative errno (-EINVAL: the controller was connected
 * without authentication, and takes a secret only when connected anew).
 */
int secret_sysfs_update(const char *dir, const char *attr, const char *key);

/* Wipe @buf, a secret. */
void secret_wipe(char *buf);

#endif /* GPUPATHD_SECRET_H */
