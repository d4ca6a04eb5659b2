/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpupathd logging: to stderr with a level prefix (foreground), to the
 * journal with the priority as a field (foreground under systemd, stderr
 * being the journal's stream), or to syslog (daemonized).
 */
#ifndef GPUPATHD_LOG_H
#define GPUPATHD_LOG_H

#include <stdbool.h>
#include <syslog.h>

void log_open(bool foreground, bool verbose);
void log_close(void);

void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Log @fmt at error level with ": strerror(-r)" appended. @r is a negative
 * errno; it is returned, so that "return log_errno(r, ...);" works.
 */
int log_errno(int r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The same, with ": @why" after the errno's text where @why (the kernel's
 * extended ACK message, say) is not NULL.
 */
int log_errno_why(int r, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* GPUPATHD_LOG_H */
