// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gpupathd's ETS tables (daemon/dcb.c): a QoS class's share
 * merged into the NIC's table, leaving strict and vendor traffic classes
 * (a RoCE NIC's CNP class, say) as they are, and the table put back as it
 * was found when the last class with a share goes, except what others
 * changed since. A fake NIC stands for dcbnl: what is written is what is
 * read back, and a table whose ETS shares do not add up to 100% is refused,
 * as mlx5 refuses it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dcbnl.h>

#include "harness.h"
#include "../../daemon/dcb.h"
#include "../../daemon/ledger.h"

#define ETS	IEEE_8021QAZ_TSA_ETS
#define STRICT	IEEE_8021QAZ_TSA_STRICT
#define VENDOR	IEEE_8021QAZ_TSA_VENDOR

/*
 * A ConnectX port as mlnx_qos leaves it for RoCE: ets_cap 8, mlx5's
 * priority map (priority 0 in traffic class 1, 1 in 0, the others in their
 * own), CNPs on priority 7 in a strict traffic class 7, traffic class 6
 * left to the vendor's scheduling, and the other six ETS. mlx5 reads a
 * strict or vendor class's share back as 100.
 */
static const struct ets_map mlx5 = {
	.prio_tc = { 1, 0, 2, 3, 4, 5, 6, 7 },
	.tc_tsa = { ETS, ETS, ETS, ETS, ETS, ETS, VENDOR, STRICT },
	.tc_tx_bw = { 16, 16, 17, 17, 17, 17, 100, 100 },
};

/* mlx5's own table before anyone sets one: every traffic class vendor. */
static const struct ets_map mlx5_default = {
	.prio_tc = { 1, 0, 2, 3, 4, 5, 6, 7 },
	.tc_tsa = { VENDOR, VENDOR, VENDOR, VENDOR, VENDOR, VENDOR, VENDOR, VENDOR },
	.tc_tx_bw = { 100, 100, 100, 100, 100, 100, 100, 100 },
};

/* Every priority in traffic class 0 with all of the link (ice, say). */
static const struct ets_map flat = {
	.prio_tc = { 0, 0, 0, 0, 0, 0, 0, 0 },
	.tc_tsa = { ETS, ETS, ETS, ETS, ETS, ETS, ETS, ETS },
	.tc_tx_bw = { 100, 0, 0, 0, 0, 0, 0, 0 },
};

struct nic {
	const char *name;
	unsigned int cap;	/* ets_cap */
	struct ets_map t;	/* the table on the device */
	unsigned int writes;
};

static struct gpupath_qos class(const char *name, uint32_t priority, uint32_t ets)
{
	struct gpupath_qos q;

	memset(&q, 0, sizeof(q));
	snprintf(q.name, sizeof(q.name), "%s", name);
	q.dscp = 26;
	q.priority = priority;
	q.ets = ets;
	return q;
}

/* A write dcbnl would pass on: the driver refuses a table it cannot take. */
static int nic_write(struct nic *nic, const struct ets_map *t)
{
	if (!ets_valid(t))
		return -EINVAL;
	if (memcmp(t, &nic->t, sizeof(*t))) {
		nic->t = *t;
		nic->writes++;
	}
	return 0;
}

/*
 * One of gpupathd's passes over @nic, as dcb_apply and converge_qos go
 * about it: gpupathd's part of the table for the classes @c when one has a
 * share, then what the ledger @l holds and no class wants put back. @err:
 * each priority's result. Returns the first error (ets_plan's, a refused
 * write, ets_restore's), or 0.
 */
static int pass(struct ledger *l, struct nic *nic, const struct gpupath_qos *const *c,
		unsigned int n, int err[8])
{
	struct ets_map base, want, back;
	struct mark *undo;
	size_t nundo, i;
	bool any = false;
	int r = 0, u;

	memset(err, 0, 8 * sizeof(*err));
	ledger_begin(l);
	for (i = 0; i < n; i++)
		any |= c[i]->ets != 0;
	if (any) {
		r = ets_plan(l, nic->name, &nic->t, nic->cap, c, n, &base, &want, err);
		if (!r) {
			bool changed = memcmp(&want, &nic->t, sizeof(want)) != 0;

			r = nic_write(nic, &want);
			if (!r)
				ledger_want_ets(l, nic->name, &base, &nic->t, changed);
		}
		if (r)
			ledger_want(l, nic->name, MARK_ETS, 0, 0, false);
	}
	if (ledger_unwanted(l, &undo, &nundo) < 0)
		return -ENOMEM;
	for (i = 0; i < nundo; i++) {
		u = ets_restore(&undo[i], &nic->t, &back);
		if (!u)
			u = nic_write(nic, &back);
		if (u && !r)
			r = u;
	}
	free(undo);
	return r;
}

static unsigned int ets_sum(const struct ets_map *t)
{
	unsigned int tc, sum = 0;

	for (tc = 0; tc < 8; tc++)
		if (t->tc_tsa[tc] == ETS)
			sum += t->tc_tx_bw[tc];
	return sum;
}

/* Priorities in traffic class @tc. */
static unsigned int in_tc(const struct ets_map *t, unsigned int tc)
{
	unsigned int p, users = 0;

	for (p = 0; p < 8; p++)
		if (t->prio_tc[p] == tc)
			users |= 1u << p;
	return users;
}

#define EXPECT_TABLE(want, seen)	EXPECT_EQ(0, memcmp(&(want), &(seen), sizeof(want)))

TEST(the_strict_cnp_class_and_the_vendor_class_survive_a_class)
{
	struct gpupath_qos gold = class("gold", 3, 50);
	const struct gpupath_qos *c[] = { &gold };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	unsigned int tc;
	int err[8];

	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(0, err[3]);
	EXPECT_EQ(1, nic.writes);
	/* CNPs: priority 7, alone in strict traffic class 7, as it was. */
	EXPECT_EQ(7, nic.t.prio_tc[7]);
	EXPECT_EQ(STRICT, nic.t.tc_tsa[7]);
	EXPECT_EQ(100, nic.t.tc_tx_bw[7]);
	EXPECT_EQ(1u << 7, in_tc(&nic.t, 7));
	/* The vendor's traffic class 6 and its priority. */
	EXPECT_EQ(6, nic.t.prio_tc[6]);
	EXPECT_EQ(VENDOR, nic.t.tc_tsa[6]);
	EXPECT_EQ(100, nic.t.tc_tx_bw[6]);
	/* The class: priority 3 alone in an ETS traffic class with 50%. */
	tc = nic.t.prio_tc[3];
	EXPECT_EQ(ETS, nic.t.tc_tsa[tc]);
	EXPECT_EQ(50, nic.t.tc_tx_bw[tc]);
	EXPECT_EQ(1u << 3, in_tc(&nic.t, tc));
	/* The other priorities where they were. */
	EXPECT_EQ(1, nic.t.prio_tc[0]);
	EXPECT_EQ(0, nic.t.prio_tc[1]);
	EXPECT_EQ(2, nic.t.prio_tc[2]);
	EXPECT_EQ(4, nic.t.prio_tc[4]);
	EXPECT_EQ(5, nic.t.prio_tc[5]);
	/* A second pass finds it as wanted and writes nothing. */
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(1, nic.writes);
	ledger_free(&l);
}

TEST(the_ets_shares_add_up_to_100)
{
	struct gpupath_qos gold = class("gold", 3, 50), silver = class("silver", 4, 20);
	struct gpupath_qos bronze = class("bronze", 2, 0);	/* no share */
	const struct gpupath_qos *c[] = { &gold, &silver, &bronze };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	unsigned int tc;
	int err[8];

	ASSERT_EQ(0, pass(&l, &nic, c, 3, err));
	EXPECT_EQ(100, ets_sum(&nic.t));
	EXPECT_EQ(50, nic.t.tc_tx_bw[nic.t.prio_tc[3]]);
	EXPECT_EQ(20, nic.t.tc_tx_bw[nic.t.prio_tc[4]]);
	/* What is left, 30%, in proportion to what the others had (16:16:17:17). */
	EXPECT_EQ(30, nic.t.tc_tx_bw[0] + nic.t.tc_tx_bw[1] + nic.t.tc_tx_bw[2] +
		      nic.t.tc_tx_bw[5]);
	for (tc = 0; tc < 6; tc++)
		if (tc != 3 && tc != 4)
			EXPECT_TRUE(nic.t.tc_tx_bw[tc] >= 7 && nic.t.tc_tx_bw[tc] <= 8);
	ledger_free(&l);

	/* Every priority in traffic class 0: the class gets an empty one. */
	nic = (struct nic){ "eth2", 8, flat, 0 };
	ASSERT_EQ(0, pass(&l, &nic, c, 2, err));
	EXPECT_EQ(100, ets_sum(&nic.t));
	EXPECT_EQ(1, nic.t.prio_tc[3]);
	EXPECT_EQ(2, nic.t.prio_tc[4]);
	EXPECT_EQ(30, nic.t.tc_tx_bw[0]);
	EXPECT_EQ(50, nic.t.tc_tx_bw[1]);
	EXPECT_EQ(20, nic.t.tc_tx_bw[2]);
	ledger_free(&l);
}

TEST(a_priority_in_a_strict_class_is_not_moved)
{
	struct gpupath_qos cnp = class("cnp", 7, 20);
	const struct gpupath_qos *c[] = { &cnp };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	int err[8];

	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(-EBUSY, err[7]);
	EXPECT_TABLE(mlx5, nic.t);
	EXPECT_EQ(0, nic.writes);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);
}

TEST(vendor_classes_are_left_to_the_vendor)
{
	struct gpupath_qos gold = class("gold", 3, 50);
	const struct gpupath_qos *c[] = { &gold };
	struct nic nic = { "eth1", 8, mlx5_default, 0 };
	struct ledger l = { 0 };
	int err[8];

	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(-EBUSY, err[3]);
	EXPECT_TABLE(mlx5_default, nic.t);
	EXPECT_EQ(0, nic.writes);
	ledger_free(&l);
}

TEST(traffic_classes_past_ets_cap_are_not_used)
{
	/* ets_cap 4: traffic class 4 is ETS, but past it. */
	static const struct ets_map four = {
		.prio_tc = { 0, 0, 1, 1, 2, 2, 3, 3 },
		.tc_tsa = { ETS, ETS, ETS, STRICT, ETS, STRICT, STRICT, STRICT },
		.tc_tx_bw = { 40, 30, 30, 100, 0, 0, 0, 0 },
	};
	struct gpupath_qos gold = class("gold", 2, 50);
	const struct gpupath_qos *c[] = { &gold };
	struct nic nic = { "eth1", 4, four, 0 };
	struct ledger l = { 0 };
	int err[8];

	/* Priority 2 shares traffic class 1, and no ETS class below 4 is empty. */
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(-ENOSPC, err[2]);
	EXPECT_TABLE(four, nic.t);
	EXPECT_EQ(0, nic.writes);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);
}

TEST(an_ets_class_is_left_for_the_other_priorities)
{
	/* Three ETS traffic classes, priorities 0, 1, 2 each alone in one. */
	static const struct ets_map three = {
		.prio_tc = { 0, 1, 2, 3, 3, 3, 3, 3 },
		.tc_tsa = { ETS, ETS, ETS, STRICT, STRICT, STRICT, STRICT, STRICT },
		.tc_tx_bw = { 40, 30, 30, 100, 0, 0, 0, 0 },
	};
	struct gpupath_qos a = class("a", 0, 30), b = class("b", 1, 30), d = class("d", 2, 30);
	const struct gpupath_qos *c[] = { &a, &b, &d };
	struct ets_map t = three;
	int err[8];

	/* 90% for three classes: the last gives its traffic class up to the 10% left. */
	ASSERT_EQ(0, ets_merge(&t, 4, c, 3, err));
	EXPECT_EQ(0, err[0]);
	EXPECT_EQ(0, err[1]);
	EXPECT_EQ(-ENOSPC, err[2]);
	EXPECT_EQ(30, t.tc_tx_bw[0]);
	EXPECT_EQ(30, t.tc_tx_bw[1]);
	EXPECT_EQ(40, t.tc_tx_bw[2]);
	EXPECT_EQ(100, ets_sum(&t));
	EXPECT_EQ(STRICT, t.tc_tsa[3]);
	/* 100% for the three: each has its own. */
	a.ets = 40;
	t = three;
	ASSERT_EQ(0, ets_merge(&t, 4, c, 3, err));
	EXPECT_EQ(0, err[2]);
	EXPECT_EQ(30, t.tc_tx_bw[2]);
	EXPECT_EQ(100, ets_sum(&t));
	/* More than 100%: nothing made. */
	a.ets = 50;
	t = three;
	EXPECT_EQ(-EINVAL, ets_merge(&t, 4, c, 3, err));
	EXPECT_TABLE(three, t);
}

TEST(removing_the_class_puts_the_table_back)
{
	struct gpupath_qos gold = class("gold", 3, 50), silver = class("silver", 4, 20);
	const struct gpupath_qos *both[] = { &gold, &silver };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	int err[8];

	ASSERT_EQ(0, pass(&l, &nic, both, 2, err));
	EXPECT_EQ(1, l.n);
	/* silver goes: priority 4 is back alone in traffic class 4. */
	ASSERT_EQ(0, pass(&l, &nic, both, 1, err));
	EXPECT_EQ(4, nic.t.prio_tc[4]);
	EXPECT_EQ(50, nic.t.tc_tx_bw[3]);
	EXPECT_EQ(100, ets_sum(&nic.t));
	/* gold's share taken away (ets 0): the table as it was found. */
	gold.ets = 0;
	ASSERT_EQ(0, pass(&l, &nic, both, 1, err));
	EXPECT_TABLE(mlx5, nic.t);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);
}

TEST(a_restarted_gpupathd_still_puts_the_table_back)
{
	struct gpupath_qos gold = class("gold", 3, 50), silver = class("silver", 4, 20);
	const struct gpupath_qos *both[] = { &gold, &silver };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 }, back = { 0 };
	char path[] = "/tmp/dcb-test-XXXXXX";
	int err[8], fd = mkstemp(path);

	ASSERT_NE(-1, fd);
	close(fd);
	ASSERT_EQ(0, pass(&l, &nic, both, 2, err));
	ASSERT_EQ(0, ledger_save(&l, path));
	ledger_free(&l);
	/* The classes deleted while gpupathd was away. */
	ASSERT_EQ(0, ledger_load(&back, path));
	unlink(path);
	ASSERT_EQ(0, pass(&back, &nic, NULL, 0, err));
	EXPECT_TABLE(mlx5, nic.t);
	EXPECT_EQ(0, back.n);
	ledger_free(&back);
}

TEST(a_table_found_as_wanted_is_not_taken_back)
{
	struct gpupath_qos gold = class("gold", 3, 50);
	const struct gpupath_qos *c[] = { &gold };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	struct ets_map set;
	int err[8];

	/* An administrator made the table gpupathd would make, before it. */
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	set = nic.t;
	ledger_free(&l);
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(0, l.n);
	ASSERT_EQ(0, pass(&l, &nic, NULL, 0, err));
	EXPECT_TABLE(set, nic.t);
	ledger_free(&l);
}

TEST(what_others_changed_since_is_not_overwritten)
{
	struct gpupath_qos gold = class("gold", 3, 50);
	const struct gpupath_qos *c[] = { &gold };
	struct nic nic = { "eth1", 8, mlx5, 0 };
	struct ledger l = { 0 };
	struct ets_map want = mlx5;
	int err[8];

	/* Traffic class 6 made strict after gpupathd wrote the table. */
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	nic.t.tc_tsa[6] = STRICT;
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(STRICT, nic.t.tc_tsa[6]);
	EXPECT_EQ(50, nic.t.tc_tx_bw[nic.t.prio_tc[3]]);
	/* The class goes: the rest is put back, traffic class 6 stays strict. */
	ASSERT_EQ(0, pass(&l, &nic, NULL, 0, err));
	want.tc_tsa[6] = STRICT;
	EXPECT_TABLE(want, nic.t);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);

	/* The class's priority moved into the strict CNP class by someone else. */
	nic = (struct nic){ "eth1", 8, mlx5, 0 };
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	nic.t.prio_tc[3] = 7;
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	EXPECT_EQ(-EBUSY, err[3]);
	EXPECT_EQ(7, nic.t.prio_tc[3]);
	EXPECT_EQ(STRICT, nic.t.tc_tsa[7]);
	EXPECT_EQ(100, ets_sum(&nic.t));
	/* What gpupathd gave traffic class 3 went back to what it had. */
	EXPECT_EQ(mlx5.tc_tx_bw[3], nic.t.tc_tx_bw[3]);
	ledger_free(&l);

	/*
	 * The shares rebalanced by someone else so that putting back the
	 * rest would not add up to 100%: the table is left as they made it.
	 */
	nic = (struct nic){ "eth1", 8, mlx5, 0 };
	ASSERT_EQ(0, pass(&l, &nic, c, 1, err));
	nic.t.tc_tx_bw[nic.t.prio_tc[3]] = 40;
	nic.t.tc_tx_bw[0] += 10;
	want = nic.t;
	EXPECT_EQ(-ESTALE, pass(&l, &nic, NULL, 0, err));
	EXPECT_TABLE(want, nic.t);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);
}

TEST_HARNESS_MAIN
