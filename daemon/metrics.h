/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics endpoint: GET /metrics on a localhost port, answered with
 * what "gpupath stats --prometheus" prints, by libmicrohttpd in a thread of
 * its own (metrics.c says why and within which limits).
 */
#ifndef GPUPATHD_METRICS_H
#define GPUPATHD_METRICS_H

struct metrics;

/*
 * Listen on 127.0.0.1:@port and serve from another thread; 0 and *@m set,
 * or a negative errno (logged).
 */
int metrics_open(struct metrics **m, unsigned int port);

/* Stop at once, whatever the clients are doing; @m may be NULL. */
void metrics_close(struct metrics *m);

#endif /* GPUPATHD_METRICS_H */
