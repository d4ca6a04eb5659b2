// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd event loop.
 *
 * Each registered fd is a source, whose address is the epoll data. A source
 * removed while events are being dispatched is only marked dead and freed
 * after the batch, so that a later event of the same batch never points to
 * freed memory.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

#define LOOP_MAX_EVENTS	16

struct loop_source {
	struct loop_source *next;
	int fd;
	bool dead;
	loop_fn fn;
	void *userdata;
};

struct loop {
	int epfd;
	bool stopped;
	int exit_code;
	struct loop_source *sources;
};

int loop_new(struct loop **lp)
{
	struct loop *l;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return -errno;
	}
	*lp = l;
	return 0;
}

/* Free the sources marked dead, or all of them. */
static void reap(struct loop *l, bool all)
{
	struct loop_source **p = &l->sources;
	struct loop_source *s;

	while ((s = *p)) {
		if (all || s->dead) {
			*p = s->next;
			free(s);
		} else {
			p = &s->next;
		}
	}
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	reap(l, true);
	close(l->epfd);
	free(l);
}

int loop_add(struct loop *l, int fd, uint32_t events, loop_fn fn, void *userdata)
{
	struct epoll_event ev = { .events = events };
	struct loop_source *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->fn = fn;
	s->userdata = userdata;
	ev.data.ptr = s;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(s);
		return -errno;
	}
	s->next = l->sources;
	l->sources = s;
	return 0;
}

int loop_remove(struct loop *l, int fd)
{
	struct loop_source *s;

	for (s = l->sources; s; s = s->next) {
		if (s->dead || s->fd != fd)
			continue;
		s->dead = true;
		if (epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL) < 0)
			return -errno;
		return 0;
	}
	return -ENOENT;
}

static int dispatch(struct loop *l, const struct epoll_event *ev, int n)
{
	struct loop_source *s;
	int i, r;

	for (i = 0; i < n && !l->stopped; i++) {
		s = ev[i].data.ptr;
		if (s->dead)
			continue;
		r = s->fn(l, s->fd, ev[i].events, s->userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

int loop_run(struct loop *l)
{
	struct epoll_event ev[LOOP_MAX_EVENTS];
	int n, r;

	l->stopped = false;
	while (!l->stopped) {
		n = epoll_wait(l->epfd, ev, LOOP_MAX_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return log_errno(-errno, "epoll_wait failed");
		}
		r = dispatch(l, ev, n);
		reap(l, false);
		if (r < 0)
			return r;
	}
	return l->exit_code;
}

void loop_stop(struct loop *l, int exit_code)
{
	l->stopped = true;
	l->exit_code = exit_code;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
