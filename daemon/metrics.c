// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics endpoint. Bound to 127.0.0.1 only: a local Prometheus agent
 * (or node_exporter's proxy) scrapes it; nothing off the host can. One
 * request per connection, answered at once from a fresh snapshot of the
 * module; a client that sends nothing for two seconds is dropped, so the
 * event loop is never held longer than that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "libgpupath-admin.h"
#include "log.h"
#include "metrics.h"

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= w;
	}
}

static void respond(int fd, const char *status, const char *type, const char *body, size_t len)
{
	char head[256];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n", status, type, len);
	send_all(fd, head, n);
	send_all(fd, body, len);
}

static void error_text(int fd, const char *status, const char *text)
{
	respond(fd, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* The module's counters in the exposition format. */
static void serve_metrics(int fd)
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
		error_text(fd, "503 Service Unavailable", msg);
		return;
	}
	r = gpupath_stats_get(ctl, &s, &what);
	gpupath_ctl_close(ctl);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "%s: %s\n", what, strerror(-r));
		error_text(fd, "503 Service Unavailable", msg);
		return;
	}
	f = open_memstream(&body, &len);
	if (!f || gpupath_stats_prometheus(s, f) < 0 || fclose(f)) {
		error_text(fd, "500 Internal Server Error", "out of memory\n");
		free(body);
		gpupath_stats_free(s);
		return;
	}
	respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body, len);
	free(body);
	gpupath_stats_free(s);
}

static void serve(int fd)
{
	char req[2048], method[8], path[64];
	size_t n = 0;

	/* The request line and headers, up to the empty line. */
	while (n < sizeof(req) - 1) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		n += r;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[n] = '\0';
	if (sscanf(req, "%7s %63s", method, path) != 2) {
		error_text(fd, "400 Bad Request", "bad request\n");
		return;
	}
	if (strcmp(path, "/metrics")) {
		error_text(fd, "404 Not Found", "only /metrics is served here\n");
		return;
	}
	if (strcmp(method, "GET")) {
		error_text(fd, "405 Method Not Allowed", "only GET\n");
		return;
	}
	serve_metrics(fd);
}

static int on_accept(struct loop *l, int lfd, uint32_t events, void *userdata)
{
	struct timeval tv = { .tv_sec = 2 };
	int fd;

	(void)l, (void)events, (void)userdata;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	serve(fd);
	close(fd);
	return 0;
}

int metrics_open(struct loop *l, unsigned int port)
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
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		return log_errno(r, "metrics: cannot listen on 127.0.0.1:%u", port);
	}
	r = loop_add(l, fd, EPOLLIN, on_accept, NULL);
	if (r < 0) {
		close(fd);
		return log_errno(r, "metrics: loop");
	}
	log_info("metrics on http://127.0.0.1:%u/metrics", port);
	return fd;
}
