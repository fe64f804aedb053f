/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel route mirror's state, shared by mirror.c (what it applies)
 * and mirror_nl.c (what it reads from rtnetlink). Control core only. */
#ifndef ROUTER_MIRROR_PRIV_H
#define ROUTER_MIRROR_PRIV_H

#include "ctl_priv.h"
#include "mirror_set.h"
#include "nl_route.h"

/* Kernel nexthop objects (FRR's), by id: what a route's RTA_NH_ID means. */
struct kobj {
	bool used, dead; /* dead: deleted, its slot kept for the probe runs */
	struct nlr_nexthop nh;
};

struct rt_mirror {
	int ev, dump;          /* notifications; requests and their answers */
	struct rt_watch w, dw; /* for ev (quiet while dumping), for dump */
	struct mset own;
	struct mset shadowed; /* kernel routes skipped for an operator's at their key */
	uint32_t gen;
	struct kobj *obj;
	size_t obj_cap, nb_obj;
	bool resync;          /* a notification was lost */
	int dumping;          /* the dump being read (mirror_nl.c's kinds), or -1 */
	bool ev_on;           /* ev is in the loop's epoll */
	uint64_t ev_after_ms; /* not before this: notifications batched */
	bool said[RT_MIRROR_SKIP_COUNT];
	bool tap_down[RT_MAX_PORTS]; /* as the kernel last said: not IFF_UP */
};
extern struct rt_mirror rt_mirror;

/* A multipath nexthop for a mirror route (mirror_group.c): the group of
 * members m[0..n) (sorted here) that other mirror routes share, with a
 * reference taken for this one; a new one starts from nexthop like's
 * buckets (what the route had; 0 for none). @return 0 or -errno. */
int rt_mgroup_get(struct router *r, struct nh_member *m, unsigned int n, uint32_t like,
		  uint32_t *index);
/* A mirror route lets go of nexthop index (any: plain or shared group). */
void rt_mgroup_put(struct router *r, uint32_t index);
void rt_mgroup_fini(void);

/* Apply one message (a route or a nexthop object, new or deleted). */
void rt_mirror_message(struct router *r, const struct nlmsghdr *h);
/* Remove the mirror's route of key from the FIB and from its set. */
void rt_mirror_withdraw(struct router *r, const struct mset_key *key);

#endif
