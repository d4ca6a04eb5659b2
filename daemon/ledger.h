/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What gpupathd set on the host's devices for its QoS classes, and what was
 * there before: so that a class changed or deleted (or a portal no longer
 * naming it) takes back exactly what gpupathd set, and nothing it did not.
 * Each pass says what it wants; what it no longer wants is handed back for
 * undoing. The ledger survives restarts in a file under /run.
 */
#ifndef GPUPATHD_LEDGER_H
#define GPUPATHD_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum mark_kind {
	MARK_APP_DSCP,		/* dcbnl APP entry: key = dscp << 8 | priority */
	MARK_PFC,		/* PFC enabled for a priority: key = priority */
	MARK_ECN_NP,		/* vendor ECN notification point: key = priority */
	MARK_ECN_RP,		/* vendor ECN reaction point: key = priority */
	MARK_ROCE_TOS,		/* rdma_cm's default RoCE ToS of port 1: key = 0 */
	MARK_ETS,		/* dcbnl ETS table: key = 0, with the tables */
	MARK_KINDS
};

/*
 * An IEEE 802.1Qaz ETS table, the parts of dcbnl's struct ieee_ets that
 * gpupathd writes: each priority's traffic class, each traffic class's
 * transmission selection algorithm (IEEE_8021QAZ_TSA_*) and bandwidth share.
 */
struct ets_map {
	uint8_t prio_tc[8];
	uint8_t tc_tsa[8];
	uint8_t tc_tx_bw[8];
};

/* One setting gpupathd made on a device. */
struct mark {
	char device[32];	/* network interface, or RDMA device */
	enum mark_kind kind;
	uint32_t key;
	int32_t before;		/* the value before gpupathd's first write */
	bool wanted;		/* by the current pass */
	/*
	 * MARK_ETS: the table without gpupathd's part (what is put back) and
	 * the table as gpupathd last wrote it (read back), which tells what
	 * others changed since.
	 */
	struct ets_map ets_before, ets_wrote;
};

struct ledger {
	struct mark *m;
	size_t n;
};

/* Read @path (a missing file is an empty ledger; bad lines are skipped). */
int ledger_load(struct ledger *l, const char *path);
/* Write it to @path (atomically, by rename). */
int ledger_save(const struct ledger *l, const char *path);
void ledger_free(struct ledger *l);

/* A pass begins: nothing is wanted yet. */
void ledger_begin(struct ledger *l);

/*
 * The pass wants this setting on @device. @changed: gpupathd just wrote it,
 * and @before is what the device had; otherwise it already was so. Only
 * what gpupathd wrote is recorded; a setting found in place that the
 * ledger does not hold was someone else's and stays theirs.
 */
int ledger_want(struct ledger *l, const char *device, enum mark_kind kind, uint32_t key,
		int32_t before, bool changed);

/*
 * The pass wants the ETS table of @device: like ledger_want, with the
 * tables of struct mark. A table gpupathd has no part in (@wrote is
 * @before) is not wanted: what the ledger holds of it is taken back.
 */
int ledger_want_ets(struct ledger *l, const char *device, const struct ets_map *before,
		    const struct ets_map *wrote, bool changed);

/* The mark of @kind and @key on @device, or NULL. */
const struct mark *ledger_find(const struct ledger *l, const char *device,
			       enum mark_kind kind, uint32_t key);

/* @m, handed back by ledger_unwanted but not taken back, kept for the next pass. */
int ledger_put_back(struct ledger *l, const struct mark *m);

/*
 * Take the marks the pass did not want out of @l, into *@out (@*n of them,
 * the caller frees *@out): the settings to undo.
 */
int ledger_unwanted(struct ledger *l, struct mark **out, size_t *n);

const char *ledger_kind_name(enum mark_kind kind);

/*
 * Whether @r, what undoing a mark returned, is the end of it: taken back
 * (0), its device gone (-ENODEV, -ENOENT), or left to those who changed it
 * since (-ESTALE). Other errors keep the mark, to be tried again.
 */
bool ledger_undo_done(int r);

/*
 * The lock of the ledger at @path (a file beside it, @path ".lock"): a
 * running gpupathd holds it, so that the ledger is not taken back under
 * it (ledger_release). A POSIX record lock, held by the process alone: its
 * children do not keep it, and it goes when the process ends, however it
 * ends. @create: make the file (and its directory) when missing. Returns
 * the descriptor that holds it, or -EBUSY with the holder's pid in
 * *@holder, or another negative errno (-ENOENT: no lock file and not
 * @create).
 */
int ledger_lock(const char *path, bool create, pid_t *holder);

/*
 * Take back every mark of the ledger at @path with @undo, with the ledger
 * locked (-EBUSY, *@holder: a gpupathd holds it, and would set the
 * settings again; nothing is done). @report is told each mark and what
 * @undo returned. The marks not taken back (ledger_undo_done) stay in the
 * file, which goes when none is left. Returns how many stay, or a negative
 * errno. No ledger is nothing to take back.
 */
int ledger_release(const char *path, int (*undo)(const struct mark *m),
		   void (*report)(const struct mark *m, int r, void *arg), void *arg,
		   pid_t *holder);

#endif /* GPUPATHD_LEDGER_H */
