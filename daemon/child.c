// SPDX-License-Identifier: GPL-2.0
/*
 * The child processes of the fabric (fabric-internal.h): a connect, or a
 * discovery controller's connect and log page reads, may wait on the
 * network for minutes, so each runs in a child forked for it. The child
 * writes its result into a pipe and wakes the daemon's loop through the
 * fabric's eventfd (fabric_fd()); its end brings SIGCHLD too. A later pass
 * reads the result and reaps the child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fabric-internal.h"
#include "log.h"

/*
 * In a child: nothing of the daemon's but @a and @b stays open.
 * A child holding the daemon's sockets (the metrics port, netlink, udev)
 * would keep a restarted daemon from binding the port, and would hear what
 * is not its own. The log is closed first (syslog opens its socket again
 * when the child logs; the journal's is not used again, the child writing
 * to stderr), so that no descriptor number it kept is reused.
 */
static void child_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	log_close();
	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0U, 0);
}

pid_t child_start(const struct fabric *f, int *fd)
{
	int fds[2], err;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/*
	 * The log's stream is held across fork(), so that no other thread
	 * (the ANA poller, Avahi's, libmicrohttpd's) holds it in the child,
	 * which has those threads no more.
	 */
	fflush(NULL);
	flockfile(stderr);
	pid = fork();
	if (!pid) {
		sigset_t none;

		funlockfile(stderr);
		child_fds(fds[1], f->wake);
		/* A stop signal stops it (the daemon blocks them for its loop's signalfd). */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		*fd = fds[1];
		return 0;
	}
	err = errno;
	funlockfile(stderr);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -err;
	}
	*fd = fds[0];
	return pid;
}

void child_end(const struct fabric *f, int fd, const void *res, size_t size)
{
	const char *p = res;
	ssize_t w;

	while (size) {
		w = write(fd, p, size);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		size -= w;
	}
	_exit(eventfd_write(f->wake, 1) ? 1 : 0);
}

bool read_whole(int fd, void *buf, size_t size)
{
	char *p = buf;
	ssize_t n;

	while (size) {
		n = read(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= n;
	}
	return true;
}

int fabric_fd(struct fabric *f)
{
	return f->wake;
}
