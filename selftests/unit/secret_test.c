// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gpupathd's DH-HMAC-CHAP secret files: a good secret of
 * each hash is taken, every kind of mistake is refused with its reason,
 * and a file others may read is refused before its secret is looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "../../daemon/secret.h"

static const char *const good[] = {
	"DHHC-1:00:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:",
	"DHHC-1:01:AQgPFh0kKzI5QEdOVVxjanF4f4aNlJuiqbC3vsXM09pl1OOC:",
	"DHHC-1:02:AgkQFx4lLDM6QUhPVl1ka3J5gIeOlZyjqrG4v8bN1Nvi6fD3/gUMExohKC82PURLIrqU+w==:",
	"DHHC-1:03:AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dzj6vH4/wYNFBsiKTA3PkVMU1phaG92"
	"fYSLkpmgp661vPDs2cs=:",
};

static int check(const char *s, char *why)
{
	why[0] = 0;
	return secret_check(s, why, 256);
}

TEST(each_hash_with_its_key_length_is_taken)
{
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		EXPECT_EQ(0, check(good[i], why));
}

TEST(mistakes_are_refused_with_their_reason)
{
	static const struct {
		const char *s, *why;
	} bad[] = {
		{ "DHHC-2:00:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:", "DHHC-1:" },
		{ "DHHC-1:0:AAcO:", "two-digit hash" },
		{ "DHHC-1:05:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:", "unknown hash 05" },
		{ "DHHC-1:00:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo", "end with ':'" },
		{ "DHHC-1:00:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUP*:", "base64" },
		{ "DHHC-1:00:AAcOFRwj:", "a 2-byte key" },
		/* a 32-byte key named SHA-512 */
		{ "DHHC-1:03:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:", "needs 64" },
		/* one bit of the key flipped */
		{ "DHHC-1:00:AQcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:", "CRC-32" },
	};
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		EXPECT_EQ(-EINVAL, check(bad[i].s, why));
		if (!strstr(why, bad[i].why))
			printf("# case %zu: '%s' does not say '%s'\n", i, why, bad[i].why);
		EXPECT_TRUE(strstr(why, bad[i].why));
	}
}

/* A file holding @s with @mode; its path in @path. */
static void put_file(char *path, const char *s, mode_t mode)
{
	int fd;

	strcpy(path, "/tmp/gpupath-secret-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s) || fchmod(fd, mode))
		abort();
	close(fd);
}

TEST(a_root_only_file_is_read_and_its_newline_dropped)
{
	char path[64], buf[SECRET_LEN], why[256], line[160];

	snprintf(line, sizeof(line), "%s\n", good[1]);
	put_file(path, line, 0600);
	if (geteuid() == 0) {
		EXPECT_EQ(0, secret_read(path, buf, why, sizeof(why)));
		EXPECT_STREQ(good[1], buf);
	} else {
		/* not root: the owner is not root either */
		EXPECT_EQ(-EACCES, secret_read(path, buf, why, sizeof(why)));
		EXPECT_TRUE(strstr(why, "not root"));
	}
	unlink(path);
}

TEST(a_file_others_may_read_is_refused)
{
	char path[64], buf[SECRET_LEN], why[256];

	put_file(path, good[0], 0644);
	EXPECT_EQ(-EACCES, secret_read(path, buf, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, geteuid() == 0 ? "mode 0644" : "not root"));
	/* nothing of the secret was kept */
	EXPECT_EQ(0, buf[0]);
	unlink(path);
}

TEST(missing_empty_and_malformed_files_are_refused)
{
	char path[64], buf[SECRET_LEN], why[256];

	EXPECT_EQ(-ENOENT, secret_read("/nonexistent/gpupath/secret", buf, why, sizeof(why)));
	if (geteuid() != 0)
		return;
	put_file(path, "\n", 0600);
	EXPECT_EQ(-EINVAL, secret_read(path, buf, why, sizeof(why)));
	EXPECT_STREQ("empty", why);
	unlink(path);
	put_file(path, "DHHC-1:07:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk/PUPo:", 0400);
	EXPECT_EQ(-EINVAL, secret_read(path, buf, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "unknown hash 07"));
	EXPECT_EQ(0, buf[0]);
	unlink(path);
	EXPECT_EQ(-EINVAL, secret_read("/tmp", buf, why, sizeof(why)));
	EXPECT_STREQ("not a regular file", why);
}

/*
 * A path that names a device or a FIFO is refused without being opened:
 * opening one can act on it (a hardware watchdog is armed by its open).
 */
TEST(a_file_that_is_no_regular_one_is_not_opened)
{
	char dir[] = "/tmp/gpupath-secret-XXXXXX", path[64], ev[256], buf[SECRET_LEN], why[256];
	const struct inotify_event *e;
	bool opened = false;
	ssize_t n;
	int in;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_EQ(0, mkfifo(path, 0600));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_TRUE(in >= 0);
	ASSERT_TRUE(inotify_add_watch(in, path, IN_OPEN) >= 0);
	EXPECT_EQ(-EINVAL, secret_read(path, buf, why, sizeof(why)));
	EXPECT_STREQ("not a regular file", why);
	while ((n = read(in, ev, sizeof(ev))) > 0)
		for (e = (const void *)ev; (const char *)e < ev + n;
		     e = (const void *)((const char *)e + sizeof(*e) + e->len))
			opened |= e->mask & IN_OPEN;
	EXPECT_FALSE(opened);
	close(in);
	unlink(path);
	rmdir(dir);
}

TEST_HARNESS_MAIN
