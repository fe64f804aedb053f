/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rtnetlink's route and nexthop messages, decoded into plain structures
 * (nl_route.c) for the kernel route mirror (mirror.c). The decoder reads
 * only within the message's length, checks every attribute's length
 * against what its type needs, and counts the attributes it does not
 * know instead of trusting them; tests/unit/router/test_nl_route.c fuzzes
 * it.
 */
#ifndef ROUTER_NL_ROUTE_H
#define ROUTER_NL_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

/* A route's paths or a group's members kept; beyond, too_many is set
 * (routerd's groups hold NH_GROUP_MEMBERS_MAX, as many). */
#define NLR_PATHS_MAX 64

struct nlr_path {
	uint32_t ifindex;  /* 0: none given */
	uint8_t gw_family; /* AF_INET, AF_INET6; 0: no gateway */
	uint8_t gw[16];    /* network order, IPv4 in the first 4 bytes */
	uint16_t weight;   /* 1..256 */
	bool onlink; /* RTNH_F_ONLINK: the gateway is on the link, whatever the addresses say */
};

struct nlr_route {
	uint8_t family; /* AF_INET, AF_INET6 */
	uint8_t dst_len, src_len, tos;
	uint8_t dst[16];
	uint32_t table;
	uint8_t protocol, scope, type; /* RTPROT_*, RT_SCOPE_*, RTN_* */
	uint32_t flags;                /* rtm_flags: RTM_F_CLONED and so on */
	uint32_t priority;
	uint32_t nh_id; /* RTA_NH_ID, a nexthop object; 0: none */
	bool encap;     /* lightweight tunnel encapsulation: not for routerd */
	unsigned int npaths;
	struct nlr_path path[NLR_PATHS_MAX];
	bool too_many;        /* more paths than NLR_PATHS_MAX: the first kept */
	unsigned int unknown; /* attributes skipped */
};

struct nlr_nexthop {
	uint32_t id;
	uint8_t family;
	bool blackhole, encap, fdb;
	struct nlr_path path; /* a single nexthop's */
	unsigned int ngroup;  /* a group's members */
	struct {
		uint32_t id;
		uint16_t weight; /* 1..256 */
	} group[NLR_PATHS_MAX];
	bool too_many; /* more members than NLR_PATHS_MAX: the first kept */
	unsigned int unknown;
};

/** Decode an RTM_NEWROUTE or RTM_DELROUTE message. @return 0, or -EINVAL
 * for a malformed or truncated one (out is then not to be used). */
int nlr_route_parse(const struct nlmsghdr *h, struct nlr_route *out);
/** Decode an RTM_NEWNEXTHOP or RTM_DELNEXTHOP message. @return 0 or -EINVAL. */
int nlr_nexthop_parse(const struct nlmsghdr *h, struct nlr_nexthop *out);

#endif
