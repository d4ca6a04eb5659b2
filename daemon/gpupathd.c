// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd: the gpupath reconciler.
 *
 * One sd-event loop, in the main thread, does the work: it waits on the
 * gpupath netlink notifications (and the module coming and going),
 * rtnetlink link changes, the uevents of nvme controllers and namespaces
 * (libudev's monitor, after udev's rules where udev runs), mDNS
 * announcements and the end of connect and discovery children (events.c),
 * signals (TERM/INT stop, HUP reloads gpupath.conf, CHLD: a child ended;
 * service.c) and timers. Read the configuration, subscribe, then dump,
 * apply the configuration, reconcile, then run. Under systemd
 * (Type=notify) it says when it is ready, reloading and stopping, and the
 * loop pings the watchdog.
 *
 * Besides the loop's thread there are: the ANA poller's thread (ana.h);
 * Avahi's threaded poll, once a portal discovers by mDNS (mdns.h);
 * libmicrohttpd's thread, with --metrics-port (metrics.h); and a child
 * process forked for each connect and each discovery controller's reads
 * (fabric-internal.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libudev.h>
#include <netlink/netlink.h>

#include "ana.h"
#include "clock.h"
#include "config.h"
#include "dmstack.h"
#include "fabric.h"
#include "gpupathd.h"
#include "log.h"
#include "mdns.h"
#include "metrics.h"

#define INTERVAL_DEFAULT	30
#define INTERVAL_MAX		GPUPATH_CONF_INTERVAL_MAX

#define RETRY_MS	1000	/* a pass again while connections are due */
#define TIMER_ACCURACY_US	1000	/* sd-event's default is 250 ms */

/* ---- dump ------------------------------------------------------------- */

static void log_module_info(const struct gpupath_info *info)
{
	char features[256];

	log_info("gpupath module %s (kernel %s, genl version %u)",
		 info->has & GPUPATH_INFO_HAS_VERSION ? info->version : "?",
		 info->has & GPUPATH_INFO_HAS_KERNEL ? info->kernel : "?",
		 info->genl_version);
	if (info->has & GPUPATH_INFO_HAS_P2PDMA_STATUS)
		log_info("P2PDMA: %s",
			 gpupath_p2pdma_status_text(info->p2pdma_status));
	if (info->has & GPUPATH_INFO_HAS_FEATURES) {
		gpupath_features_format(info->features, features, sizeof(features));
		log_info("features: %s", features);
	}
}

void dump(struct daemon *d)
{
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	const char *msg;
	int r;

	if (!d->loaded) {
		log_info("gpupath module not loaded; waiting for it");
		return;
	}
	r = gpupath_ctl_open(&ctl);
	if (r == -ENOENT) {
		log_info("gpupath module went away; waiting for it");
		d->loaded = false;
		untell_dm(d);
		return;
	}
	if (r < 0) {
		log_errno(r, "cannot open the gpupath control socket");
		return;
	}
	r = gpupath_ctl_get_info(ctl, &info, sizeof(info));
	if (r < 0) {
		msg = gpupath_ctl_errmsg(ctl);
		log_errno(r, "cannot read gpupath module info%s%s%s",
			  msg ? " (" : "", msg ? msg : "", msg ? ")" : "");
	} else {
		log_module_info(&info);
		/* A module before ANA takes no ANA state: none is read for it. */
		d->ana_ok = (info.has & GPUPATH_INFO_HAS_FEATURES) &&
			    (info.features & GPUPATH_FEATURE_PATH_ANA);
	}
	gpupath_ctl_close(ctl);
}

/* ---- configuration ---------------------------------------------------- */

static void conf_error(void *arg, unsigned int line, const char *msg)
{
	log_err("%s:%u: %s", (const char *)arg, line, msg);
}

struct gpupath_conf *use_config(struct daemon *d, struct gpupath_conf *conf)
{
	struct gpupath_conf *prev = d->conf;

	d->conf = conf;
	if (!d->interval_fixed)
		d->interval = conf && conf->interval ? conf->interval : INTERVAL_DEFAULT;
	return prev;
}

int load_config(struct daemon *d, struct gpupath_conf **prev)
{
	struct gpupath_conf *conf;
	bool absent = false;
	int r;

	r = gpupath_conf_load(d->config, &conf, conf_error, (void *)d->config);
	/* Gone since it was read: a mistake, not "delete everything". */
	if (r == -ENOENT && !d->config_given && !d->config_read) {
		log_info("no %s: portals and QoS classes come from the gpupath CLI alone",
			 d->config);
		absent = true;
		r = gpupath_conf_parse("", 0, &conf, NULL, NULL);
	}
	if (r < 0) {
		log_err("cannot read %s: %s", d->config, gpupath_conf_strerror(r));
		return r;
	}
	if (r > 0) {
		log_err("%s: %d mistake%s; nothing in it is applied", d->config, r,
			r == 1 ? "" : "s");
		gpupath_conf_free(conf);
		return -EINVAL;
	}
	*prev = use_config(d, conf);
	d->config_read |= !absent;
	return 0;
}

/* The control socket while the module is loaded; NULL otherwise (explained). */
static struct gpupath_ctl *ctl_open(struct daemon *d)
{
	struct gpupath_ctl *ctl;
	int r;

	if (!d->loaded)
		return NULL;
	r = gpupath_ctl_open(&ctl);
	if (r < 0) {
		if (r != -ENOENT)
			log_errno(r, "cannot open the gpupath control socket");
		return NULL;
	}
	return ctl;
}

int apply_config(struct daemon *d)
{
	struct gpupath_ctl *ctl;
	int r;

	if (!d->conf)
		return 0;
	ctl = ctl_open(d);
	if (!ctl)
		return 0;
	r = config_apply(ctl, d->conf, d->config, CONFIG_STATE);
	gpupath_ctl_close(ctl);
	return r;
}

/* ---- reconcile -------------------------------------------------------- */

void soon(struct daemon *d, unsigned int ms)
{
	uint64_t at, cur;
	int on, r;

	/*
	 * Passes take at most half the time: while connects (in child
	 * processes) end one after another, each with its uevents, a pass
	 * over many controllers would otherwise follow another.
	 */
	if (ms < d->pass_ms)
		ms = d->pass_ms;
	/* From the clock, not the loop's wake-up: a pass may have run since. */
	at = now_us() + (uint64_t)ms * 1000;
	if (sd_event_source_get_enabled(d->soon, &on) > 0 &&
	    sd_event_source_get_time(d->soon, &cur) >= 0 && cur <= at)
		return;
	r = sd_event_source_set_time(d->soon, at);
	if (r >= 0)
		r = sd_event_source_set_enabled(d->soon, SD_EVENT_ONESHOT);
	if (r < 0)
		log_errno(r, "cannot arm the reconcile timer");
}

void reconcile(struct daemon *d)
{
	struct gpupath_ctl *ctl = ctl_open(d);
	uint64_t t0 = now_ms();
	bool pending;

	if (!ctl)
		return;
	pending = fabric_reconcile(d->fabric, ctl);
	d->pass_ms = now_ms() - t0;
	if (pending)
		soon(d, RETRY_MS);
	log_debug("pass: %llu ms", (unsigned long long)d->pass_ms);
	if (d->ana_ok)
		ana_kick(d->ana);	/* the paths' ANA states, in the poller's thread */
	gpupath_ctl_close(ctl);
}

void tell_dm(struct daemon *d, const char *name)
{
	if (!d->dmctl)
		d->dmctl = ctl_open(d);
	if (!d->dmctl)
		return;
	if (name)
		dmstack_tell(d->dmctl, name);
	else
		dmstack_tell_all(d->dmctl);
}

void untell_dm(struct daemon *d)
{
	if (d->dmctl)
		gpupath_ctl_close(d->dmctl);
	d->dmctl = NULL;
}

void resync(struct daemon *d)
{
	dump(d);
	apply_config(d);
	tell_dm(d, NULL);
	reconcile(d);
}

/* ---- periodic check --------------------------------------------------- */

void arm_timer(struct daemon *d)
{
	int r = sd_event_source_set_time(d->timer, now_us() + (uint64_t)d->interval * 1000000);

	if (r >= 0)
		r = sd_event_source_set_enabled(d->timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_errno(r, "cannot arm the periodic timer");
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)usec;
	if (s == d->timer)
		arm_timer(d);
	if (!d->loaded) {
		log_debug("waiting for gpupath module");
	} else {
		tell_dm(d, NULL);
		reconcile(d);
	}
	return 0;
}

/* A timer on the loop (on_timer()), off until set. */
static int add_timer(struct daemon *d, sd_event_source **s)
{
	int r;

	r = sd_event_add_time(d->event, s, CLOCK_MONOTONIC, 0, TIMER_ACCURACY_US, on_timer, d);
	if (r >= 0)
		r = sd_event_source_set_enabled(*s, SD_EVENT_OFF);
	if (r < 0)
		return log_errno(r, "cannot add a timer to the loop");
	return 0;
}

static int setup_timer(struct daemon *d)
{
	int r = add_timer(d, &d->timer);

	if (!r)
		arm_timer(d);
	return r;
}

/* ---- main ------------------------------------------------------------- */

/* The one-shot timer of the next reconcile pass; the ANA poller. */
static int setup_soon(struct daemon *d)
{
	int r = add_timer(d, &d->soon);

	if (!r) {
		r = ana_new(&d->ana);
		if (r < 0)
			log_errno(r, "cannot start the ANA poller");
	}
	return r;
}

static void teardown(struct daemon *d)
{
	/* First: its thread stops at once, whatever its clients are doing. */
	metrics_close(d->metrics);
	untell_dm(d);
	/* The loop first, with the sources it holds, then what they watch. */
	sd_event_source_unref(d->timer);
	sd_event_source_unref(d->soon);
	sd_event_unref(d->event);
	fabric_free(d->fabric);
	if (d->rt)
		nl_socket_free(d->rt);
	udev_monitor_unref(d->uev);
	udev_unref(d->udev);
	ana_free(d->ana);
	mdns_free(d->mdns);
	if (d->lockfd >= 0)
		close(d->lockfd);
	if (d->mon)
		gpupath_mon_close(d->mon);
	gpupath_conf_free(d->conf);
}

/*
 * The QoS ledger's lock, held while gpupathd runs: gpupathd --release-qos
 * (the package's removal) takes nothing back under a running gpupathd. A
 * gpupathd just told to stop is given 2 s to end.
 */
static void lock_ledger(struct daemon *d)
{
	pid_t holder = 0;
	int i;

	for (i = 0; (d->lockfd = fabric_lock(&holder)) == -EBUSY && i < 20; i++)
		usleep(100 * 1000);
	if (d->lockfd == -EBUSY)
		log_warn("another gpupathd (pid %d) is running: both set the same things",
			 (int)holder);
	else if (d->lockfd < 0)
		log_errno(d->lockfd, "cannot lock the QoS ledger (gpupathd --release-qos "
			  "would not see this gpupathd run)");
}

/*
 * The fabric, the loop's sources and the other threads, in this order:
 * signals are blocked before any thread starts. A negative errno (logged)
 * when one could not be set up.
 */
static int setup(struct daemon *d)
{
	static int (*const step[])(struct daemon *d) = {
		watch_children, setup_signals, setup_soon, watch_links, watch_uevents,
		setup_mdns, subscribe, setup_timer, setup_watchdog,
	};
	int r = fabric_new(&d->fabric);
	size_t i;

	if (r < 0)
		return log_errno(r, "cannot start");
	for (i = 0; r >= 0 && i < sizeof(step) / sizeof(step[0]); i++)
		r = step[i](d);
	if (r >= 0 && d->metrics_port)
		r = metrics_open(&d->metrics, d->metrics_port);
	return r;
}

static int run(struct daemon *opts)
{
	struct daemon d = *opts;
	struct gpupath_conf *none;
	int r;

	d.metrics = NULL;
	d.lockfd = -1;
	log_info("gpupathd %s starting", gpupath_tools_version());
	dmstack_init();
	r = load_config(&d, &none);
	if (r < 0)
		return r;
	lock_ledger(&d);
	r = sd_event_new(&d.event);
	if (r < 0)
		return log_errno(r, "cannot create the event loop");
	r = setup(&d);
	if (r < 0)
		goto out;

	resync(&d);
	notify("READY=1");

	/* The exit code given to sd_event_exit(), or its own failure. */
	r = sd_event_loop(d.event);
	if (r < 0)
		log_errno(r, "the event loop failed");
out:
	teardown(&d);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: gpupathd [OPTION]...\n"
		"The gpupath daemon: follows the gpupath kernel module and keeps its\n"
		"configuration in place.\n"
		"\n"
		"  -c, --config FILE       the configuration (default %s)\n"
		"      --check-config      check the configuration, print every mistake\n"
		"                          with its line, and exit (0: none)\n"
		"      --release-qos       with gpupathd stopped, take back every QoS\n"
		"                          setting gpupathd made on the host's devices,\n"
		"                          name each, and exit (0: none is left)\n"
		"  -f, --foreground        stay in the foreground and log to stderr\n"
		"                          (default: daemonize and log to syslog)\n"
		"  -v, --verbose           also log debug messages\n"
		"      --interval SECONDS  period of the background check, 1..%u\n"
		"                          (default %u)\n"
		"      --metrics-port PORT serve the module's counters for Prometheus at\n"
		"                          http://127.0.0.1:PORT/metrics (localhost only)\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"SIGHUP reloads the configuration; a file with mistakes changes nothing.\n",
		GPUPATH_CONF_FILE, INTERVAL_MAX, INTERVAL_DEFAULT);
}

/* A decimal number, 1..@max. */
static int parse_number(const char *s, unsigned int max, unsigned int *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

static void check_error(void *arg, unsigned int line, const char *msg)
{
	fprintf(stderr, "%s:%u: %s\n", (const char *)arg, line, msg);
}

/* --check-config: 0 when the file has no mistakes. */
static int check_config(const char *path, bool given)
{
	struct gpupath_conf *conf;
	int r;

	r = gpupath_conf_load(path, &conf, check_error, (void *)path);
	if (r == -ENOENT && !given) {
		printf("%s: absent, so it names nothing\n", path);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		fprintf(stderr, "gpupathd: cannot read %s: %s\n", path, gpupath_conf_strerror(r));
		return EXIT_FAILURE;
	}
	if (r > 0)
		fprintf(stderr, "%s: %d mistake%s\n", path, r, r == 1 ? "" : "s");
	else
		printf("%s: good: %zu portal%s, %zu QoS class%s\n", path, conf->nportals,
		       conf->nportals == 1 ? "" : "s", conf->nqos, conf->nqos == 1 ? "" : "es");
	gpupath_conf_free(conf);
	return r ? EXIT_FAILURE : EXIT_SUCCESS;
}

enum { OPT_INTERVAL = 256, OPT_CHECK_CONFIG, OPT_METRICS_PORT, OPT_RELEASE_QOS };

static const struct option options[] = {
	{ "config",	required_argument,	NULL, 'c' },
	{ "check-config", no_argument,		NULL, OPT_CHECK_CONFIG },
	{ "release-qos", no_argument,		NULL, OPT_RELEASE_QOS },
	{ "foreground",	no_argument,		NULL, 'f' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "interval",	required_argument,	NULL, OPT_INTERVAL },
	{ "metrics-port", required_argument,	NULL, OPT_METRICS_PORT },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{}
};

/* What the command line asks for, besides the daemon's settings. */
struct args {
	bool foreground, verbose, check, release;
};

/*
 * The command line into @d and @a. Returns -1 when gpupathd is to go on,
 * or the exit code it is to end with now (--help, --version; 2: a mistake).
 */
static int parse_args(int argc, char **argv, struct daemon *d, struct args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, "c:fvhV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			/* Absolute: the daemon runs from / */
			d->config = realpath(optarg, NULL) ?: optarg;
			d->config_given = true;
			break;
		case OPT_CHECK_CONFIG:
			a->check = true;
			break;
		case OPT_RELEASE_QOS:
			a->release = true;
			break;
		case 'f':
			a->foreground = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case OPT_INTERVAL:
			if (parse_number(optarg, INTERVAL_MAX, &d->interval) < 0) {
				fprintf(stderr,
					"gpupathd: invalid interval '%s': expected seconds, 1..%u\n",
					optarg, INTERVAL_MAX);
				return 2;
			}
			d->interval_fixed = true;
			break;
		case OPT_METRICS_PORT:
			if (parse_number(optarg, 65535, &d->metrics_port) < 0) {
				fprintf(stderr,
					"gpupathd: invalid metrics port '%s': expected 1..65535\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("gpupathd %s\n", gpupath_tools_version());
			return EXIT_SUCCESS;
		default:
			/* getopt_long already named the bad option. */
			fprintf(stderr, "Try 'gpupathd --help' for more information.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpupathd: unexpected argument '%s'\n"
			"Try 'gpupathd --help' for more information.\n", argv[optind]);
		return 2;
	}
	if (a->check && a->release) {
		fprintf(stderr, "gpupathd: --check-config and --release-qos exclude each other\n"
			"Try 'gpupathd --help' for more information.\n");
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct daemon d = { .interval = INTERVAL_DEFAULT, .config = GPUPATH_CONF_FILE };
	struct args a = { 0 };
	int r;

	r = parse_args(argc, argv, &d, &a);
	if (r >= 0)
		return r;
	if (a.check)
		return check_config(d.config, d.config_given);
	if (a.release)
		return fabric_release_qos() ? EXIT_FAILURE : EXIT_SUCCESS;

	log_open(a.foreground, a.verbose);
	if (!a.foreground && daemon(0, 0) < 0) {
		log_errno(-errno, "cannot daemonize");
		log_close();
		return EXIT_FAILURE;
	}
	r = run(&d);
	log_close();
	return r < 0 ? EXIT_FAILURE : r;
}
