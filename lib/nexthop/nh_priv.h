/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NH_PRIV_H
#define NH_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "defer.h"
#include "nexthop.h"

/* One 64-bit multiply-xorshift mix, so every input bit reaches the high
 * bits: the id and gateway hash tables of nexthop.c. */
static inline uint32_t
nh_mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	return (uint32_t)(h >> 32);
}

/* The control core's record of one index. Writer only. */
struct nh_obj {
	struct nh_spec spec; /* spec.type is NH_T_GROUP for groups */
	bool in_use;
	bool resolved; /* mac is the neighbour's */
	uint8_t mac[6];
	uint32_t route_refs; /* nh_ref minus nh_unref */
	uint32_t group_refs; /* groups holding this index */
	uint32_t next_id;    /* chain of the id hash */
	uint32_t next_gw;    /* chain of the (port, gateway) hash */
	uint32_t next_free;  /* free list */
	/* Groups only. */
	uint16_t nb_members;
	struct nh_member *members;
	struct nh_buckets *buckets; /* what the workers read now */
};

struct nh_port {
	uint8_t mac[6];
	uint16_t mtu;
	bool set;
	bool down; /* administratively: its nexthops' headers are invalid */
};

struct nh_table {
	struct nh_conf conf;
	struct nh_dp **view; /* [worker][index] */
	struct nh_obj *obj;  /* [index], 0 unused */
	uint32_t free_head;  /* 0: none */
	uint32_t *id_head;   /* hash of user ids */
	uint32_t *gw_head;   /* hash of (port, family, gateway) */
	uint32_t hash_mask;
	uint32_t special[NH_T_GROUP]; /* the implicit nexthop of each special type */
	struct nh_port *ports;
	uint32_t nb_ports; /* size of ports[] */
	struct defer defer;
};

/* Whether a nexthop's own port is set down: only gateway and on-link
 * nexthops have one. */
static inline bool
nh_spec_port_down(const struct nh_table *t, const struct nh_spec *s)
{
	bool gw = s->type == NH_T_GATEWAY || s->type == NH_T_CONNECTED;
	return gw && s->port < t->nb_ports && t->ports[s->port].down;
}

/* A new group index with user id `id`. @return 0 or -ENOSPC. */
int nh_group_new(struct nh_table *t, uint32_t id, uint32_t *index);
/* Write an index's lines for every worker from its record. */
void nh_publish(struct nh_table *t, uint32_t index);
/* Groups: take the member at `index` out of every group holding it, all
 * or nothing. @return 0 or -ENOMEM. */
int nh_groups_drop_member(struct nh_table *t, uint32_t index);
/* Groups: reassign the buckets of every group with a member on port
 * over its members whose port is up (the port went down or came up). */
void nh_groups_port_changed(struct nh_table *t, uint16_t port);
/* Groups: drop a group's members and retire its bucket table (QSBR). */
void nh_group_retire(struct nh_table *t, uint32_t index);
/* Groups: free a group's memory at teardown, when no worker reads. */
void nh_group_fini(struct nh_obj *o);
/* Release an index (after its grace period, through the defer queue). */
void nh_index_free(struct nh_table *t, uint32_t index);

#endif
