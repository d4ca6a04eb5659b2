// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd logging.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
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

/*
 * Names and addresses in a message may come from the network (discovery log
 * pages, mDNS) or from users (cgroups): a newline there would forge a log
 * line, an escape sequence would drive the terminal that reads the log. The
 * whole message is written as text (lib/text.c): one line, UTF-8.
 */
static void log_va(int prio, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	char msg[1024], text[2048];

	if (prio > log_max_prio)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	gpupath_utf8_cut(msg);
	gpupath_escape(text, sizeof(text), msg);
	if (log_to_stderr) {
		/* one line at a time: the ANA poller logs from its own thread */
		flockfile(stderr);
		fprintf(stderr, "%s%s\n", prio_prefix(prio), text);
		funlockfile(stderr);
	} else {
		syslog(prio, "%s", text);
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
