/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpupathd's clock: CLOCK_MONOTONIC, the clock of the event loop's timers
 * (sd-event), read afresh: sd_event_now() is the time the loop woke up,
 * which a long pass leaves behind.
 */
#ifndef GPUPATHD_CLOCK_H
#define GPUPATHD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline uint64_t now_ms(void)
{
	return now_us() / 1000;
}

#endif /* GPUPATHD_CLOCK_H */
