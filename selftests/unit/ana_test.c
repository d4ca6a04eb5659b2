// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gpupathd's reading of ANA log pages: a namespace is found
 * in its group, whatever the number and size of the groups before it, a
 * page cut short is never read past its end, and each NVMe ANA state maps
 * to the module's.
 */
#include <endian.h>
#include <libnvme.h>

#include "harness.h"
#include "../../daemon/ana.h"

/* A page of groups: @ngrps, then per group its id, state and namespaces. */
struct group {
	uint32_t id;
	uint8_t state;
	uint32_t n;
	uint32_t nsids[4];
};

static size_t build(uint8_t *buf, size_t size, const struct group *g, unsigned int ngrps)
{
	struct nvme_ana_log *log = (struct nvme_ana_log *)buf;
	size_t off = sizeof(*log);
	struct nvme_ana_group_desc d;
	unsigned int i, j;
	uint32_t id;

	memset(buf, 0, size);
	log->ngrps = htole16(ngrps);
	/* Descriptors are packed as on the wire: copied in, not written in place. */
	for (i = 0; i < ngrps; i++) {
		memset(&d, 0, sizeof(d));
		d.grpid = htole32(g[i].id);
		d.nnsids = htole32(g[i].n);
		d.state = g[i].state;
		memcpy(buf + off, &d, sizeof(d));
		off += sizeof(d);
		for (j = 0; j < g[i].n; j++, off += sizeof(id)) {
			id = htole32(g[i].nsids[j]);
			memcpy(buf + off, &id, sizeof(id));
		}
	}
	return off;
}

static const struct group groups[] = {
	{ 1, NVME_ANA_STATE_OPTIMIZED, 3, { 1, 2, 3 } },
	{ 2, NVME_ANA_STATE_NONOPTIMIZED, 0, { 0 } },
	{ 7, NVME_ANA_STATE_CHANGE, 2, { 9, 4 } },
};

TEST(a_namespace_is_found_in_its_group)
{
	_Alignas(8) uint8_t buf[512];
	size_t len = build(buf, sizeof(buf), groups, 3);
	uint32_t grp = 0;
	uint8_t state = 0;

	ASSERT_TRUE(ana_log_find((void *)buf, len, 2, &grp, &state));
	EXPECT_EQ(1, grp);
	EXPECT_EQ(NVME_ANA_STATE_OPTIMIZED, state);
	/* past an empty group */
	ASSERT_TRUE(ana_log_find((void *)buf, len, 4, &grp, &state));
	EXPECT_EQ(7, grp);
	EXPECT_EQ(NVME_ANA_STATE_CHANGE, state);
	EXPECT_FALSE(ana_log_find((void *)buf, len, 5, &grp, &state));
}

TEST(a_page_cut_short_is_not_read_past_its_end)
{
	_Alignas(8) uint8_t buf[512];
	size_t len = build(buf, sizeof(buf), groups, 3);
	uint32_t grp;
	uint8_t state;

	/* the last group cut short: none of it is taken, the groups before are */
	EXPECT_FALSE(ana_log_find((void *)buf, len - 2, 4, &grp, &state));
	EXPECT_FALSE(ana_log_find((void *)buf, len - 4, 9, &grp, &state));
	EXPECT_TRUE(ana_log_find((void *)buf, len - 4, 3, &grp, &state));
	/* a header alone, or less */
	EXPECT_FALSE(ana_log_find((void *)buf, sizeof(struct nvme_ana_log), 1, &grp, &state));
	EXPECT_FALSE(ana_log_find((void *)buf, 4, 1, &grp, &state));
	/* a count of groups larger than the page */
	((struct nvme_ana_log *)buf)->ngrps = htole16(60000);
	EXPECT_FALSE(ana_log_find((void *)buf, len, 5, &grp, &state));
}

/*
 * After a group with an odd number of namespaces the next descriptor starts
 * 4 bytes off the 8 its change count needs (the test is built with UBSan's
 * alignment check, which stops it on a descriptor read in place).
 */
static const struct group odd[] = {
	{ 3, NVME_ANA_STATE_INACCESSIBLE, 1, { 5 } },
	{ 4, NVME_ANA_STATE_NONOPTIMIZED, 3, { 6, 7, 8 } },
	{ 5, NVME_ANA_STATE_OPTIMIZED, 1, { 11 } },
};

TEST(groups_after_an_odd_count_are_read)
{
	_Alignas(8) uint8_t buf[512];
	size_t len = build(buf, sizeof(buf), odd, 3);
	uint32_t grp = 0;
	uint8_t state = 0;

	ASSERT_TRUE(ana_log_find((void *)buf, len, 7, &grp, &state));
	EXPECT_EQ(4, grp);
	EXPECT_EQ(NVME_ANA_STATE_NONOPTIMIZED, state);
	ASSERT_TRUE(ana_log_find((void *)buf, len, 11, &grp, &state));
	EXPECT_EQ(5, grp);
	EXPECT_EQ(NVME_ANA_STATE_OPTIMIZED, state);
	EXPECT_FALSE(ana_log_find((void *)buf, len - 1, 11, &grp, &state));
}

TEST(nvme_states_map_to_the_modules)
{
	EXPECT_EQ(GPUPATH_ANA_OPTIMIZED, ana_state_of(NVME_ANA_STATE_OPTIMIZED));
	EXPECT_EQ(GPUPATH_ANA_NON_OPTIMIZED, ana_state_of(NVME_ANA_STATE_NONOPTIMIZED));
	EXPECT_EQ(GPUPATH_ANA_INACCESSIBLE, ana_state_of(NVME_ANA_STATE_INACCESSIBLE));
	EXPECT_EQ(GPUPATH_ANA_PERSISTENT_LOSS, ana_state_of(NVME_ANA_STATE_PERSISTENT_LOSS));
	EXPECT_EQ(GPUPATH_ANA_CHANGE, ana_state_of(NVME_ANA_STATE_CHANGE));
	EXPECT_EQ(GPUPATH_ANA_UNKNOWN, ana_state_of(0));
	EXPECT_EQ(GPUPATH_ANA_UNKNOWN, ana_state_of(9));
}

TEST_HARNESS_MAIN
