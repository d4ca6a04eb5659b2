// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the host interface helpers gpupathd and gpupath diagnose
 * share: which interface holds an address, which subnet holds one (IPv4
 * and IPv6, prefixes from 0 to 128), and the fields of an NVMe
 * controller's address attribute. The interfaces are a getifaddrs() list
 * built here.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "harness.h"
#include "../../tools/lib/internal.h"

/* One interface address, as getifaddrs() gives it. */
struct fake_ifa {
	struct ifaddrs ifa;
	struct sockaddr_storage addr, mask;
};

/* @addr with a @prefix-bit netmask, on @name; linked after @next. */
static void fake_set(struct fake_ifa *f, const char *name, const char *addr, unsigned int prefix,
		     struct fake_ifa *next)
{
	int fam = strchr(addr, ':') ? AF_INET6 : AF_INET;
	unsigned char *a, *m;
	unsigned int k;

	memset(f, 0, sizeof(*f));
	f->ifa.ifa_name = (char *)name;
	f->ifa.ifa_flags = IFF_UP | IFF_RUNNING;
	f->ifa.ifa_addr = (struct sockaddr *)&f->addr;
	f->ifa.ifa_netmask = (struct sockaddr *)&f->mask;
	f->ifa.ifa_next = next ? &next->ifa : NULL;
	f->addr.ss_family = fam;
	f->mask.ss_family = fam;
	if (fam == AF_INET) {
		a = (unsigned char *)&((struct sockaddr_in *)&f->addr)->sin_addr;
		m = (unsigned char *)&((struct sockaddr_in *)&f->mask)->sin_addr;
	} else {
		a = (unsigned char *)&((struct sockaddr_in6 *)&f->addr)->sin6_addr;
		m = (unsigned char *)&((struct sockaddr_in6 *)&f->mask)->sin6_addr;
	}
	inet_pton(fam, addr, a);
	for (k = 0; k < prefix; k++)
		m[k / 8] |= 0x80 >> (k % 8);
}

/* lo, then eth1 (IPv4 /24, IPv6 /64), eth2 (IPv6 /128), any (IPv4 /0). */
static struct fake_ifa ifas[6];

static const struct ifaddrs *host(void)
{
	fake_set(&ifas[5], "any", "192.168.7.1", 0, NULL);
	fake_set(&ifas[4], "eth2", "fd00:2::5", 128, &ifas[5]);
	fake_set(&ifas[3], "eth1", "fd00:1::10", 64, &ifas[4]);
	fake_set(&ifas[2], "eth1", "10.1.0.10", 24, &ifas[3]);
	fake_set(&ifas[1], "lo", "::1", 128, &ifas[2]);
	fake_set(&ifas[0], "lo", "127.0.0.1", 8, &ifas[1]);
	return &ifas[0].ifa;
}

/* Whether @addr is on a subnet of @iface's, as the list of host() says. */
struct subnet_case {
	const char *iface, *addr;
	bool on;
};

static const struct subnet_case subnet_cases[] = {
	/* IPv4 /24 */
	{ "eth1", "10.1.0.200", true },
	{ "eth1", "10.1.1.200", false },
	/* IPv4 /0: every IPv4 address */
	{ "any", "10.1.1.200", true },
	{ "any", "255.255.255.255", true },
	/* IPv6 /64 */
	{ "eth1", "fd00:1::abcd:1", true },
	{ "eth1", "fd00:1:0:0:ffff::", true },
	{ "eth1", "fd00:1:0:1::10", false },
	/* IPv6 /128: that address alone */
	{ "eth2", "fd00:2::5", true },
	{ "eth2", "fd00:2::6", false },
	/* a mismatching family: "any" is IPv4 only, eth2 IPv6 only */
	{ "any", "fd00:1::10", false },
	{ "eth2", "10.1.0.10", false },
	/* IPv4-mapped is IPv6, on no IPv4 subnet */
	{ "eth1", "::ffff:10.1.0.10", false },
	{ NULL, "not-an-address", false },
	{ "eth9", "10.1.0.10", false },
};

TEST(subnet_membership_by_prefix_and_family)
{
	const struct ifaddrs *h = host();
	size_t i;

	for (i = 0; i < sizeof(subnet_cases) / sizeof(subnet_cases[0]); i++) {
		const struct subnet_case *c = &subnet_cases[i];
		bool on = gpupath_ifaddr_subnet_in(h, c->iface, c->addr, NULL, 0);

		if (on != c->on)
			printf("# %s on a subnet of %s's\n", c->addr, c->iface ? c->iface : "any");
		EXPECT_EQ(c->on, on);
	}
	/* no list read */
	EXPECT_FALSE(gpupath_ifaddr_subnet_in(NULL, "eth1", "10.1.0.10", NULL, 0));
}

TEST(the_first_interface_whose_subnet_holds_an_address)
{
	const struct ifaddrs *h = host();
	char name[IF_NAMESIZE];

	ASSERT_TRUE(gpupath_ifaddr_subnet_in(h, NULL, "10.1.0.99", name, sizeof(name)));
	EXPECT_STREQ("eth1", name);
	ASSERT_TRUE(gpupath_ifaddr_subnet_in(h, NULL, "fd00:1::99", name, sizeof(name)));
	EXPECT_STREQ("eth1", name);
	ASSERT_TRUE(gpupath_ifaddr_subnet_in(h, NULL, "::1", name, sizeof(name)));
	EXPECT_STREQ("lo", name);
	/* only the /0 holds it */
	ASSERT_TRUE(gpupath_ifaddr_subnet_in(h, NULL, "172.16.0.1", name, sizeof(name)));
	EXPECT_STREQ("any", name);
	EXPECT_FALSE(gpupath_ifaddr_subnet_in(h, NULL, "fd00:3::1", name, sizeof(name)));
}

TEST(the_interface_that_holds_an_address)
{
	const struct ifaddrs *h = host();
	char name[IF_NAMESIZE], addr[INET6_ADDRSTRLEN];

	ASSERT_TRUE(gpupath_ifaddr_find_in(h, NULL, "fd00:2::5", AF_UNSPEC, name, sizeof(name),
					   NULL, 0));
	EXPECT_STREQ("eth2", name);
	ASSERT_TRUE(gpupath_ifaddr_find_in(h, "eth1", NULL, AF_INET6, NULL, 0, addr,
					   sizeof(addr)));
	EXPECT_STREQ("fd00:1::10", addr);
	ASSERT_TRUE(gpupath_ifaddr_find_in(h, "eth1", NULL, AF_INET, NULL, 0, addr,
					   sizeof(addr)));
	EXPECT_STREQ("10.1.0.10", addr);
	/* on the subnet is not held */
	EXPECT_FALSE(gpupath_ifaddr_find_in(h, NULL, "10.1.0.11", AF_UNSPEC, NULL, 0, NULL, 0));
	EXPECT_FALSE(gpupath_ifaddr_find_in(h, "eth2", NULL, AF_INET, NULL, 0, NULL, 0));
}

TEST(fields_of_a_controller_address)
{
	static const char a[] = "traddr=fd00:1::20,trsvcid=4420,src_addr=fd00:1::10,"
				"host_traddr=10.1.0.10";
	char val[64];

	EXPECT_TRUE(gpupath_addr_field(a, "traddr", val, sizeof(val)));
	EXPECT_STREQ("fd00:1::20", val);
	EXPECT_TRUE(gpupath_addr_field(a, "src_addr", val, sizeof(val)));
	EXPECT_STREQ("fd00:1::10", val);
	/* a key is a whole field's, never the tail of another's */
	EXPECT_TRUE(gpupath_addr_field(a, "host_traddr", val, sizeof(val)));
	EXPECT_STREQ("10.1.0.10", val);
	EXPECT_FALSE(gpupath_addr_field(a, "host_iface", val, sizeof(val)));
	EXPECT_STREQ("", val);
	EXPECT_FALSE(gpupath_addr_field(NULL, "traddr", val, sizeof(val)));
	/* cut to fit */
	EXPECT_TRUE(gpupath_addr_field(a, "trsvcid", val, 3));
	EXPECT_STREQ("44", val);
}

TEST_HARNESS_MAIN
