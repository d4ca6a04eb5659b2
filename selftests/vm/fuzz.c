// SPDX-License-Identifier: GPL-2.0
/*
 * gp-fuzz: random and structure-aware input for the gpupath module, meant
 * for a debug kernel (KASAN, lockdep, kmemleak, panic_on_warn), where a bug
 * shows as a splat, not as a return value.
 *
 *   gp-fuzz nl    SEED COUNT
 *   gp-fuzz ioctl SEED COUNT BLOCKDEV
 *
 * nl: generic-netlink requests to the gpupath family. Commands are mostly
 * real ones, attributes mostly the family's, nested as the protocol nests
 * them, with values of every width, strings with and without their NUL,
 * names, addresses and device paths that the module might accept, and
 * raw attribute framing that lies about its length. Objects that get made
 * are deleted every so often so the run stays bounded in memory.
 *
 * ioctl: the /dev/gpupath ioctls with argument structures that are mostly
 * well formed: handles from earlier successes, host memory that is mapped
 * or not, aligned or not, lengths around the limits, BLOCKDEV (and other
 * descriptors) for I/O, batches, reaps, eventfds, mmap, close and reopen.
 *
 * Every input comes from a xorshift generator seeded with SEED, so a run
 * is repeated exactly by giving the same SEED and COUNT. The summary counts
 * the outcomes (success, and each errno). Exit 0 unless the harness itself
 * fails; what is being looked for is in the kernel log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/gpupath.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "libgpupath-admin.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* 0..n-1 */
static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* True with probability @pct percent. */
static int chance(unsigned int pct)
{
	return below(100) < pct;
}

/* Outcomes: [0] successes, [e] errno e. */
static unsigned long outcome[512];

static void count(int r)
{
	outcome[r < 0 ? (-r < 512 ? -r : 511) : 0]++;
}

static void summary(const char *what, unsigned long n)
{
	int e;

	printf("%s: %lu inputs: %lu accepted", what, n, outcome[0]);
	for (e = 1; e < 512; e++)
		if (outcome[e])
			printf(", %lu %s", outcome[e], strerror(e));
	printf("\n");
}

static const uint64_t interesting[] = {
	0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 511, 512, 4095, 4096,
	4097, 65535, 65536, 1u << 20, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0x7fffffffffffffffULL, 0xffffffffffffffffULL,
};

static uint64_t value(void)
{
	switch (below(4)) {
	case 0:
		return interesting[below(sizeof(interesting) / sizeof(interesting[0]))];
	case 1:
		return below(8);
	case 2:
		return rnd() & 0xffff;
	default:
		return rnd();
	}
}

/* ---- netlink ---------------------------------------------------------------- */

/* Strings the module parses: names, addresses, NQNs, devices, policies. */
static const char *const words[] = {
	"", "a", "rail1", "tcp", "gold", "b@d", "x/y", "../..", "nqn.2026-11.io.gpupath:fuzz",
	"nqn.2014-08.org.nvmexpress.discovery", "nqn.", "nqn.a b", "10.99.0.1", "::1",
	"fd00::1", "10.99.1", "256.1.1.1", "lo", "veth0", "eth0", "/dev/null", "/dev/nullb0",
	"/dev/nvme0n1", "/dev/gpupath0", "/dev/gpupath", "/dev/zero", "0000:00:04.0",
	"0000:00:03.0", "0000:ff:1f.7", "uuid.5e1f7e57-6a70-4c1d-9c2e-0123456789ab",
	"round-robin", "gpu-affinity",
	"0123456789012345678901234567890123456789012345678901234567890123456789",
};

static void put_string(struct nl_msg *msg, int type)
{
	char buf[600];
	size_t i, n;

	if (chance(60)) {
		const char *w = words[below(sizeof(words) / sizeof(words[0]))];

		nla_put(msg, type, strlen(w) + !chance(10), w);	/* sometimes no NUL */
		return;
	}
	n = below(chance(90) ? 64 : sizeof(buf));
	for (i = 0; i < n; i++)
		buf[i] = chance(90) ? 0x21 + below(94) : rnd();
	nla_put(msg, type, n, buf);
}

static void put_attrs(struct nl_msg *msg, int depth);
static void put_attr_nest(struct nl_msg *msg, int type, int depth);
static void put_attr(struct nl_msg *msg, int type, int depth);

/*
 * ---- the protocol's shape: each object's members and their kinds, as
 * requests carry them (a reply-only member is refused by the strict policy,
 * and comes in only as noise) ----
 */

enum kind { U32, U64, STR, FLAG, RAIL, CONN, APPLIED };

struct member {
	uint16_t type;
	uint8_t kind;
};

struct shape {
	uint16_t type;			/* GPUPATH_A_* of the nest (0: none) */
	const struct member *m;
	unsigned int n;
};

#define SHAPE(t, a) { t, a, sizeof(a) / sizeof(a[0]) }

static const struct member provider_m[] = {
	{ GPUPATH_A_PROVIDER_ID, U32 }, { GPUPATH_A_PROVIDER_PCI_DEV, STR },
};

static const struct member volume_m[] = {
	{ GPUPATH_A_VOLUME_ID, U32 }, { GPUPATH_A_VOLUME_NAME, STR },
	{ GPUPATH_A_VOLUME_WWID, STR }, { GPUPATH_A_VOLUME_POLICY, U32 },
	{ GPUPATH_A_VOLUME_FALLBACK, U32 }, { GPUPATH_A_VOLUME_QUEUE_TIMEOUT, U32 },
};

static const struct member path_m[] = {
	{ GPUPATH_A_PATH_ID, U32 }, { GPUPATH_A_PATH_VOLUME, U32 },
	{ GPUPATH_A_PATH_DEVICE, STR }, { GPUPATH_A_PATH_STATE, U32 },
	{ GPUPATH_A_PATH_WEIGHT, U32 }, { GPUPATH_A_PATH_RAIL, U32 },
	{ GPUPATH_A_PATH_LINK, U32 },
};

static const struct member portal_m[] = {
	{ GPUPATH_A_PORTAL_ID, U32 }, { GPUPATH_A_PORTAL_NAME, STR },
	{ GPUPATH_A_PORTAL_TRANSPORT, U32 }, { GPUPATH_A_PORTAL_TRADDR, STR },
	{ GPUPATH_A_PORTAL_TRSVCID, U32 }, { GPUPATH_A_PORTAL_SUBSYSNQN, STR },
	{ GPUPATH_A_PORTAL_RAIL, RAIL }, { GPUPATH_A_PORTAL_QOS, STR },
	{ GPUPATH_A_PORTAL_CTRL_LOSS_TMO, U32 }, { GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO, U32 },
	{ GPUPATH_A_PORTAL_RECONNECT_DELAY, U32 }, { GPUPATH_A_PORTAL_NR_IO_QUEUES, U32 },
	{ GPUPATH_A_PORTAL_CONN, CONN }, { GPUPATH_A_PORTAL_CONN_CLEAR, FLAG },
	{ GPUPATH_A_PORTAL_HOST_NQN, STR }, { GPUPATH_A_PORTAL_HOST_ID, STR },
	{ GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE, STR },
	{ GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE, STR },
};

static const struct member rail_m[] = {
	{ GPUPATH_A_RAIL_ID, U32 }, { GPUPATH_A_RAIL_IFACE, STR }, { GPUPATH_A_RAIL_ADDR, STR },
};

static const struct member conn_m[] = {
	{ GPUPATH_A_CONN_RAIL, U32 }, { GPUPATH_A_CONN_SUBSYSNQN, STR },
	{ GPUPATH_A_CONN_TRADDR, STR }, { GPUPATH_A_CONN_STATE, U32 },
	{ GPUPATH_A_CONN_CONTROLLER, STR }, { GPUPATH_A_CONN_ATTEMPTS, U32 },
	{ GPUPATH_A_CONN_ERROR, U32 }, { GPUPATH_A_CONN_RETRY_MS, U32 },
	{ GPUPATH_A_CONN_TRSVCID, U32 },
};

static const struct member qos_m[] = {
	{ GPUPATH_A_QOS_NAME, STR }, { GPUPATH_A_QOS_DSCP, U32 },
	{ GPUPATH_A_QOS_PRIORITY, U32 }, { GPUPATH_A_QOS_PFC, U32 },
	{ GPUPATH_A_QOS_ETS, U32 }, { GPUPATH_A_QOS_APPLIED, APPLIED },
	{ GPUPATH_A_QOS_APPLIED_CLEAR, FLAG },
};

static const struct member applied_m[] = {
	{ GPUPATH_A_APPLIED_DEVICE, STR }, { GPUPATH_A_APPLIED_SETTING, STR },
	{ GPUPATH_A_APPLIED_RESULT, U32 }, { GPUPATH_A_APPLIED_ERROR, U32 },
	{ GPUPATH_A_APPLIED_VALUE, U32 },
};

static const struct shape shapes[] = {
	SHAPE(GPUPATH_A_PROVIDER, provider_m), SHAPE(GPUPATH_A_VOLUME, volume_m),
	SHAPE(GPUPATH_A_PATH, path_m), SHAPE(GPUPATH_A_PORTAL, portal_m),
	SHAPE(GPUPATH_A_QOS, qos_m),
};

static const struct shape rail_shape = SHAPE(0, rail_m);
static const struct shape conn_shape = SHAPE(0, conn_m);
static const struct shape applied_shape = SHAPE(0, applied_m);

/* The object a command is about, or NULL (GET_INFO, EVENT, unknown). */
static const struct shape *shape_of(uint8_t cmd)
{
	if (cmd >= GPUPATH_CMD_PROVIDER_GET && cmd <= GPUPATH_CMD_PROVIDER_DEL)
		return &shapes[0];
	if (cmd >= GPUPATH_CMD_VOLUME_GET && cmd <= GPUPATH_CMD_VOLUME_SET)
		return &shapes[1];
	if (cmd >= GPUPATH_CMD_PATH_GET && cmd <= GPUPATH_CMD_PATH_SET)
		return &shapes[2];
	if (cmd >= GPUPATH_CMD_PORTAL_GET && cmd <= GPUPATH_CMD_PORTAL_SET)
		return &shapes[3];
	if (cmd >= GPUPATH_CMD_QOS_GET && cmd <= GPUPATH_CMD_QOS_SET)
		return &shapes[4];
	return NULL;
}

/* A u32 as the module reads them: small ids and enums, mostly. */
static uint32_t a_u32(void)
{
	return chance(70) ? below(8) : (uint32_t)value();
}

static void put_string(struct nl_msg *msg, int type);

/* Members of @s, each with the kind the policy wants, now and then not. */
static void put_shaped(struct nl_msg *msg, const struct shape *s, int depth)
{
	unsigned int i, n = 1 + below(s->n + 2);
	const struct member *m;
	struct nlattr *nest;

	for (i = 0; i < n; i++) {
		m = &s->m[below(s->n)];
		if (chance(5) || depth > 3) {
			put_attr(msg, chance(50) ? m->type : 1 + below(40), depth);
			continue;
		}
		switch (m->kind) {
		case U32:
			nla_put_u32(msg, m->type, a_u32());
			break;
		case U64:
			nla_put_u64(msg, m->type, value());
			break;
		case STR:
			put_string(msg, m->type);
			break;
		case FLAG:
			nla_put_flag(msg, m->type);
			break;
		default:
			nest = nla_nest_start(msg, m->type);
			if (!nest)
				return;
			put_shaped(msg, m->kind == RAIL ? &rail_shape :
				   m->kind == CONN ? &conn_shape : &applied_shape, depth + 1);
			nla_nest_end(msg, nest);
			break;
		}
	}
}

static void put_attr(struct nl_msg *msg, int type, int depth)
{
	unsigned char raw[300];
	struct nlattr *nest;
	uint64_t v = value();
	size_t i, n;

	switch (below(depth < 3 ? 8 : 7)) {
	case 0:
		nla_put_u8(msg, type, v);
		break;
	case 1:
		nla_put_u16(msg, type, v);
		break;
	case 2:
	case 3:
		nla_put_u32(msg, type, v);
		break;
	case 4:
		nla_put_u64(msg, type, v);
		break;
	case 5:
		put_string(msg, type);
		break;
	case 6:
		n = below(sizeof(raw));
		for (i = 0; i < n; i++)
			raw[i] = rnd();
		nla_put(msg, type, n, raw);
		break;
	default:
		nest = nla_nest_start(msg, type);
		if (!nest)
			return;
		put_attrs(msg, depth + 1);
		nla_nest_end(msg, nest);
		break;
	}
}

/* A header that lies: nla_len past the end, below the header, or odd. */
static void put_broken(struct nl_msg *msg)
{
	struct nlattr h = {
		.nla_len = chance(50) ? below(8) : 4 + below(2000),
		.nla_type = chance(50) ? (uint16_t)rnd() : 1 + below(GPUPATH_A_MAX),
	};
	unsigned char pad[12];
	size_t i;

	for (i = 0; i < sizeof(pad); i++)
		pad[i] = rnd();
	nlmsg_append(msg, &h, sizeof(h), 0);
	nlmsg_append(msg, pad, below(sizeof(pad)), 0);
}

static void put_attrs(struct nl_msg *msg, int depth)
{
	unsigned int i, n = below(depth ? 10 : 4) + !depth;
	int type;

	for (i = 0; i < n; i++) {
		if (chance(3)) {
			put_broken(msg);
			return;	/* nothing well framed can follow */
		}
		/* Member ids of the family's nests run to about 30. */
		type = chance(85) ? (depth ? 1 + below(32) : 1 + below(GPUPATH_A_MAX)) :
			(int)(rnd() & 0xffff);
		if (!depth && chance(90))
			put_attr_nest(msg, type, depth);
		else
			put_attr(msg, type & ~NLA_F_NESTED, depth);
	}
}

/* A top-level attribute: nearly always a nest, as every object is one. */
static void put_attr_nest(struct nl_msg *msg, int type, int depth)
{
	struct nlattr *nest = nla_nest_start(msg, type & ~NLA_F_NESTED);

	if (!nest)
		return;
	put_attrs(msg, depth + 1);
	nla_nest_end(msg, nest);
}

struct reply {
	int done;
	int error;
};

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct reply *r = arg;

	(void)nla;
	r->error = err->error;
	r->done = 1;
	return NL_STOP;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;

	(void)msg;
	r->done = 1;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* Delete what the fuzzing made: volumes, portals, QoS classes, providers. */
static void clean(void)
{
	struct gpupath_provider *prov;
	struct gpupath_volume *vol;
	struct gpupath_portal *portal;
	struct gpupath_qos *qos;
	struct gpupath_ctl *ctl;
	size_t i, n;

	if (gpupath_ctl_open(&ctl) < 0)
		return;
	if (!gpupath_ctl_volume_list(ctl, &vol, sizeof(*vol), &n)) {
		for (i = 0; i < n; i++)
			gpupath_ctl_volume_del(ctl, vol[i].id);
		free(vol);
	}
	if (!gpupath_ctl_portal_list(ctl, &portal, sizeof(*portal), &n)) {
		for (i = 0; i < n; i++)
			gpupath_ctl_portal_del(ctl, portal[i].id, NULL);
		free(portal);
	}
	if (!gpupath_ctl_qos_list(ctl, &qos, sizeof(*qos), &n)) {
		for (i = 0; i < n; i++)
			gpupath_ctl_qos_del(ctl, qos[i].name);
		free(qos);
	}
	if (!gpupath_ctl_provider_list(ctl, &prov, sizeof(*prov), &n)) {
		for (i = 0; i < n; i++)
			gpupath_ctl_provider_del(ctl, prov[i].id);
		free(prov);
	}
	gpupath_ctl_close(ctl);
}

static int fuzz_nl(unsigned long n)
{
	struct reply reply;
	struct nl_sock *sk;
	struct nl_msg *msg;
	unsigned long i;
	int family, r;
	uint8_t cmd;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0) {
		fprintf(stderr, "gp-fuzz: no generic netlink\n");
		return 1;
	}
	family = genl_ctrl_resolve(sk, GPUPATH_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "gp-fuzz: no gpupath family: %s\n", nl_geterror(family));
		return 1;
	}
	nl_socket_set_buffer_size(sk, 1 << 20, 1 << 20);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &reply);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &reply);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_finish, &reply);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &reply);
	for (i = 0; i < n; i++) {
		if (i % (n / 10 ? n / 10 : 1) == 0)
			fprintf(stderr, "gp-fuzz: nl input %lu\n", i);
		if (i && i % 2000 == 0)
			clean();
		msg = nlmsg_alloc_size(65536);
		if (!msg)
			return 1;
		cmd = chance(85) ? below(GPUPATH_CMD_MAX + 1) : (uint8_t)rnd();
		/* A dump ends with NLMSG_DONE, anything else with its ACK. */
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			    chance(15) ? NLM_F_DUMP : NLM_F_ACK, cmd,
			    chance(95) ? GPUPATH_GENL_VERSION : (uint8_t)rnd());
		/* Mostly the command's own object, as the protocol shapes it. */
		if (shape_of(cmd) && chance(80) && !(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP &&
						      chance(50))) {
			struct nlattr *nest = nla_nest_start(msg, shape_of(cmd)->type);

			if (nest) {
				put_shaped(msg, shape_of(cmd), 0);
				nla_nest_end(msg, nest);
			}
			if (chance(10))
				put_attrs(msg, 0);
		} else if (!(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP)) {
			put_attrs(msg, 0);
		}
		memset(&reply, 0, sizeof(reply));
		r = nl_send_auto(sk, msg);
		nlmsg_free(msg);
		if (r < 0) {
			count(-EMSGSIZE);
			continue;
		}
		while (!reply.done) {
			r = nl_recvmsgs_default(sk);
			if (r < 0 && r != -NLE_AGAIN && !reply.done) {
				reply.error = -EPROTO;
				break;
			}
		}
		count(reply.error);
	}
	clean();
	nl_socket_free(sk);
	summary("netlink", n);
	return 0;
}

/* ---- ioctl ---------------------------------------------------------------- */

#define HANDLES 16
#define MEM_SIZE (4u << 20)

struct state {
	int fd;
	int blk, blk_ro;
	int efd;
	unsigned char *mem;	/* mapped host memory */
	unsigned char *hole;	/* reserved, not mapped */
	uint64_t handle[HANDLES];
	unsigned int nhandles;
};

static uint64_t a_handle(const struct state *s)
{
	if (s->nhandles && chance(80))
		return s->handle[below(s->nhandles)];
	return value();
}

static void keep_handle(struct state *s, uint64_t h)
{
	s->handle[s->nhandles < HANDLES ? s->nhandles++ : below(HANDLES)] = h;
}

/* A user address: ours (aligned or not), unmapped, NULL or the kernel's. */
static uint64_t an_addr(const struct state *s)
{
	switch (below(8)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)s->hole + below(16) * 4096;
	case 2:
		return 0xffff888000000000ULL + (rnd() & 0xfffff000);
	case 3:
		return (uintptr_t)s->mem + below(MEM_SIZE);
	default:
		return (uintptr_t)s->mem + below(MEM_SIZE / 4096) * 4096;
	}
}

static uint64_t a_size(void)
{
	if (chance(70))
		return (1 + below(64)) * 4096;
	return value();
}

static int a_fd(const struct state *s)
{
	switch (below(10)) {
	case 0:
		return -1;
	case 1:
		return s->fd;
	case 2:
		return s->efd;
	case 3:
		return 0;
	case 4:
		return s->blk_ro;
	case 5:
		return (int)value();
	default:
		return s->blk;
	}
}

static void an_io(const struct state *s, struct gpupath_io *io)
{
	io->handle = a_handle(s);
	io->buf_offset = chance(70) ? below(64) * 512 : value();
	io->dev_offset = chance(70) ? below(4096) * 512 : value();
	io->len = chance(70) ? (1 + below(256)) * 512 : value();
	io->fd = a_fd(s);
	io->op = chance(90) ? 1 + below(2) : (uint32_t)value();
	io->flags = chance(95) ? 0 : value();
	io->mode = chance(95) ? 0 : value();
	io->reason = chance(95) ? 0 : value();
	io->pad = chance(95) ? 0 : value();
	io->user_data = rnd();
}

static int do_ioctl(struct state *s, unsigned long req, void *arg)
{
	int r = ioctl(s->fd, req, arg);

	return r < 0 ? -errno : r;
}

static void one_ioctl(struct state *s)
{
	union {
		struct gpupath_version ver;
		struct gpupath_alloc alloc;
		struct gpupath_host_reg host;
		struct gpupath_cuda_reg cuda;
		struct gpupath_io io;
		struct gpupath_submit submit;
		struct gpupath_reap reap;
		uint64_t u64;
		int32_t s32;
		unsigned char raw[256];
	} a;
	static struct gpupath_io ios[64];
	static struct gpupath_completion comps[64];
	unsigned int i, nr;
	unsigned long req;
	void *p;
	int r;

	memset(&a, 0, sizeof(a));
	if (chance(2)) {
		/* A whole new file: the old one's buffers go with it. */
		close(s->fd);
		s->fd = open("/dev/" GPUPATH_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		s->nhandles = 0;
		count(s->fd < 0 ? -errno : 0);
		return;
	}
	if (chance(3)) {
		size_t len = a_size() & 0xffffff;

		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 chance(80) ? MAP_SHARED : MAP_PRIVATE, s->fd,
			 chance(80) ? (off_t)(a_handle(s) & ~0xfffULL) : (off_t)value());
		count(p == MAP_FAILED ? -errno : 0);
		if (p != MAP_FAILED) {
			if (chance(50))
				memset(p, 0x5a, 4096);	/* touch it */
			if (len > 4096 && chance(30))
				count(munmap(p, 4096) ? -errno : 0);	/* a part: refused */
			munmap(p, len);
		}
		return;
	}
	nr = chance(90) ? below(9) : (uint32_t)rnd() & 0xff;
	switch (nr) {
	case 0:
		req = GPUPATH_IOC_VERSION;
		break;
	case 1:
		req = GPUPATH_IOC_ALLOC;
		a.alloc.provider = chance(80) ? below(4) : value();
		a.alloc.flags = chance(90) ? 0 : value();
		a.alloc.size = a_size();
		a.alloc.pad = chance(90) ? 0 : value();
		break;
	case 2:
		req = GPUPATH_IOC_REG_HOST;
		a.host.addr = an_addr(s);
		a.host.size = a_size();
		a.host.flags = chance(90) ? 0 : value();
		a.host.pad = chance(90) ? 0 : value();
		break;
	case 3:
		req = GPUPATH_IOC_FREE;
		a.u64 = a_handle(s);
		break;
	case 4:
		req = GPUPATH_IOC_IO;
		an_io(s, &a.io);
		break;
	case 5:
		req = GPUPATH_IOC_SUBMIT;
		for (i = 0; i < 64; i++)
			an_io(s, &ios[i]);
		a.submit.ios = chance(90) ? (uintptr_t)ios : an_addr(s);
		a.submit.count = chance(90) ? below(65) : value();
		a.submit.flags = chance(95) ? 0 : value();
		break;
	case 6:
		req = GPUPATH_IOC_REAP;
		a.reap.completions = chance(90) ? (uintptr_t)comps : an_addr(s);
		a.reap.max = chance(90) ? below(65) : value();
		break;
	case 7:
		req = GPUPATH_IOC_SET_EVENTFD;
		a.s32 = a_fd(s);
		break;
	case 8:
		req = GPUPATH_IOC_REG_CUDA;
		a.cuda.addr = an_addr(s);
		a.cuda.size = a_size();
		break;
	default:
		req = _IOC(below(4), GPUPATH_IOC_MAGIC, nr, below(sizeof(a)));
		for (i = 0; i < sizeof(a.raw); i++)
			a.raw[i] = rnd();
		break;
	}
	if (chance(3))	/* the right number with the wrong size or direction */
		req = _IOC(below(4), GPUPATH_IOC_MAGIC, _IOC_NR(req), below(sizeof(a)));
	r = do_ioctl(s, req, chance(97) ? (void *)&a : (void *)(uintptr_t)an_addr(s));
	count(r);
	if (r >= 0 && nr == 1)
		keep_handle(s, a.alloc.handle);
	if (r >= 0 && nr == 2)
		keep_handle(s, a.host.handle);
}

static int fuzz_ioctl(unsigned long n, const char *blockdev)
{
	struct state s = { 0 };
	unsigned long i;

	s.fd = open("/dev/" GPUPATH_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	s.blk = open(blockdev, O_RDWR | O_CLOEXEC);
	s.blk_ro = open(blockdev, O_RDONLY | O_CLOEXEC);
	s.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s.mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s.hole = mmap(NULL, 64 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s.fd < 0 || s.blk < 0 || s.blk_ro < 0 || s.efd < 0 || s.mem == MAP_FAILED ||
	    s.hole == MAP_FAILED) {
		fprintf(stderr, "gp-fuzz: cannot set up (/dev/%s, %s): %s\n",
			GPUPATH_DEVICE_NAME, blockdev, strerror(errno));
		return 1;
	}
	memset(s.mem, 0xa5, MEM_SIZE);
	for (i = 0; i < n; i++) {
		if (i % (n / 10 ? n / 10 : 1) == 0)
			fprintf(stderr, "gp-fuzz: ioctl input %lu\n", i);
		one_ioctl(&s);
		if (s.fd < 0)
			s.fd = open("/dev/" GPUPATH_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	}
	if (s.fd >= 0)
		close(s.fd);
	summary("ioctl", n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n;
	char *end;

	if (argc < 4 || (!strcmp(argv[1], "ioctl") && argc != 5) ||
	    (strcmp(argv[1], "nl") && strcmp(argv[1], "ioctl"))) {
		fprintf(stderr, "Usage: gp-fuzz nl SEED COUNT\n"
			"       gp-fuzz ioctl SEED COUNT BLOCKDEV\n");
		return 2;
	}
	rng_state = strtoull(argv[2], &end, 0) * 0x9E3779B97F4A7C15ULL + 1;
	if (*end) {
		fprintf(stderr, "gp-fuzz: SEED '%s' is not a number\n", argv[2]);
		return 2;
	}
	n = strtoul(argv[3], &end, 0);
	if (*end || !n) {
		fprintf(stderr, "gp-fuzz: COUNT '%s' is not a positive number\n", argv[3]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "nl"))
		return fuzz_nl(n);
	return fuzz_ioctl(n, argv[4]);
}
