/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoding rtnetlink's route and nexthop messages (nl_route.h). Nothing
 * in a message is trusted: every length is checked against what holds
 * it before anything is read, an attribute of a known type but the wrong
 * size makes the message malformed, and unknown attributes are counted
 * and skipped.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "nl_route.h"

#define ATTR_HDR 4u
/* A nexthop's operation flags (NHA_OP_FLAGS), which kernels since 6.10
 * put in their group messages; Debian 12's headers (6.1) do not name it. */
#define NHA_OP_FLAGS_ 14

static size_t
align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Call cb for each attribute in the len bytes at p. @return -EINVAL on an
 * attribute whose length is less than its header or runs past len, or
 * cb's first non-zero return. */
static int
each_attr(const uint8_t *p, size_t len, int (*cb)(uint16_t, const uint8_t *, size_t, void *),
	  void *arg)
{
	size_t at = 0;
	while (at + ATTR_HDR <= len) {
		uint16_t alen, type;
		memcpy(&alen, p + at, 2);
		memcpy(&type, p + at + 2, 2);
		if (alen < ATTR_HDR || alen > len - at)
			return -EINVAL;
		int rc = cb(type & NLA_TYPE_MASK, p + at + ATTR_HDR, alen - ATTR_HDR, arg);
		if (rc != 0)
			return rc;
		at += align4(alen);
	}
	return 0; /* a tail shorter than a header is padding */
}

static int
u32_of(const uint8_t *d, size_t len, uint32_t *out)
{
	if (len != 4)
		return -EINVAL;
	memcpy(out, d, 4);
	return 0;
}

static size_t
addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* A gateway attribute of the route's family: exactly its address. */
static int
gateway(struct nlr_path *p, uint8_t family, const uint8_t *d, size_t len)
{
	if (addr_len(family) == 0 || len != addr_len(family))
		return -EINVAL;
	p->gw_family = family;
	memcpy(p->gw, d, len);
	return 0;
}

/* RTA_VIA: a gateway of another family (IPv4 over an IPv6 nexthop). */
static int
via(struct nlr_path *p, const uint8_t *d, size_t len)
{
	uint16_t fam;
	if (len < 2)
		return -EINVAL;
	memcpy(&fam, d, 2);
	if (fam > 255)
		return -EINVAL;
	return gateway(p, (uint8_t)fam, d + 2, len - 2);
}

struct path_ctx {
	struct nlr_path *p;
	uint8_t family;
	unsigned int *unknown;
};

static int
path_attr(uint16_t type, const uint8_t *d, size_t len, void *arg)
{
	struct path_ctx *c = arg;
	switch (type) {
	case RTA_GATEWAY:
		return gateway(c->p, c->family, d, len);
	case RTA_VIA:
		return via(c->p, d, len);
	default:
		(*c->unknown)++;
		return 0;
	}
}

/* RTA_MULTIPATH: struct rtnexthop, each followed by its attributes. */
static int
multipath(struct nlr_route *r, const uint8_t *d, size_t len)
{
	size_t at = 0;
	while (at + sizeof(struct rtnexthop) <= len) {
		struct rtnexthop nh;
		memcpy(&nh, d + at, sizeof(nh));
		if (nh.rtnh_len < sizeof(nh) || nh.rtnh_len > len - at || nh.rtnh_ifindex < 0)
			return -EINVAL;
		/* Past what is kept, read into a spare: checked all the same. */
		struct nlr_path spare, *p = &spare;
		if (r->npaths < NLR_PATHS_MAX)
			p = &r->path[r->npaths++];
		else
			r->too_many = true;
		memset(p, 0, sizeof(*p));
		p->ifindex = (uint32_t)nh.rtnh_ifindex;
		p->weight = (uint16_t)(nh.rtnh_hops + 1);
		p->onlink = nh.rtnh_flags & RTNH_F_ONLINK;
		struct path_ctx c = {p, r->family, &r->unknown};
		int rc = each_attr(d + at + sizeof(nh), nh.rtnh_len - sizeof(nh), path_attr, &c);
		if (rc != 0)
			return rc;
		at += align4(nh.rtnh_len);
	}
	return at == len || len - at < sizeof(struct rtnexthop) ? 0 : -EINVAL;
}

static int
route_attr(uint16_t type, const uint8_t *d, size_t len, void *arg)
{
	struct nlr_route *r = arg;
	switch (type) {
	case RTA_DST:
		if (len != addr_len(r->family))
			return -EINVAL;
		memcpy(r->dst, d, len);
		return 0;
	case RTA_TABLE:
		return u32_of(d, len, &r->table);
	case RTA_PRIORITY:
		return u32_of(d, len, &r->priority);
	case RTA_OIF:
		r->npaths = r->npaths ? r->npaths : 1;
		return u32_of(d, len, &r->path[0].ifindex);
	case RTA_GATEWAY:
		r->npaths = r->npaths ? r->npaths : 1;
		return gateway(&r->path[0], r->family, d, len);
	case RTA_VIA:
		r->npaths = r->npaths ? r->npaths : 1;
		return via(&r->path[0], d, len);
	case RTA_MULTIPATH:
		if (r->npaths != 0) /* with RTA_OIF or RTA_GATEWAY: ambiguous */
			return -EINVAL;
		return multipath(r, d, len);
	case RTA_NH_ID:
		return u32_of(d, len, &r->nh_id);
	case RTA_ENCAP:
	case RTA_ENCAP_TYPE:
		r->encap = true;
		return 0;
	case RTA_SRC:
		if (len != addr_len(r->family))
			return -EINVAL;
		return 0; /* src_len says whether it matters */
	case RTA_PREFSRC:
	case RTA_METRICS:
	case RTA_CACHEINFO:
	case RTA_PREF:
	case RTA_EXPIRES:
	case RTA_IIF:
	case RTA_MARK:
	case RTA_UID:
	case RTA_TTL_PROPAGATE:
	case RTA_IP_PROTO:
	case RTA_SPORT:
	case RTA_DPORT:
		return 0; /* known, and of no use to routerd */
	default:
		r->unknown++;
		return 0;
	}
}

int
nlr_route_parse(const struct nlmsghdr *h, struct nlr_route *out)
{
	memset(out, 0, sizeof(*out));
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -EINVAL;
	struct rtmsg rtm;
	memcpy(&rtm, NLMSG_DATA(h), sizeof(rtm));
	if (addr_len(rtm.rtm_family) == 0 || rtm.rtm_dst_len > addr_len(rtm.rtm_family) * 8 ||
	    rtm.rtm_src_len > addr_len(rtm.rtm_family) * 8)
		return -EINVAL;
	out->family = rtm.rtm_family;
	out->dst_len = rtm.rtm_dst_len;
	out->src_len = rtm.rtm_src_len;
	out->tos = rtm.rtm_tos;
	out->table = rtm.rtm_table;
	out->protocol = rtm.rtm_protocol;
	out->scope = rtm.rtm_scope;
	out->type = rtm.rtm_type;
	out->flags = rtm.rtm_flags;
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct rtmsg)));
	if (off > h->nlmsg_len)
		return -EINVAL;
	int rc = each_attr((const uint8_t *)h + off, h->nlmsg_len - off, route_attr, out);
	if (rc != 0)
		return -EINVAL;
	for (unsigned int i = 0; i < out->npaths; i++)
		if (out->path[i].weight == 0)
			out->path[i].weight = 1;
	/* A single path's flags are the route's (rtm_flags), as iproute2
	 * reads them: `ip route add P via G dev D onlink`. */
	if (out->npaths == 1 && (rtm.rtm_flags & RTNH_F_ONLINK))
		out->path[0].onlink = true;
	return 0;
}

static int
nexthop_attr(uint16_t type, const uint8_t *d, size_t len, void *arg)
{
	struct nlr_nexthop *n = arg;
	switch (type) {
	case NHA_ID:
		return u32_of(d, len, &n->id);
	case NHA_GROUP:
		if (len == 0 || len % sizeof(struct nexthop_grp) != 0)
			return -EINVAL;
		n->ngroup = (unsigned int)(len / sizeof(struct nexthop_grp));
		if (n->ngroup > NLR_PATHS_MAX) {
			n->ngroup = NLR_PATHS_MAX;
			n->too_many = true;
		}
		for (unsigned int i = 0; i < n->ngroup; i++) {
			struct nexthop_grp g;
			memcpy(&g, d + i * sizeof(g), sizeof(g));
			n->group[i].id = g.id;
			n->group[i].weight = (uint16_t)(g.weight + 1);
		}
		return 0;
	case NHA_BLACKHOLE:
		n->blackhole = true;
		return 0;
	case NHA_OIF:
		return u32_of(d, len, &n->path.ifindex);
	case NHA_GATEWAY:
		return gateway(&n->path, n->family, d, len);
	case NHA_ENCAP:
	case NHA_ENCAP_TYPE:
		n->encap = true;
		return 0;
	case NHA_FDB:
		n->fdb = true;
		return 0;
	case NHA_GROUP_TYPE:
	case NHA_RES_GROUP:
	case NHA_OP_FLAGS_:
		return 0;
	default:
		n->unknown++;
		return 0;
	}
}

int
nlr_nexthop_parse(const struct nlmsghdr *h, struct nlr_nexthop *out)
{
	memset(out, 0, sizeof(*out));
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nhmsg)))
		return -EINVAL;
	struct nhmsg nhm;
	memcpy(&nhm, NLMSG_DATA(h), sizeof(nhm));
	out->family = nhm.nh_family;
	out->path.onlink = nhm.nh_flags & RTNH_F_ONLINK;
	out->path.weight = 1;
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nhmsg)));
	if (off > h->nlmsg_len)
		return -EINVAL;
	int rc = each_attr((const uint8_t *)h + off, h->nlmsg_len - off, nexthop_attr, out);
	if (rc != 0 || out->id == 0)
		return -EINVAL;
	return 0;
}
