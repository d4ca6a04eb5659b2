// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics endpoint: GET /metrics, answered from a fresh snapshot of the
 * module in the exposition format ("gpupath stats --prometheus").
 *
 * Bound to 127.0.0.1 only: a local Prometheus agent (or node_exporter's
 * proxy) scrapes it; nothing off the host can. Every local user can,
 * though, so what arrives is treated as hostile, and none of it is served
 * in the daemon's event loop: libmicrohttpd parses and answers in a thread
 * of its own. A client that sends a byte now and then, or nothing, holds
 * one of that thread's connections and no more; the loop's watchdog pings,
 * netlink notifications and signals go on as before. The limits:
 *
 *   - METRICS_CONNS connections at a time; further ones wait in the
 *     listen backlog, and are taken in turn as slots free up (there is no
 *     limit per source address: every local client is 127.0.0.1, so such a
 *     limit would only lower the number of connections that deny the
 *     others);
 *   - METRICS_IDLE_S seconds without a byte either way closes a connection
 *     (libmicrohttpd's connection timeout);
 *   - METRICS_DEADLINE_S seconds from accept to the last byte of the answer,
 *     however the client trickles its bytes: libmicrohttpd's timeout is
 *     reset by every byte, so a reaper thread here shuts down connections
 *     that outlive it (see reaper());
 *   - METRICS_MEM bytes for a request's line and headers; more is refused
 *     (431) by libmicrohttpd;
 *   - one request per connection (Connection: close), so the deadline
 *     bounds a request, not a keep-alive session.
 *
 * Each request opens its own netlink socket to the module (nothing is
 * shared with the loop's thread). Stopping (SIGTERM) does not wait for any
 * client: MHD_stop_daemon() wakes the thread through its inter-thread
 * channel, which closes every connection as it stands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "libgpupath-admin.h"
#include "log.h"
#include "metrics.h"

#define METRICS_CONNS		16
#define METRICS_IDLE_S		3
#define METRICS_DEADLINE_S	5
#define METRICS_MEM		(16 * 1024)

/* A connection being served, and when it must be done. */
struct metrics_conn {
	int fd;			/* -1: slot free */
	bool cut;		/* shut down by the reaper */
	struct timespec deadline;	/* CLOCK_MONOTONIC */
};

struct metrics {
	struct MHD_Daemon *mhd;
	pthread_t reaper;
	bool reaper_started;
	bool starting;		/* in MHD_start_daemon(): its messages are errors */
	/*
	 * Guards conns[] and stopping. libmicrohttpd tells of a connection's
	 * end (MHD_CONNECTION_NOTIFY_CLOSED) before it closes the socket, and
	 * the slot is freed under this lock then: the reaper never shuts down
	 * a descriptor that has been closed, and perhaps reused, meanwhile.
	 */
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* a new connection, or stopping */
	bool stopping;
	struct metrics_conn conns[METRICS_CONNS];
};

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * Shut down (both ways) each connection past its deadline; libmicrohttpd's
 * thread then sees the end of the stream, and closes and forgets it as it
 * does any connection the client dropped. Sleeps until the next deadline,
 * or until woken by a new connection or by metrics_close().
 */
static void *reaper(void *arg)
{
	struct metrics *m = arg;
	struct timespec now, next;
	unsigned int i;

	pthread_mutex_lock(&m->lock);
	while (!m->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		next = now;
		next.tv_sec += 3600;
		for (i = 0; i < METRICS_CONNS; i++) {
			struct metrics_conn *c = &m->conns[i];

			if (c->fd < 0 || c->cut)
				continue;
			if (!ts_before(&now, &c->deadline)) {
				shutdown(c->fd, SHUT_RDWR);
				c->cut = true;
				log_debug("metrics: a connection cut after %d s",
					  METRICS_DEADLINE_S);
			} else if (ts_before(&c->deadline, &next)) {
				next = c->deadline;
			}
		}
		pthread_cond_timedwait(&m->wake, &m->lock, &next);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* libmicrohttpd's thread: a connection accepted, or ended. */
static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct metrics *m = cls;
	struct metrics_conn *c = *socket_context;
	const union MHD_ConnectionInfo *info;
	unsigned int i;

	pthread_mutex_lock(&m->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
		/*
		 * There is always a free slot: libmicrohttpd holds no more
		 * than METRICS_CONNS connections, and frees a slot before it
		 * takes the next one (the same thread does both).
		 */
		for (i = 0; info && i < METRICS_CONNS; i++) {
			c = &m->conns[i];
			if (c->fd >= 0)
				continue;
			c->fd = info->connect_fd;
			c->cut = false;
			clock_gettime(CLOCK_MONOTONIC, &c->deadline);
			c->deadline.tv_sec += METRICS_DEADLINE_S;
			*socket_context = c;
			pthread_cond_signal(&m->wake);
			break;
		}
	} else if (c) {
		c->fd = -1;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&m->lock);
}

/*
 * libmicrohttpd's own messages: why it cannot start, as errors; once it
 * runs (a client over the limits, a malformed request), debug only, as any
 * local user can cause them at will.
 */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct metrics *m = cls;
	char msg[256];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_msg(__atomic_load_n(&m->starting, __ATOMIC_RELAXED) ? LOG_ERR : LOG_DEBUG,
		"metrics: %s", msg);
}

static enum MHD_Result respond(struct MHD_Connection *connection, unsigned int status,
			       const char *type, char *body, size_t len, bool must_free)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	if (must_free)
		resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
	else
		resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		if (must_free)
			free(body);
		return MHD_NO;	/* closes the connection */
	}
	/* One request per connection: the deadline is then the request's. */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET");
	r = MHD_queue_response(connection, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result error_text(struct MHD_Connection *connection, unsigned int status,
				  const char *text)
{
	char *body = strdup(text);

	if (!body)
		return MHD_NO;
	return respond(connection, status, "text/plain; charset=utf-8", body, strlen(body), true);
}

/* The module's counters in the exposition format. */
static enum MHD_Result serve_metrics(struct MHD_Connection *connection)
{
	struct gpupath_stats *s;
	struct gpupath_ctl *ctl;
	const char *what;
	char *body = NULL, msg[160];
	size_t len = 0;
	FILE *f;
	int r;

	r = gpupath_ctl_open(&ctl);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "gpupath module: %s\n", strerror(-r));
		return error_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	r = gpupath_stats_get(ctl, &s, &what);
	gpupath_ctl_close(ctl);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "%s: %s\n", what, strerror(-r));
		return error_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	f = open_memstream(&body, &len);
	if (!f || gpupath_stats_prometheus(s, f) < 0 || fclose(f)) {
		/* fclose() is skipped only where open_memstream() failed */
		free(body);
		gpupath_stats_free(s);
		return error_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	gpupath_stats_free(s);
	return respond(connection, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
		       body, len, true);
}

/*
 * libmicrohttpd's thread: a request whose line and headers are in (and
 * within METRICS_MEM). Answered on this first call: a body, which no GET
 * has, is not read; libmicrohttpd closes the connection after the answer.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **req_cls)
{
	(void)cls, (void)version, (void)upload_data, (void)upload_data_size, (void)req_cls;
	if (strcmp(url, "/metrics"))
		return error_text(connection, MHD_HTTP_NOT_FOUND, "only /metrics is served here\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return error_text(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	return serve_metrics(connection);
}

/* A listening socket of our own, for the errno of a failed bind. */
static int listen_on(unsigned int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd, one = 1, r;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return log_errno(-errno, "metrics: socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		return log_errno(r, "metrics: cannot listen on 127.0.0.1:%u", port);
	}
	return fd;
}

/*
 * One polling thread (epoll), woken through its inter-thread channel (ITC)
 * to stop: MHD_stop_daemon() then returns at once, whatever the clients
 * are doing. The socket is libmicrohttpd's from here on.
 */
static struct MHD_Daemon *start_mhd(struct metrics *m, int fd, unsigned int port)
{
	const unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				   MHD_USE_ITC | MHD_USE_ERROR_LOG;

	return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, m,
				/* first, or some messages go to stderr */
				MHD_OPTION_EXTERNAL_LOGGER, on_log, m,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONNS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_MEM,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
				MHD_OPTION_END);
}

int metrics_open(struct metrics **mp, unsigned int port)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	struct metrics *m;
	unsigned int i;
	int fd, r;

	*mp = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return log_errno(-ENOMEM, "metrics");
	for (i = 0; i < METRICS_CONNS; i++)
		m->conns[i].fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&m->wake, &attr);
	pthread_condattr_destroy(&attr);

	fd = listen_on(port);
	if (fd < 0) {
		metrics_close(m);
		return fd;
	}
	/*
	 * Signals are the loop's (sd-event signal sources): none for
	 * libmicrohttpd's thread or the reaper, which inherit this mask.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&m->reaper, NULL, reaper, m);
	if (!r) {
		m->reaper_started = true;
		__atomic_store_n(&m->starting, true, __ATOMIC_RELAXED);
		m->mhd = start_mhd(m, fd, port);
		__atomic_store_n(&m->starting, false, __ATOMIC_RELAXED);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		close(fd);
		metrics_close(m);
		return log_errno(-r, "metrics: cannot start a thread");
	}
	if (!m->mhd) {
		/*
		 * libmicrohttpd said why (on_log), and closes the socket on
		 * most failures: not closed again here.
		 */
		metrics_close(m);
		return log_errno(-EIO, "metrics: cannot start the HTTP server");
	}
	log_info("metrics on http://127.0.0.1:%u/metrics", port);
	*mp = m;
	return 0;
}

void metrics_close(struct metrics *m)
{
	struct timespec t0, t1;

	if (!m)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Closes every connection as it stands, and the listening socket. */
	if (m->mhd)
		MHD_stop_daemon(m->mhd);
	if (m->reaper_started) {
		pthread_mutex_lock(&m->lock);
		m->stopping = true;
		pthread_cond_signal(&m->wake);
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->reaper, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* what the tests hold to a bound, whatever the clients were doing */
	if (m->mhd)
		log_debug("metrics: stopped in %lld ms",
			  (long long)(t1.tv_sec - t0.tv_sec) * 1000 +
			  (t1.tv_nsec - t0.tv_nsec) / 1000000);
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
