// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gpupathd's QoS ledger: what the daemon set is taken back
 * when no class wants it any more, exactly that, and nothing it found in
 * place. (No virtual NIC here implements dcbnl: the diff is tested alone.)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "../../daemon/ledger.h"

#define APP(dscp, prio)	((dscp) << 8 | (prio))

/* One pass: the settings @want says, then what is to be undone. */
struct want {
	const char *dev;
	enum mark_kind kind;
	uint32_t key;
	int32_t before;
	bool changed;
};

static size_t pass(struct ledger *l, const struct want *w, size_t n, struct mark **undo)
{
	size_t i, nundo;

	ledger_begin(l);
	for (i = 0; i < n; i++)
		ledger_want(l, w[i].dev, w[i].kind, w[i].key, w[i].before, w[i].changed);
	if (ledger_unwanted(l, undo, &nundo) < 0)
		return (size_t)-1;
	return nundo;
}

TEST(written_settings_are_recorded_and_kept_while_wanted)
{
	struct ledger l = { 0 };
	struct want w[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, true },
		{ "rxe1", MARK_ROCE_TOS, 0, 0, true },
	};
	struct mark *undo;

	EXPECT_EQ(0, pass(&l, w, 3, &undo));
	EXPECT_EQ(3, l.n);
	/* Next pass: found as set (not written again), still ours. */
	w[0].changed = w[1].changed = w[2].changed = false;
	EXPECT_EQ(0, pass(&l, w, 3, &undo));
	EXPECT_EQ(3, l.n);
	ledger_free(&l);
}

TEST(a_changed_dscp_takes_back_the_old_app_entry_only)
{
	struct ledger l = { 0 };
	struct want before[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, true },
		{ "rxe1", MARK_ROCE_TOS, 0, 0, true },
	};
	struct want after[] = {
		{ "eth1", MARK_APP_DSCP, APP(10, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, false },
		{ "rxe1", MARK_ROCE_TOS, 0, 104, false },
	};
	struct mark *undo;

	pass(&l, before, 3, &undo);
	ASSERT_EQ(1, pass(&l, after, 3, &undo));
	EXPECT_EQ(MARK_APP_DSCP, undo[0].kind);
	EXPECT_EQ(APP(26, 3), undo[0].key);
	EXPECT_STREQ("eth1", undo[0].device);
	free(undo);
	EXPECT_EQ(3, l.n);
	/* The ToS keeps what was there before gpupathd's first write. */
	EXPECT_EQ(0, l.m[2].before);
	ledger_free(&l);
}

TEST(what_was_found_in_place_is_never_taken_back)
{
	struct ledger l = { 0 };
	/* An administrator's APP entry and PFC bit, there before. */
	struct want w[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, false },
		{ "eth1", MARK_PFC, 3, 0, false },
	};
	struct mark *undo;

	EXPECT_EQ(0, pass(&l, w, 2, &undo));
	EXPECT_EQ(0, l.n);
	/* The class deleted: nothing of theirs to undo. */
	EXPECT_EQ(0, pass(&l, NULL, 0, &undo));
	ledger_free(&l);
}

TEST(a_deleted_class_takes_back_everything_it_set)
{
	struct ledger l = { 0 };
	struct want w[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, true },
		{ "eth1", MARK_ECN_NP, 3, 0, true },
		{ "eth1", MARK_ECN_RP, 3, 1, true },
		{ "rxe1", MARK_ROCE_TOS, 0, 32, true },
	};
	struct mark *undo;
	size_t i;

	pass(&l, w, 5, &undo);
	ASSERT_EQ(5, pass(&l, NULL, 0, &undo));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(w[i].kind, undo[i].kind);
		EXPECT_EQ(w[i].before, undo[i].before);
	}
	free(undo);
	EXPECT_EQ(0, l.n);
	ledger_free(&l);
}

TEST(a_pfc_bit_two_classes_share_stays_while_one_wants_it)
{
	struct ledger l = { 0 };
	struct want both[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, true },
		{ "eth1", MARK_APP_DSCP, APP(28, 3), 0, true },
		{ "eth1", MARK_PFC, 3, 0, false },
	};
	struct mark *undo;

	pass(&l, both, 4, &undo);
	EXPECT_EQ(3, l.n);
	/* The first class deleted: its APP entry goes, the PFC bit stays. */
	ASSERT_EQ(1, pass(&l, both + 2, 2, &undo));
	EXPECT_EQ(APP(26, 3), undo[0].key);
	free(undo);
	EXPECT_EQ(2, l.n);
	ledger_free(&l);
}

TEST(the_ledger_survives_a_restart_and_skips_bad_lines)
{
	char path[] = "/tmp/ledger-test-XXXXXX";
	struct ledger l = { 0 }, back = { 0 };
	struct want w[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },
		{ "rxe1", MARK_ROCE_TOS, 0, -1, true },
	};
	struct mark *undo;
	FILE *f;
	int fd = mkstemp(path);

	ASSERT_NE(-1, fd);
	close(fd);
	pass(&l, w, 2, &undo);
	ASSERT_EQ(0, ledger_save(&l, path));
	f = fopen(path, "a");
	ASSERT_TRUE(f != NULL);
	fputs("pfc eth1 3\n", f);			/* a field short */
	fputs("nonsense eth1 3 0\n", f);		/* no such kind */
	fputs("pfc eth1 -3 0\n", f);			/* a negative key */
	fputs("dcb-app-dscp eth1 6659 0\n", f);	/* a duplicate: first wins */
	fclose(f);
	ASSERT_EQ(0, ledger_load(&back, path));
	unlink(path);
	ASSERT_EQ(2, back.n);
	EXPECT_STREQ("eth1", back.m[0].device);
	EXPECT_EQ(APP(26, 3), back.m[0].key);
	EXPECT_EQ(MARK_ROCE_TOS, back.m[1].kind);
	EXPECT_EQ(-1, back.m[1].before);
	/* A missing file: an empty ledger. */
	ledger_free(&back);
	EXPECT_EQ(0, ledger_load(&back, path));
	EXPECT_EQ(0, back.n);
	ledger_free(&l);
}

/* An ETS table in the ledger's file: prio_tc, tc_tsa, tc_tx_bw in hex. */
#define TABLE_	"020304050607" "020202020202ff00" "1010111111116464"
#define TABLE	"0100" TABLE_

TEST(an_ets_table_is_kept_with_what_was_there_and_what_was_written)
{
	char path[] = "/tmp/ledger-test-XXXXXX";
	struct ets_map before = {
		.prio_tc = { 1, 0, 2, 3, 4, 5, 6, 7 },
		.tc_tsa = { 2, 2, 2, 2, 2, 2, 255, 0 },
		.tc_tx_bw = { 16, 16, 17, 17, 17, 17, 100, 100 },
	}, wrote = before;
	struct ledger l = { 0 }, back = { 0 };
	struct mark *undo;
	size_t n;
	FILE *f;
	int fd = mkstemp(path);

	ASSERT_NE(-1, fd);
	close(fd);
	/* Found as wanted (gpupathd wrote nothing, or has no part): not recorded. */
	ledger_begin(&l);
	ledger_want_ets(&l, "eth1", &before, &before, true);
	wrote.tc_tx_bw[3] = 50;
	ledger_want_ets(&l, "eth1", &before, &wrote, false);
	EXPECT_EQ(0, l.n);
	ledger_want_ets(&l, "eth1", &before, &wrote, true);
	ASSERT_EQ(1, l.n);
	EXPECT_TRUE(l.m[0].wanted);
	EXPECT_TRUE(ledger_find(&l, "eth1", MARK_ETS, 0) == &l.m[0]);
	EXPECT_TRUE(ledger_find(&l, "eth2", MARK_ETS, 0) == NULL);

	ASSERT_EQ(0, ledger_save(&l, path));
	f = fopen(path, "a");
	ASSERT_TRUE(f != NULL);
	fputs("ets eth2 0 0\n", f);				/* no tables */
	fputs("ets eth3 0 0 0100 0100\n", f);			/* tables cut short */
	fputs("ets eth4 0 0 " TABLE " " TABLE "\n", f);		/* good */
	fputs("ets eth5 0 0 " TABLE " 0100zz" TABLE_ "\n", f);	/* not hex */
	fputs("ets eth6 0 0 " TABLE "\n", f);			/* one table */
	fclose(f);
	ASSERT_EQ(0, ledger_load(&back, path));
	unlink(path);
	ASSERT_EQ(2, back.n);
	EXPECT_STREQ("eth4", back.m[1].device);
	EXPECT_EQ(2, back.m[1].ets_wrote.tc_tsa[0]);
	EXPECT_EQ(100, back.m[1].ets_wrote.tc_tx_bw[7]);
	EXPECT_EQ(MARK_ETS, back.m[0].kind);
	EXPECT_EQ(0, memcmp(&before, &back.m[0].ets_before, sizeof(before)));
	EXPECT_EQ(0, memcmp(&wrote, &back.m[0].ets_wrote, sizeof(wrote)));

	/* Not wanted: handed back whole, and kept whole when it could not be undone. */
	ledger_begin(&back);
	ASSERT_EQ(0, ledger_unwanted(&back, &undo, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, back.n);
	ASSERT_EQ(0, ledger_put_back(&back, &undo[0]));
	free(undo);
	ASSERT_EQ(1, back.n);
	EXPECT_FALSE(back.m[0].wanted);
	EXPECT_EQ(0, memcmp(&before, &back.m[0].ets_before, sizeof(before)));
	EXPECT_EQ(0, memcmp(&wrote, &back.m[0].ets_wrote, sizeof(wrote)));
	ledger_free(&back);
	ledger_free(&l);
}

/*
 * gpupathd --release-qos: every mark taken back, those that could not be
 * kept (and only those), the file gone once none is left; nothing at all
 * while a gpupathd holds the ledger's lock.
 */
static int undo_result[8];	/* what the fake undo returns, by mark */

static int fake_undo(const struct mark *m)
{
	return undo_result[m->key % 8];
}

static void count_report(const struct mark *m, int r, void *arg)
{
	(void)m;
	(void)r;
	(*(unsigned int *)arg)++;
}

TEST(release_takes_back_every_mark_and_keeps_what_it_could_not)
{
	char dir[] = "/tmp/ledger-release-XXXXXX", path[64], lock[80];
	struct ledger l = { 0 }, back;
	struct want w[] = {
		{ "eth1", MARK_APP_DSCP, APP(26, 3), 0, true },	/* key % 8 == 3 */
		{ "eth1", MARK_PFC, 4, 0, true },
		{ "eth1", MARK_ECN_NP, 5, 0, true },
		{ "rxe1", MARK_ROCE_TOS, 0, 32, true },
	};
	unsigned int reported = 0;
	struct mark *undo;
	pid_t holder = -1;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/qos-ledger", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	/* No ledger: nothing to take back, and nothing made. */
	EXPECT_EQ(0, ledger_release(path, fake_undo, count_report, &reported, &holder));
	EXPECT_EQ(0, reported);
	EXPECT_EQ(-1, access(lock, F_OK));

	/* A ledger and no lock file (a gpupathd from before the lock): taken. */
	pass(&l, w, 4, &undo);
	ASSERT_EQ(4, l.n);
	ASSERT_EQ(0, ledger_save(&l, path));
	/* Taken back (3), device gone (4), failed (5), others changed it (0). */
	undo_result[3] = 0;
	undo_result[4] = -ENODEV;
	undo_result[5] = -EOPNOTSUPP;
	undo_result[0] = -ESTALE;
	EXPECT_EQ(1, ledger_release(path, fake_undo, count_report, &reported, &holder));
	EXPECT_EQ(4, reported);
	ASSERT_EQ(0, ledger_load(&back, path));
	ASSERT_EQ(1, back.n);
	EXPECT_EQ(MARK_ECN_NP, back.m[0].kind);
	EXPECT_STREQ("eth1", back.m[0].device);
	ledger_free(&back);

	/* Tried again: done, and the file goes. */
	undo_result[5] = 0;
	reported = 0;
	EXPECT_EQ(0, ledger_release(path, fake_undo, count_report, &reported, &holder));
	EXPECT_EQ(1, reported);
	EXPECT_EQ(-1, access(path, F_OK));
	ledger_free(&l);
	unlink(lock);
	rmdir(dir);
}

TEST(release_does_nothing_while_a_gpupathd_holds_the_lock)
{
	char dir[] = "/tmp/ledger-release-XXXXXX", path[64], lock[80];
	struct ledger l = { 0 }, back;
	struct want w[] = { { "eth1", MARK_PFC, 3, 0, true } };
	unsigned int reported = 0;
	int fd, ready[2], status;
	struct mark *undo;
	pid_t child, holder = 0;
	char c;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/qos-ledger", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	pass(&l, w, 1, &undo);
	ASSERT_EQ(0, ledger_save(&l, path));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_TRUE(child >= 0);
	if (!child) {
		/* The running gpupathd: holds the lock until killed. */
		fd = ledger_lock(path, true, &holder);
		if (write(ready[1], fd >= 0 ? "y" : "n", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ('y', c);
	EXPECT_EQ(-EBUSY, ledger_lock(path, true, &holder));
	EXPECT_EQ(child, holder);
	holder = 0;
	EXPECT_EQ(-EBUSY, ledger_release(path, fake_undo, count_report, &reported, &holder));
	EXPECT_EQ(child, holder);
	EXPECT_EQ(0, reported);
	ASSERT_EQ(0, ledger_load(&back, path));
	EXPECT_EQ(1, back.n);
	ledger_free(&back);

	/* It ends, however it ends: the lock is free. */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	fd = ledger_lock(path, false, &holder);
	EXPECT_TRUE(fd >= 0);
	if (fd >= 0)
		close(fd);
	undo_result[3] = 0;
	EXPECT_EQ(0, ledger_release(path, fake_undo, count_report, &reported, &holder));
	EXPECT_EQ(1, reported);
	close(ready[0]);
	close(ready[1]);
	ledger_free(&l);
	unlink(lock);
	rmdir(dir);
}

TEST_HARNESS_MAIN
