/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/neigh's internals, shared by the state machine (neigh.c), the
 * resolution budget (budget.c) and the timer wheel (wheel.c).
 *
 * Everything is preallocated at neigh_create and addressed by 32-bit
 * indices (0: none), so memory is fixed whatever arrives, and every
 * per-packet step is a hash probe or a list operation, never a walk of
 * the table: the lists below keep in order what a walk would look for.
 */
#ifndef ROUTER_NEIGH_PRIV_H
#define ROUTER_NEIGH_PRIV_H

#include <stddef.h>

#include "neigh.h"

/* An intrusive doubly linked list of entries, oldest at head. */
struct nlist {
	uint32_t head, tail;
};

struct link {
	uint32_t prev, next;
};

struct entry {
	struct neigh_key key;
	uint8_t state;
	uint8_t mac[6];
	uint8_t probes;
	uint8_t qhead, qcount; /* ring in queue[] */
	uint32_t src;          /* INCOMPLETE: the source record charged */
	/* In state order: the port's INCOMPLETE list, or the table's STALE
	 * or FAILED list (eviction victims, oldest first). */
	struct link l;
	struct link sl;    /* INCOMPLETE: the source's list */
	struct link tl;    /* the timer wheel's slot */
	uint64_t when;     /* the slot's time, 0: not on the wheel */
	uint64_t deadline; /* next NUD timer, 0: none */
	uint64_t used;     /* last use by traffic */
	uint64_t updated;  /* last state change */
	void *queue[NEIGH_QUEUE_MAX];
};

/* A token bucket in thousandths of a request, refilled each millisecond
 * by the rate (a second's worth a second). */
struct bucket {
	uint64_t milli, last_ms;
};

/* A (port, family, source address) with resolutions pending: what a
 * source may still ask for. Freed when its last one ends. */
struct source {
	struct neigh_key key; /* family 0: the router itself */
	uint32_t next;        /* hash chain, or free list */
	uint32_t count;
	struct nlist list; /* its INCOMPLETE entries */
	struct bucket b;
};

struct port {
	struct nlist incomplete;
	struct bucket b;
	struct neigh_port_stats st;
};

/* An entry's hash chain link (or free list link) and its key's tag, apart
 * from the entries: a lookup walks these 8 bytes an entry, not the
 * entries' 240, so a miss in a table far larger than the caches costs a
 * head and a link or two, not an entry's line each. */
struct chain {
	uint32_t next, tag;
};

struct neigh_table {
	struct neigh_conf conf;
	struct neigh_ops ops;
	void *ctx;
	struct entry *e;     /* [1..max_entries]; 0 means none */
	struct chain *chain; /* [1..max_entries] */
	uint32_t *head;      /* hash heads */
	uint32_t mask;
	uint32_t free_head;
	struct nlist stale, failed;
	/* Sources: [1..max_sources], hashed as entries are. */
	struct source *s;
	uint32_t *shead;
	uint32_t smask, sfree, max_sources;
	struct port port[NEIGH_PORTS_MAX];
	/* The timer wheel: a slot a millisecond, wmask + 1 of them; a bit a
	 * slot says which hold entries. Timers up to cursor have run. */
	uint32_t *slot;
	uint64_t *bits;
	uint64_t wmask, cursor;
	uint32_t armed;
	uint64_t rng;
	struct neigh_stats st;
};

/* A key's hash: its high half picks the bucket, its low half is its tag. */
uint64_t neigh_mix(const struct neigh_key *k);

static inline uint32_t
neigh_bucket(uint64_t mix, uint32_t mask)
{
	return (uint32_t)(mix >> 32) & mask;
}

static inline uint32_t
neigh_hash(const struct neigh_key *k, uint32_t mask)
{
	return neigh_bucket(neigh_mix(k), mask);
}
/* k's entry, or 0. */
uint32_t neigh_find(const struct neigh_table *t, const struct neigh_key *k);

/* The link at offset off of entry i (the lists share these helpers). */
static inline struct link *
nlink(struct entry *e, uint32_t i, size_t off)
{
	return (struct link *)((char *)&e[i] + off);
}

static inline void
nlist_append(struct entry *e, struct nlist *l, uint32_t i, size_t off)
{
	struct link *k = nlink(e, i, off);
	k->prev = l->tail;
	k->next = 0;
	if (l->tail != 0)
		nlink(e, l->tail, off)->next = i;
	else
		l->head = i;
	l->tail = i;
}

static inline void
nlist_remove(struct entry *e, struct nlist *l, uint32_t i, size_t off)
{
	struct link *k = nlink(e, i, off);
	if (k->prev != 0)
		nlink(e, k->prev, off)->next = k->next;
	else
		l->head = k->next;
	if (k->next != 0)
		nlink(e, k->next, off)->prev = k->prev;
	else
		l->tail = k->prev;
	k->prev = k->next = 0;
}
#define NLIST_L offsetof(struct entry, l)
#define NLIST_SL offsetof(struct entry, sl)

/* budget.c */
int budget_init(struct neigh_table *t);
void budget_free(struct neigh_table *t);
size_t budget_memory(const struct neigh_table *t);
/* The source record of (k's port and family, src), found or made: 0 if
 * none can be had. find_only: never make one. */
uint32_t source_get(struct neigh_table *t, const struct neigh_key *k, const void *src,
		    bool find_only);
/* Entry i enters or leaves INCOMPLETE (charged to source si). */
void budget_enter(struct neigh_table *t, uint32_t i, uint32_t si);
void budget_leave(struct neigh_table *t, uint32_t i);
/* The INCOMPLETE entry a new resolution for source si (0: none yet) on
 * port must replace, or 0 when there is room. */
uint32_t budget_victim(struct neigh_table *t, uint16_t port, uint32_t si);
/* May entry i send a multicast request now? Takes the tokens if so. */
bool budget_request(struct neigh_table *t, uint32_t i, uint64_t now);

/* wheel.c */
int wheel_init(struct neigh_table *t);
void wheel_free(struct neigh_table *t);
size_t wheel_memory(const struct neigh_table *t);
void wheel_set(struct neigh_table *t, uint32_t i, uint64_t when);
/* The first slot time after the cursor with entries, 0 if none. */
uint64_t wheel_next(const struct neigh_table *t);
/* Take an entry off the slot of time `when`, 0 when it is empty. */
uint32_t wheel_pop(struct neigh_table *t, uint64_t when);
/* With no timer pending, bring the cursor up to now (a clock that does
 * not start at 0). */
void wheel_catch_up(struct neigh_table *t, uint64_t now);

#endif /* ROUTER_NEIGH_PRIV_H */
