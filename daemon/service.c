// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd as a service (gpupathd.h): the signals its loop takes (TERM and
 * INT stop, HUP reloads gpupath.conf, CHLD brings a pass), and what it
 * tells systemd (Type=notify): ready, reloading, stopping, and the
 * watchdog's pings.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "gpupathd.h"
#include "log.h"

/* ---- systemd ---------------------------------------------------------- */

void notify(const char *state)
{
	int r = sd_notify(0, state);

	if (r < 0)
		log_errno(r, "cannot notify the service manager");
}

int setup_watchdog(struct daemon *d)
{
	uint64_t usec;
	int r;

	r = sd_watchdog_enabled(0, &usec);
	if (r <= 0) {
		if (r < 0)
			log_errno(r, "ignoring the watchdog settings");
		return 0;
	}
	r = sd_event_set_watchdog(d->event, true);
	if (r < 0)
		return log_errno(r, "cannot ping the watchdog from the loop");
	log_info("watchdog: a ping at least every %llu ms", (unsigned long long)usec * 3 / 4000);
	return 0;
}

/* RELOADING=1 with the time it began, as systemd wants it. */
static void notify_reloading(void)
{
	struct timespec ts;
	char buf[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	notify(buf);
}

/* ---- signals ---------------------------------------------------------- */

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;
	struct gpupath_conf *prev;

	if (si->ssi_signo == SIGCHLD) {
		/*
		 * A connect or discovery child ended: its result (or its
		 * death, which left none) is taken at a pass now, not at the
		 * next periodic one. The pass reaps it (connect.c,
		 * discovery.c).
		 */
		if (d->loaded)
			soon(d, SOON_MS);
		return 0;
	}
	if (si->ssi_signo == SIGHUP) {
		log_info("reloading %s", d->config);
		notify_reloading();
		if (load_config(d, &prev) < 0) {
			log_warn("keeping the configuration in place");
			notify("READY=1");
			return 0;
		}
		dump(d);
		if (apply_config(d) < 0 && prev) {
			/* The module would refuse it: the last good one stays. */
			log_warn("keeping the configuration in place");
			prev = use_config(d, prev);
		}
		gpupath_conf_free(prev);
		arm_timer(d);
		reconcile(d);
		notify("READY=1");
		return 0;
	}
	log_info("stopping");
	notify("STOPPING=1");
	return sd_event_exit(sd_event_source_get_event(s), EXIT_SUCCESS);
}

int setup_signals(struct daemon *d)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	sigset_t mask;
	size_t i;
	int r;

	sigemptyset(&mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&mask, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_errno(-errno, "cannot block signals");
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		r = sd_event_add_signal(d->event, NULL, sigs[i], on_signal, d);
		if (r < 0)
			return log_errno(r, "cannot watch signals");
	}
	return 0;
}
