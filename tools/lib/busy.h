/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Busy time of all CPUs together, for the benchmarks (gpupath-bench, the
 * lab's node runs): every CPU's time less its idle and I/O-wait time, so
 * interrupts, softirqs and kernel threads count wherever they ran. From
 * /proc/stat (clock ticks: 10 ms per CPU), or from a file of "now NS" and a
 * "cpuN IDLE_US IOWAIT_US" line per CPU (selftests/lab/cpubusy's
 * /proc/cpubusy: microseconds). That file may end with "io USER_NS IRQ_NS":
 * the time CPUs ran the reading process's threads (interrupts excluded) and
 * the time in the storage device's interrupt handlers, the part of busy time an I/O's reader
 * pays for (cpubusy's io_irq=).
 */
#ifndef GPUPATH_BUSY_H
#define GPUPATH_BUSY_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC, in seconds. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The process's CPU time, user and system, in seconds. */
static inline double bench_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct busy_src {
	const char *file;	/* NULL: /proc/stat */
	double resolution_ns;	/* set by busy_seconds() */
	bool io_known;		/* set by busy_seconds(): the file has an io line */
	double io;		/* ... its two times together, in seconds */
};

static inline const char *busy_name(const struct busy_src *b)
{
	return b->file ? b->file : "/proc/stat";
}

/* Busy seconds of all CPUs so far; false when the source cannot be read. */
static inline bool busy_seconds(struct busy_src *b, double *busy)
{
	unsigned long long v[8] = { 0 }, now = 0, idle, iowait, user, irq;
	long tck = sysconf(_SC_CLK_TCK);
	unsigned int ncpu = 0;
	char line[256];
	bool ok = false;
	FILE *f;

	f = fopen(busy_name(b), "re");
	if (!f)
		return false;
	if (!b->file) {
		/* user nice system idle iowait irq softirq steal (guest is in user) */
		if (fgets(line, sizeof(line), f) && tck > 0 &&
		    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) >= 7) {
			*busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tck;
			ok = true;
		}
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9')
				ncpu++;
		b->resolution_ns = ncpu * 1e9 / (tck > 0 ? tck : 100);
		fclose(f);
		return ok;
	}
	*busy = 0;
	b->io_known = false;
	if (fgets(line, sizeof(line), f) && sscanf(line, "now %llu", &now) == 1) {
		ok = true;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "io %llu %llu", &user, &irq) == 2) {
				b->io = (user + irq) / 1e9;
				b->io_known = true;
				continue;
			}
			if (b->io_known || sscanf(line, "cpu%*u %llu %llu", &idle, &iowait) != 2) {
				ok = false;
				break;
			}
			*busy += now / 1e9 - (idle + iowait) / 1e6;
			ncpu++;
		}
	}
	b->resolution_ns = ncpu * 1e3;
	fclose(f);
	return ok && ncpu;
}

#endif
