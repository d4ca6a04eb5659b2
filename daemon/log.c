// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd logging.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static bool log_to_stderr = true;
static int log_max_prio = LOG_INFO;

void log_open(bool foreground, bool verbose)
{
	log_to_stderr = foreground;
	log_max_prio = verbose ? LOG_DEBUG : LOG_INFO;
	if (!foreground)
		openlog("gpupathd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_close(void)
{
	if (!log_to_stderr)
		closelog();
}

static const char *prio_prefix(int prio)
{
	switch (prio) {
	case LOG_ERR:
		return "error: ";
	case LOG_WARNING:
		return "warning: ";
	case LOG_DEBUG:
		return "debug: ";
	default:
		return "";
	}
}

static void log_va(int prio, const char *fmt, va_list ap)
{
	int saved_errno = errno;

	if (prio > log_max_prio)
		return;
	if (log_to_stderr) {
		/* one line at a time: the ANA poller logs from its own thread */
		flockfile(stderr);
		fputs(prio_prefix(prio), stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		funlockfile(stderr);
	} else {
		vsyslog(prio, fmt, ap);
	}
	errno = saved_errno;
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(prio, fmt, ap);
	va_end(ap);
}

static int log_errno_ap(int r, const char *why, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_msg(LOG_ERR, "%s: %s%s%s", msg, strerror(r < 0 ? -r : r), why ? ": " : "",
		why ? why : "");
	return r;
}

int log_errno(int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_errno_ap(r, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int log_errno_why(int r, const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_errno_ap(r, why, fmt, ap);
	va_end(ap);
	return r;
}
