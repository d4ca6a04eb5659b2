/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics endpoint: GET /metrics on a localhost port, answered with
 * what "gpupath stats --prometheus" prints.
 */
#ifndef GPUPATHD_METRICS_H
#define GPUPATHD_METRICS_H

#include "loop.h"

/* Listen on 127.0.0.1:@port; returns the socket, or a negative errno (logged). */
int metrics_open(struct loop *l, unsigned int port);

#endif /* GPUPATHD_METRICS_H */
