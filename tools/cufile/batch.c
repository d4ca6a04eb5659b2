// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the batch API (private.h says what is where).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "private.h"

/* ---- batches ---------------------------------------------------------- */

static struct batch *batch_find_locked(CUfileBatchHandle_t h)
{
	return link_find(drv.batches, h);
}

static CUfileError_t batch_setup(CUfileBatchHandle_t *bp, unsigned nr)
{
	struct batch *b;
	unsigned int i;

	if (!bp || !nr || nr > drv.batch_size)
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	b = calloc(1, sizeof(*b));
	if (b)
		b->slots = calloc(nr, sizeof(*b->slots));
	if (!b || !b->slots) {
		free(b);
		return status(CU_FILE_NOMEM_ERROR);
	}
	b->max = nr;
	for (i = 0; i < nr; i++)
		b->slots[i].b = b;
	pthread_mutex_lock(&drv.lock);
	link_add(&drv.batches, &b->link);
	pthread_mutex_unlock(&drv.lock);
	*bp = b;
	return status(CU_FILE_SUCCESS);
}

static void slot_done(struct slot *s, ssize_t ret)
{
	stats_io(s->p.opcode == CUFILE_WRITE, true, ret, s->len, s->t0);
	s->inflight = false;
	if (s->fh)
		fh_put_locked(s->fh);
	s->fh = NULL;
	if (s->canceled) {
		s->status = CUFILE_CANCELED;
		s->ret = 0;
	} else {
		s->status = ret < 0 ? CUFILE_FAILED : CUFILE_COMPLETE;
		s->ret = ret;
	}
}

/* A synchronous I/O for a slot (compat, or what the module did not take). */
static ssize_t slot_run(struct slot *s)
{
	return run_io(s->fh, &s->t, s->len, s->p.u.batch.file_offset, s->p.opcode == CUFILE_WRITE);
}

/*
 * Entries the module does not run asynchronously (compat, CUDA memory, a
 * buffer of another descriptor) run on the library's workers, so that
 * cuFileBatchIOSubmit returns at once, as NVIDIA's does; so does the I/O
 * of the stream API (stream.c). WORKERS threads, started as jobs come and
 * kept for the process's life.
 */
#define WORKERS 4

static void reap(int ms);

static void *worker(void *unused)
{
	struct job *j;

	(void)unused;
	pthread_mutex_lock(&drv.lock);
	for (;;) {
		while (!drv.queue)
			pthread_cond_wait(&drv.done, &drv.lock);
		j = drv.queue;
		drv.queue = j->next;
		if (!drv.queue)
			drv.queue_tail = &drv.queue;
		drv.worker_busy++;
		pthread_mutex_unlock(&drv.lock);
		j->run(j);
		pthread_mutex_lock(&drv.lock);
		j->done(j);
		drv.worker_busy--;
		pthread_cond_broadcast(&drv.done);
	}
	return NULL;
}

bool worker_queue(struct job *j)
{
	pthread_attr_t attr;
	pthread_t t;

	if (drv.workers < WORKERS && drv.workers <= drv.worker_busy + (drv.queue != NULL)) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (!pthread_create(&t, &attr, worker, NULL))
			drv.workers++;
		pthread_attr_destroy(&attr);
	}
	if (!drv.workers)
		return false;
	j->next = NULL;
	*drv.queue_tail = j;
	drv.queue_tail = &j->next;
	pthread_cond_broadcast(&drv.done);
	return true;
}

/*
 * A child of fork() has one thread: the workers are its parent's, and so
 * is what they were given. NVIDIA leaves cuFile undefined in a child;
 * here its locks are free, it starts workers of its own, and the batch
 * entries in flight at the fork are reported failed (-EIO) instead of
 * waited for for ever.
 */
static void fork_child(void)
{
	struct batch *b;
	struct link *l;
	unsigned int i;

	pthread_mutex_init(&drv.lock, NULL);
	pthread_mutex_init(&drv.reap_lock, NULL);
	pthread_cond_init(&drv.done, NULL);
	drv.queue = NULL;
	drv.queue_tail = &drv.queue;
	drv.workers = 0;
	drv.worker_busy = 0;
	for (l = drv.batches; l; l = l->next) {
		b = (struct batch *)l;
		for (i = 0; i < b->max; i++) {
			if (!b->slots[i].inflight)
				continue;
			b->slots[i].inflight = false;
			b->slots[i].status = CUFILE_FAILED;
			b->slots[i].ret = -EIO;
		}
	}
}

__attribute__((constructor)) static void fork_setup(void)
{
	pthread_atfork(NULL, NULL, fork_child);
}

/* A batch entry on a worker: a canceled entry that has not started does not. */
static void slot_work(struct job *j)
{
	struct slot *s = (struct slot *)j;

	s->wret = s->canceled ? 0 : s->fh ? slot_run(s) : -EBADF;
}

static void slot_work_done(struct job *j)
{
	struct slot *s = (struct slot *)j;

	slot_done(s, s->wret);
}

/*
 * Waits up to @ms for a completion: the module's (reaped here), or a
 * worker's.
 */
static void wait_done(int ms)
{
	struct timespec end;
	bool workers;

	pthread_mutex_lock(&drv.lock);
	workers = drv.queue || drv.worker_busy;
	pthread_mutex_unlock(&drv.lock);
	if (!workers) {
		reap(ms);
		return;
	}
	/* Both kinds may be in flight: the module's polled, the workers' waited for a while. */
	reap(0);
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_nsec += (ms < 5 ? ms : 5) * 1000000L;
	end.tv_sec += end.tv_nsec / 1000000000;
	end.tv_nsec %= 1000000000;
	pthread_mutex_lock(&drv.lock);
	if (drv.queue || drv.worker_busy)
		pthread_cond_timedwait(&drv.done, &drv.lock, &end);
	pthread_mutex_unlock(&drv.lock);
}

static CUfileError_t batch_submit(CUfileBatchHandle_t h, unsigned nr, CUfileIOParams_t *io,
				  unsigned int flags)
{
	struct slot *slots[BATCH_MAX], *sync[BATCH_MAX];
	struct gpupath_iov iov[BATCH_MAX];
	struct target t[BATCH_MAX];
	size_t len[BATCH_MAX];
	unsigned int i, j, n = 0, k = 0, nsync = 0;
	CUfileOpError err = CU_FILE_SUCCESS, rerr = CU_FILE_SUCCESS;
	struct batch *b;
	int started = 0;

	if (!io || !nr || nr > BATCH_MAX || flags)
		return status(CU_FILE_INVALID_VALUE);
	/* Where each entry's memory is: resolve() takes drv.lock itself. */
	for (i = 0; i < nr && rerr == CU_FILE_SUCCESS; i++) {
		len[i] = io[i].u.batch.size > SSIZE_MAX ? SSIZE_MAX : io[i].u.batch.size;
		rerr = resolve(io[i].u.batch.devPtr_base, io[i].u.batch.devPtr_offset, len[i],
			       &t[i]);
	}

	/*
	 * Slots are found free and filled in one hold of the lock: a slot that
	 * is free when the lock is let go may be taken by another thread
	 * submitting to this batch, and one thread's entry would overwrite
	 * the other's.
	 */
	pthread_mutex_lock(&drv.lock);
	b = batch_find_locked(h);
	if (!b || nr > b->max) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_INVALID_VALUE);
	}
	/* Every entry checked, and a slot found for each, before any starts. */
	for (i = 0, j = 0; i < nr && err == CU_FILE_SUCCESS; i++) {
		CUfileIOParams_t *p = &io[i];

		if (p->mode != CUFILE_BATCH ||
		    (p->opcode != CUFILE_READ && p->opcode != CUFILE_WRITE) ||
		    p->u.batch.file_offset < 0 || !fh_find_locked(p->fh)) {
			err = CU_FILE_INVALID_VALUE;
			break;
		}
		while (j < b->max && b->slots[j].busy)
			j++;
		if (j == b->max) {
			err = CU_FILE_BATCH_FULL;
			break;
		}
		slots[n++] = &b->slots[j++];
	}
	if (err == CU_FILE_SUCCESS)
		err = rerr;
	if (err != CU_FILE_SUCCESS) {
		pthread_mutex_unlock(&drv.lock);
		return status(err);
	}
	for (i = 0; i < n; i++) {
		struct slot *s = slots[i];
		bool wr = io[i].opcode == CUFILE_WRITE;

		s->p = io[i];
		s->fh = fh_get_locked(io[i].fh);	/* let go in slot_done() */
		s->t = t[i];
		s->len = len[i];
		s->busy = true;
		/*
		 * Not done until slot_done(), whoever runs it: the module, or
		 * this thread below, outside the lock. Until then status does
		 * not report it as it stands (pending), nor frees its slot.
		 */
		s->inflight = true;
		s->t0 = stats_clock();
		s->canceled = false;
		s->status = CUFILE_PENDING;
		s->ret = 0;
		/* Asynchronous only on the library's own descriptor: see gpupath_cufile_dev(). */
		if (s->fh && clamp(s->fh, io[i].u.batch.file_offset, &s->len) && s->t.buf &&
		    gpupath_buf_dev(s->t.buf) == drv.dev &&
		    via_module(&s->t,
			       module_refusal(s->fh, &s->t, s->len, io[i].u.batch.file_offset))) {
			iov[k] = (struct gpupath_iov){
				.buf = s->t.buf, .buf_off = s->t.off, .fd = s->fh->fd,
				.op = wr ? GPUPATH_IO_WRITE : GPUPATH_IO_READ,
				.dev_off = io[i].u.batch.file_offset, .len = s->len,
				.user_data = (uintptr_t)s,
			};
			k++;
		} else {
			sync[nsync++] = s;
		}
	}
	pthread_mutex_unlock(&drv.lock);
	if (k) {
		started = gpupath_submit(drv.dev, iov, k);
		if (started < 0)
			started = 0;
		/* What the module did not take goes to the workers too. */
		for (i = started; i < k; i++)
			sync[nsync++] = (struct slot *)(uintptr_t)iov[i].user_data;
	}
	pthread_mutex_lock(&drv.lock);
	for (i = 0; i < nsync; i++) {
		sync[i]->job.run = slot_work;
		sync[i]->job.done = slot_work_done;
		if (!worker_queue(&sync[i]->job))
			break;
	}
	pthread_mutex_unlock(&drv.lock);
	/* No worker could be started: here, at once. */
	for (; i < nsync; i++) {
		ssize_t r = sync[i]->fh ? slot_run(sync[i]) : -EBADF;

		pthread_mutex_lock(&drv.lock);
		slot_done(sync[i], r);
		pthread_mutex_unlock(&drv.lock);
	}
	return status(CU_FILE_SUCCESS);
}

/* Completions from the module, each handed to its slot; waits up to @ms. */
static void reap(int ms)
{
	struct gpupath_completion c[32];
	int n, i;

	pthread_mutex_lock(&drv.reap_lock);
	n = drv.dev ? gpupath_reap(drv.dev, c, 32, ms) : 0;
	pthread_mutex_unlock(&drv.reap_lock);
	for (i = 0; i < n; i++) {
		struct slot *s = (struct slot *)(uintptr_t)c[i].user_data;
		ssize_t r = c[i].result;
		/* Bytes moved: fewer at the end of a file. */
		size_t moved = c[i].len;

		/* Refused direct: bounced here, as cuFileRead() would. */
		if (r == -EXDEV && !s->canceled) {
			r = module_io(s->fh, &s->t, s->len, s->p.u.batch.file_offset,
				      s->p.opcode == CUFILE_WRITE);
			moved = last.len;
		}
		pthread_mutex_lock(&drv.lock);
		slot_done(s, r < 0 ? r : (ssize_t)moved);
		pthread_mutex_unlock(&drv.lock);
	}
	if (n <= 0 && ms > 0 && !drv.dev)
		usleep(1000);
}

static long ms_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
}

EXPORT CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t h, unsigned min_nr, unsigned *nr,
					    CUfileIOEvents_t *ev, struct timespec *timeout)
{
	struct timespec end;
	unsigned int got = 0, i;
	struct batch *b;

	if (!nr || !ev || min_nr > *nr || (timeout && (timeout->tv_sec < 0 ||
	    timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000)))
		return status(CU_FILE_INVALID_VALUE);
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec + (end.tv_nsec + timeout->tv_nsec) / 1000000000;
		end.tv_nsec = (end.tv_nsec + timeout->tv_nsec) % 1000000000;
	}
	for (;;) {
		bool inflight = false;
		long left;

		pthread_mutex_lock(&drv.lock);
		b = batch_find_locked(h);
		if (!b) {
			pthread_mutex_unlock(&drv.lock);
			return status(CU_FILE_INVALID_VALUE);
		}
		for (i = 0; i < b->max && got < *nr; i++) {
			struct slot *s = &b->slots[i];

			if (!s->busy || s->inflight) {
				inflight |= s->inflight;
				continue;
			}
			ev[got].cookie = s->p.cookie;
			ev[got].status = s->status;
			ev[got].ret = (size_t)s->ret;
			s->busy = false;
			got++;
		}
		for (; i < b->max; i++)
			inflight |= b->slots[i].inflight;
		pthread_mutex_unlock(&drv.lock);
		if (got >= min_nr || got == *nr || !inflight)
			break;
		left = timeout ? ms_left(&end) : 50;
		if (left <= 0)
			break;
		wait_done(left < 50 ? (int)left : 50);
	}
	*nr = got;
	return status(CU_FILE_SUCCESS);
}

/*
 * Cancel: what is in flight ends as canceled, once the module (or the thread
 * that runs it) is done with it.
 */
void batch_cancel(struct batch *b)
{
	unsigned int i;
	bool inflight;

	pthread_mutex_lock(&drv.lock);
	for (i = 0; i < b->max; i++)
		if (b->slots[i].inflight)
			b->slots[i].canceled = true;
	pthread_mutex_unlock(&drv.lock);
	do {
		inflight = false;
		pthread_mutex_lock(&drv.lock);
		for (i = 0; i < b->max; i++)
			inflight |= b->slots[i].inflight;
		pthread_mutex_unlock(&drv.lock);
		if (inflight)
			wait_done(50);
	} while (inflight);
}

void batch_free(struct batch *b)
{
	free(b->slots);
	free(b);
}

EXPORT CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t h)
{
	struct batch *b;

	pthread_mutex_lock(&drv.lock);
	b = batch_find_locked(h);
	pthread_mutex_unlock(&drv.lock);
	STATS_OP(batch_cancel_ops, b);
	if (!b)
		return status(CU_FILE_INVALID_VALUE);
	batch_cancel(b);
	return status(CU_FILE_SUCCESS);
}

EXPORT void cuFileBatchIODestroy(CUfileBatchHandle_t h)
{
	struct batch *b = link_take(&drv.batches, h);

	STATS_OP(batch_destroy_ops, b);
	if (!b)
		return;
	batch_cancel(b);
	batch_free(b);
}

EXPORT CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *bp, unsigned nr)
{
	CUfileError_t s = batch_setup(bp, nr);

	STATS_OP(batch_setup_ops, s.err == CU_FILE_SUCCESS);
	return s;
}

EXPORT CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t h, unsigned nr,
					 CUfileIOParams_t *io, unsigned int flags)
{
	CUfileError_t s = batch_submit(h, nr, io, flags);

	STATS_OP(batch_submit_ops, s.err == CU_FILE_SUCCESS);
	return s;
}
