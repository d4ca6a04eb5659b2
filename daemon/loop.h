/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny single-threaded epoll event loop: file descriptors with a callback
 * each, run until stopped.
 */
#ifndef GPUPATHD_LOOP_H
#define GPUPATHD_LOOP_H

#include <stdint.h>

struct loop;

/*
 * Called when @fd is ready (@events: EPOLL* bits). A negative errno stops the
 * loop and is returned by loop_run(); the callback has logged it.
 */
typedef int (*loop_fn)(struct loop *l, int fd, uint32_t events, void *userdata);

int loop_new(struct loop **l);
/* Frees the loop; the registered file descriptors stay open (the caller's). */
void loop_free(struct loop *l);

/* Watch @fd for @events (EPOLLIN, ...). */
int loop_add(struct loop *l, int fd, uint32_t events, loop_fn fn, void *userdata);
/* Stop watching @fd; safe from inside any callback. */
int loop_remove(struct loop *l, int fd);

/*
 * Dispatch until loop_stop(). Returns the exit code given to loop_stop(), or
 * a negative errno (already logged) when waiting or a callback failed.
 */
int loop_run(struct loop *l);
void loop_stop(struct loop *l, int exit_code);

/* The loop's clock: CLOCK_MONOTONIC in milliseconds. */
uint64_t now_ms(void);

#endif /* GPUPATHD_LOOP_H */
