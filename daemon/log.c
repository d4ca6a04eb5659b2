// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd logging.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The messages' place in the code would be log_va()'s, always. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "internal.h"
#include "log.h"

static bool log_to_stderr = true;
static bool log_to_journal;	/* stderr is the journal's: its own protocol instead */
static int log_max_prio = LOG_INFO;

/*
 * Under systemd, stderr is a stream to the journal, which JOURNAL_STREAM
 * names (device:inode); stderr redirected elsewhere is not.
 */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_open(bool foreground, bool verbose)
{
	log_to_stderr = foreground;
	log_to_journal = foreground && stderr_is_journal();
	log_max_prio = verbose ? LOG_DEBUG : LOG_INFO;
	if (!foreground)
		openlog("gpupathd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

/*
 * Also in a child, before it closes the daemon's descriptors: syslog opens
 * its socket again when the child logs; the journal's socket is kept by
 * libsystemd, so the child writes to stderr, the journal's stream.
 */
void log_close(void)
{
	if (!log_to_stderr)
		closelog();
	log_to_journal = false;
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
	/* The priority as a field of its own; stderr if the journal fails. */
	if (log_to_journal && sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", prio,
					      "SYSLOG_IDENTIFIER=gpupathd", NULL) >= 0) {
		errno = saved_errno;
		return;
	}
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
