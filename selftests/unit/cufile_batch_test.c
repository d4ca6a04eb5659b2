// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libgpupath-cufile's batches under threads: several threads
 * submit to one batch at once, round after round, and every entry they
 * submitted must be reported by cuFileBatchIOGetStatus() exactly once,
 * complete, with its byte count, and its bytes must be in its destination.
 *
 * Runs on the host: a regular file, host memory, so every entry goes the
 * compat way (synchronously, in the submitting thread) whether or not the
 * module is loaded. One more thread polls a batch of its own all the while,
 * as another part of the program would, so that the submitters also wait
 * for the library's lock. Each test runs for a bounded time or number of
 * rounds, whichever ends first, and says how many rounds it ran.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "cufile.h"
#include "harness.h"

#define MAX_THREADS	4
#define PER_THREAD	8		/* entries per thread and round */
#define ENTRY_MAX	(8 << 10)	/* the largest entry, and each destination */
#define FILE_SIZE	(1 << 20)
#define ROUNDS		20000
#define SECONDS		2.0		/* per test, at most */
#define SHOW		5		/* bad entries described, at most */
#define OTHER_MAX	128		/* the other batch's entries */

/* The file's byte at @pos: a function of the position, so a misplaced read shows. */
static unsigned char pattern(uint64_t pos)
{
	return (unsigned char)((pos * 2654435761u) >> 13 ^ pos >> 7);
}

struct entry {
	off_t foff;
	off_t boff;		/* in the destination */
	size_t size;
	unsigned char *dst;	/* ENTRY_MAX + 1 KiB */
};

struct run {
	CUfileBatchHandle_t batch;
	CUfileHandle_t fh;
	pthread_barrier_t start, end;
	atomic_bool stop;
	atomic_uint round;
	atomic_uint submitted;		/* threads done submitting this round */
	atomic_uint submit_errors;
	struct entry e[MAX_THREADS][PER_THREAD];
};

struct worker {
	struct run *r;
	unsigned int t;
};

/* Where entry (@t, @i) of @round reads from, and to: different each round. */
static void entry_plan(struct run *r, unsigned int round, unsigned int t, unsigned int i)
{
	struct entry *e = &r->e[t][i];
	unsigned int k = round * 31 + t * PER_THREAD + i;

	e->size = 1 + (k * 977) % ENTRY_MAX;
	e->boff = (k * 13) % 1024;
	e->foff = (off_t)((k * 4099ull) % (FILE_SIZE - ENTRY_MAX));
	memset(e->dst, 0, ENTRY_MAX + 1024);
}

/*
 * Another batch of the same program, polled all the while: the library's
 * lock in demand, so that a submission waits for it, as it would in a
 * program with more threads than these.
 */
static void *other_poller(void *arg)
{
	struct run *r = arg;
	CUfileIOEvents_t ev[OTHER_MAX];
	CUfileBatchHandle_t b;

	if (cuFileBatchIOSetUp(&b, OTHER_MAX).err != CU_FILE_SUCCESS)
		return NULL;
	while (!atomic_load(&r->stop)) {
		unsigned int n = OTHER_MAX;

		cuFileBatchIOGetStatus(b, 0, &n, ev, &(struct timespec){ 0 });
	}
	cuFileBatchIODestroy(b);
	return NULL;
}

static void *submitter(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	CUfileIOParams_t io[PER_THREAD];
	unsigned int i, chunk;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (atomic_load(&r->stop))
			return NULL;
		memset(io, 0, sizeof(io));
		for (i = 0; i < PER_THREAD; i++) {
			struct entry *e = &r->e[w->t][i];

			io[i].mode = CUFILE_BATCH;
			io[i].opcode = CUFILE_READ;
			io[i].fh = r->fh;
			io[i].u.batch.devPtr_base = e->dst;
			io[i].u.batch.devPtr_offset = e->boff;
			io[i].u.batch.file_offset = e->foff;
			io[i].u.batch.size = e->size;
			io[i].cookie = (void *)(uintptr_t)(1 + w->t * PER_THREAD + i);
		}
		/* In calls of 1, 2, 4 or 8 entries: more calls, more chances to meet. */
		chunk = 1u << (atomic_load(&r->round) + w->t) % 4;
		for (i = 0; i < PER_THREAD; i += chunk)
			if (cuFileBatchIOSubmit(r->batch, chunk, &io[i], 0).err != CU_FILE_SUCCESS)
				atomic_fetch_add(&r->submit_errors, 1);
		atomic_fetch_add(&r->submitted, 1);
		pthread_barrier_wait(&r->end);
	}
}

/* Problems with one entry's event (or its absence), counted and shown. */
static unsigned int entry_check(const struct entry *e, unsigned int seen,
				const CUfileIOEvents_t *ev, unsigned int round, unsigned int *shown)
{
	const char *why = NULL;
	size_t j, bad = 0;

	for (j = 0; j < ENTRY_MAX + 1024; j++) {
		bool in = j >= (size_t)e->boff && j < e->boff + e->size;

		bad += e->dst[j] != (in ? pattern(e->foff + j - e->boff) : 0);
	}
	if (seen != 1)
		why = seen ? "reported more than once" : "never reported";
	else if (ev->status != CUFILE_COMPLETE)
		why = "not complete";
	else if (ev->ret != e->size)
		why = "wrong byte count";
	else if (bad)
		why = "wrong bytes in memory";
	if (!why)
		return 0;
	if ((*shown)++ < SHOW)
		printf("# round %u: entry of %zu bytes at %lld: %s (seen %u, status %d, ret %zu, "
		       "%zu bytes wrong)\n", round, e->size, (long long)e->foff, why,
		       seen, seen ? (int)ev->status : 0, seen ? ev->ret : 0, bad);
	return 1;
}

/* Events into @ev by cookie; false when a cookie is not one of this round's. */
static bool record(const CUfileIOEvents_t *got, unsigned int n, CUfileIOEvents_t *ev,
		   unsigned int *seen, unsigned int total)
{
	bool ok = true;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uintptr_t c = (uintptr_t)got[i].cookie;

		if (c < 1 || c > total) {
			ok = false;
			continue;
		}
		ev[c - 1] = got[i];
		seen[c - 1]++;
	}
	return ok;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * @threads threads submit PER_THREAD entries each to one batch at once, for
 * rounds; the main thread collects the round's events while they submit
 * (@poll) or after. Returns the rounds with a lost, doubled, failed or
 * misplaced entry; the rounds run in *@rounds.
 */
static unsigned int batch_rounds(unsigned int threads, bool poll, unsigned int *rounds,
				 unsigned int *submit_errors)
{
	unsigned int total = threads * PER_THREAD, bad_rounds = 0, shown = 0, round, t, i;
	char path[] = "/tmp/cufile_batch_test.XXXXXX";
	static unsigned char buf[FILE_SIZE];
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS], other;
	CUfileDescr_t descr;
	struct run *r;
	double end;
	int fd;

	*rounds = *submit_errors = 0;
	r = calloc(1, sizeof(*r));
	fd = mkstemp(path);
	if (!r || fd < 0)
		return ~0u;
	unlink(path);
	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = pattern(i);
	if (pwrite(fd, buf, FILE_SIZE, 0) != FILE_SIZE)
		return ~0u;
	memset(&descr, 0, sizeof(descr));
	descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
	descr.handle.fd = fd;
	if (cuFileHandleRegister(&r->fh, &descr).err != CU_FILE_SUCCESS ||
	    cuFileBatchIOSetUp(&r->batch, total).err != CU_FILE_SUCCESS)
		return ~0u;
	for (t = 0; t < threads; t++)
		for (i = 0; i < PER_THREAD; i++)
			r->e[t][i].dst = malloc(ENTRY_MAX + 1024);
	pthread_barrier_init(&r->start, NULL, threads + 1);
	pthread_barrier_init(&r->end, NULL, threads + 1);
	for (t = 0; t < threads; t++) {
		w[t] = (struct worker){ .r = r, .t = t };
		pthread_create(&tid[t], NULL, submitter, &w[t]);
	}
	pthread_create(&other, NULL, other_poller, r);

	end = now() + SECONDS;
	for (round = 0; round < ROUNDS && now() < end; round++) {
		CUfileIOEvents_t got[MAX_THREADS * PER_THREAD], ev[MAX_THREADS * PER_THREAD];
		unsigned int seen[MAX_THREADS * PER_THREAD] = { 0 }, collected = 0, bad = 0;
		bool strays = false;

		for (t = 0; t < threads; t++)
			for (i = 0; i < PER_THREAD; i++)
				entry_plan(r, round, t, i);
		atomic_store(&r->round, round);
		atomic_store(&r->submitted, 0);
		pthread_barrier_wait(&r->start);
		/* While they submit: whatever is reported must be complete already. */
		while (poll && collected < total) {
			bool done = atomic_load(&r->submitted) == threads;
			unsigned int n = total;

			if (cuFileBatchIOGetStatus(r->batch, 0, &n, got,
						   &(struct timespec){ 0 }).err != CU_FILE_SUCCESS)
				break;
			strays |= !record(got, n, ev, seen, total);
			collected += n;
			if (done)
				break;
		}
		pthread_barrier_wait(&r->end);
		/* All submitted: what is left, waiting up to a second for it. */
		if (collected < total) {
			unsigned int n = total;

			if (cuFileBatchIOGetStatus(r->batch, total - collected, &n, got,
						   &(struct timespec){ 1, 0 }).err == CU_FILE_SUCCESS)
				strays |= !record(got, n, ev, seen, total);
		}
		for (t = 0; t < threads; t++)
			for (i = 0; i < PER_THREAD; i++) {
				unsigned int k = t * PER_THREAD + i;

				bad += entry_check(&r->e[t][i], seen[k], &ev[k], round, &shown);
			}
		if (strays && shown++ < SHOW)
			printf("# round %u: an event with a cookie not submitted\n", round);
		bad_rounds += bad || strays;
	}

	atomic_store(&r->stop, true);
	pthread_barrier_wait(&r->start);
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	pthread_join(other, NULL);
	*rounds = round;
	*submit_errors = atomic_load(&r->submit_errors);
	printf("# %u submitters%s: %u rounds, %u with an entry lost or wrong, %u submissions "
	       "failed\n", threads, poll ? " and a poller" : "", round, bad_rounds, *submit_errors);
	cuFileBatchIODestroy(r->batch);
	cuFileHandleDeregister(r->fh);
	close(fd);
	for (t = 0; t < threads; t++)
		for (i = 0; i < PER_THREAD; i++)
			free(r->e[t][i].dst);
	pthread_barrier_destroy(&r->start);
	pthread_barrier_destroy(&r->end);
	free(r);
	return bad_rounds;
}

TEST(two_threads_submit_to_one_batch)
{
	unsigned int rounds, errors;

	EXPECT_EQ(0, batch_rounds(2, false, &rounds, &errors));
	EXPECT_EQ(0, errors);
	EXPECT_NE(0, rounds);
}

TEST(four_threads_submit_to_one_batch)
{
	unsigned int rounds, errors;

	EXPECT_EQ(0, batch_rounds(4, false, &rounds, &errors));
	EXPECT_EQ(0, errors);
	EXPECT_NE(0, rounds);
}

/* Status asked for while entries are being submitted and run. */
TEST(two_threads_submit_while_a_third_polls)
{
	unsigned int rounds, errors;

	EXPECT_EQ(0, batch_rounds(2, true, &rounds, &errors));
	EXPECT_EQ(0, errors);
	EXPECT_NE(0, rounds);
}

TEST_HARNESS_MAIN
