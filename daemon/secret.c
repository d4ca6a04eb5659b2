// SPDX-License-Identifier: GPL-2.0
/*
 * DH-HMAC-CHAP secrets from root-only files, checked before the kernel
 * sees them, so that a mistake is reported with its reason instead of a
 * refused connection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "secret.h"

static int why_fail(char *why, size_t size, int err, const char *msg)
{
	snprintf(why, size, "%s", msg);
	return -err;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Standard base64 (RFC 4648, padded) of @len characters into @out; its length or -1. */
static int b64_decode(const char *in, size_t len, uint8_t *out, size_t size)
{
	size_t i, n = 0, pad = 0;
	uint32_t acc = 0;
	int v, bits = 0;

	if (!len || len % 4)
		return -1;
	for (i = 0; i < len; i++) {
		if (in[i] == '=') {
			/* only at the end, at most two */
			if (i < len - 2 || (i == len - 2 && in[len - 1] != '='))
				return -1;
			pad++;
			continue;
		}
		v = b64_value(in[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == size)
				return -1;
			out[n++] = acc >> bits & 0xff;
		}
	}
	return pad > 2 ? -1 : (int)n;
}

int secret_check(const char *s, char *why, size_t size)
{
	static const unsigned int hash_len[] = { 0, 32, 48, 64 };
	static const char *const hash_name[] = { "none", "SHA-256", "SHA-384", "SHA-512" };
	uint8_t raw[64 + 4];
	const char *b64, *end;
	unsigned int hash;
	uint32_t crc;
	int n;

	if (strncmp(s, "DHHC-1:", 7))
		return why_fail(why, size, EINVAL,
				"not a DH-HMAC-CHAP secret: it does not start with DHHC-1:");
	if (!(s[7] >= '0' && s[7] <= '9' && s[8] >= '0' && s[8] <= '9') || s[9] != ':')
		return why_fail(why, size, EINVAL,
				"malformed DHHC-1 secret: no two-digit hash after DHHC-1:");
	hash = (unsigned int)(s[7] - '0') * 10 + (unsigned int)(s[8] - '0');
	if (hash > 3) {
		snprintf(why, size, "unknown hash %02u in the DHHC-1 secret (00 none, 01 SHA-256, "
			 "02 SHA-384, 03 SHA-512)", hash);
		return -EINVAL;
	}
	b64 = s + 10;
	end = strchr(b64, ':');
	if (!end || end[1])
		return why_fail(why, size, EINVAL,
				"malformed DHHC-1 secret: it must end with ':' after the key");
	n = b64_decode(b64, (size_t)(end - b64), raw, sizeof(raw));
	if (n < 0)
		return why_fail(why, size, EINVAL,
				"malformed DHHC-1 secret: the key is not base64 of 36, 52 or 68 bytes");
	n -= 4;
	if (n != 32 && n != 48 && n != 64) {
		snprintf(why, size, "malformed DHHC-1 secret: a %d-byte key (32, 48 or 64)",
			 n < 0 ? 0 : n);
		return -EINVAL;
	}
	if (hash && (unsigned int)n != hash_len[hash]) {
		snprintf(why, size, "malformed DHHC-1 secret: a %d-byte key with %s, which needs %u",
			 n, hash_name[hash], hash_len[hash]);
		return -EINVAL;
	}
	crc = (uint32_t)crc32(0L, raw, (uInt)n);
	if ((raw[n] | raw[n + 1] << 8 | raw[n + 2] << 16 | (uint32_t)raw[n + 3] << 24) != crc)
		return why_fail(why, size, EINVAL,
				"corrupt DHHC-1 secret: its CRC-32 does not match the key");
	memset(raw, 0, sizeof(raw));
	return 0;
}

int secret_read(const char *path, char *buf, char *why, size_t size)
{
	char self[32];
	struct stat st;
	ssize_t n;
	int fd, err;

	buf[0] = 0;
	/*
	 * The file is looked at before it is opened: opening a device (a
	 * hardware watchdog, a tape) acts on it. O_PATH names the inode
	 * without opening it; the same inode is then opened through
	 * /proc/self/fd, so no rename in between can swap it.
	 */
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		snprintf(why, size, "%s", err == ELOOP ? "a symbolic link (name the file itself)" :
			 strerror(err));
		return -err;
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return why_fail(why, size, err, strerror(err));
	}
	if (S_ISLNK(st.st_mode)) {
		close(fd);
		return why_fail(why, size, ELOOP, "a symbolic link (name the file itself)");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return why_fail(why, size, EINVAL, "not a regular file");
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	err = errno;
	close(fd);
	if (n < 0)
		return why_fail(why, size, err, strerror(err));
	fd = n;
	if (st.st_uid != 0) {
		close(fd);
		snprintf(why, size, "owned by uid %u, not root (chown root)", (unsigned)st.st_uid);
		return -EACCES;
	}
	if (st.st_mode & 077) {
		close(fd);
		snprintf(why, size, "group or others may access it (mode %04o; chmod 600)",
			 (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	n = read(fd, buf, SECRET_LEN);
	err = errno;
	close(fd);
	if (n < 0)
		return why_fail(why, size, err, strerror(err));
	if (n == SECRET_LEN) {
		secret_wipe(buf);
		return why_fail(why, size, EINVAL, "too long for a DHHC-1 secret");
	}
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
		     buf[n - 1] == '\t'))
		buf[--n] = 0;
	if (!n)
		return why_fail(why, size, EINVAL, "empty");
	err = secret_check(buf, why, size);
	if (err)
		secret_wipe(buf);
	return err;
}

int secret_sysfs_update(const char *dir, const char *attr, const char *key)
{
	char path[512], cur[SECRET_LEN + 2];
	ssize_t n;
	int fd, err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, cur, sizeof(cur) - 1);
	if (n < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	cur[n] = 0;
	cur[strcspn(cur, "\n")] = 0;
	if (!strcmp(cur, "none")) {
		close(fd);
		return -EINVAL;
	}
	err = !strcmp(cur, key) ? 0 : 1;
	explicit_bzero(cur, sizeof(cur));
	if (err && pwrite(fd, key, strlen(key), 0) < 0)
		err = -errno;
	close(fd);
	return err;
}

void secret_wipe(char *buf)
{
	explicit_bzero(buf, SECRET_LEN);
}
