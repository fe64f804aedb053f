/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour table: a fixed array of entries (allocated once, so
 * memory is bounded whatever arrives) indexed by a chained hash of the
 * key. Control core only.
 *
 * Sizes: with the default 1024 entries of about 200 bytes (16 queue slots
 * each) the table holds about 200 KiB; the hash has 2 heads per entry.
 *
 * States and timers follow Linux's NUD machine (net/core/neighbour.c) and
 * RFC 4861 section 7.3:
 *   INCOMPLETE  multicast probe now, then every retrans; after mcast_probes
 *               without answer: FAILED, queue handed back.
 *   REACHABLE   for the randomised reachable time; then DELAY if used in
 *               the last delay_probe_ms, else STALE.
 *   STALE       still usable; on use: DELAY.
 *   DELAY       delay_probe_ms, then PROBE.
 *   PROBE       unicast probe every retrans; after ucast_probes: FAILED.
 *   FAILED      unusable; a new packet restarts resolution.
 *   PERMANENT   set by the operator; no timer, never collected.
 * STALE entries unused and FAILED entries older than gc_stale_ms are
 * collected; when the table is full the oldest of them is evicted for a
 * new neighbour. REACHABLE, DELAY, PROBE, PERMANENT and INCOMPLETE
 * entries are never evicted: a flood of new addresses can only fail.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "neigh.h"

struct entry {
	struct neigh_key key;
	uint8_t state;
	uint8_t mac[6];
	uint8_t probes;
	uint8_t qhead, qcount; /* ring in queue[] */
	uint32_t next;         /* hash chain, or free list */
	uint64_t deadline;     /* next timer, 0: none */
	uint64_t used;         /* last use by traffic */
	uint64_t updated;      /* last state change */
	void *queue[NEIGH_QUEUE_MAX];
};

struct neigh_table {
	struct neigh_conf conf;
	struct neigh_ops ops;
	void *ctx;
	struct entry *e; /* [1..max_entries]; 0 means none */
	uint32_t *head;  /* hash heads */
	uint32_t mask;
	uint32_t free_head;
	uint64_t rng;
	struct neigh_stats st;
};

struct neigh_key
neigh_key(uint16_t port, uint8_t family, const void *addr)
{
	struct neigh_key k;
	memset(&k, 0, sizeof(k));
	k.port = port;
	k.family = family;
	memcpy(k.addr, addr, family == NEIGH_AF_INET ? 4 : 16);
	return k;
}

static uint32_t
key_hash(const struct neigh_table *t, const struct neigh_key *k)
{
	uint64_t a, b, c;
	memcpy(&a, k->addr, 8);
	memcpy(&b, k->addr + 8, 8);
	c = (uint64_t)k->port << 8 | k->family;
	uint64_t h = (a ^ c * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 29) ^ b) * 0x94d049bb133111ebull;
	return (uint32_t)(h >> 32) & t->mask;
}

static bool
key_equal(const struct neigh_key *a, const struct neigh_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

#define DEFAULT(field, value) ((field) ? (field) : (value))

struct neigh_table *
neigh_create(const struct neigh_conf *conf, const struct neigh_ops *ops, void *ctx)
{
	struct neigh_conf c = conf ? *conf : (struct neigh_conf){0};
	c.max_entries = DEFAULT(c.max_entries, 1024);
	c.max_incomplete = DEFAULT(c.max_incomplete, 256);
	c.base_reachable_ms = DEFAULT(c.base_reachable_ms, 30000);
	c.retrans_ms = DEFAULT(c.retrans_ms, 1000);
	c.delay_probe_ms = DEFAULT(c.delay_probe_ms, 5000);
	c.ucast_probes = DEFAULT(c.ucast_probes, 3);
	c.mcast_probes = DEFAULT(c.mcast_probes, 3);
	c.gc_stale_ms = DEFAULT(c.gc_stale_ms, 60000);
	c.queue_len = DEFAULT(c.queue_len, 3);
	c.seed = DEFAULT(c.seed, 0x2545f4914f6cdd1dull);
	if (ops == NULL || c.queue_len > NEIGH_QUEUE_MAX || c.max_entries > (1u << 24) ||
	    c.ucast_probes > 255 || c.mcast_probes > 255) {
		errno = EINVAL;
		return NULL;
	}
	struct neigh_table *t = calloc(1, sizeof(*t));
	uint32_t heads = 4;
	while (heads < 2 * c.max_entries)
		heads <<= 1;
	if (t != NULL) {
		t->e = calloc(c.max_entries + 1, sizeof(*t->e));
		t->head = calloc(heads, sizeof(*t->head));
	}
	if (t == NULL || t->e == NULL || t->head == NULL) {
		neigh_free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->conf = c;
	t->ops = *ops;
	t->ctx = ctx;
	t->mask = heads - 1;
	t->rng = c.seed;
	for (uint32_t i = c.max_entries; i >= 1; i--) {
		t->e[i].next = t->free_head;
		t->free_head = i;
	}
	return t;
}

static void
queue_drop_all(struct neigh_table *t, struct entry *e)
{
	while (e->qcount > 0) {
		void *p = e->queue[e->qhead];
		e->qhead = (uint8_t)((e->qhead + 1) % NEIGH_QUEUE_MAX);
		e->qcount--;
		if (t->ops.drop)
			t->ops.drop(t->ctx, p);
	}
}

void
neigh_free(struct neigh_table *t)
{
	if (t == NULL)
		return;
	if (t->e != NULL)
		for (uint32_t i = 1; i <= t->conf.max_entries; i++)
			if (t->e[i].state != NEIGH_NONE)
				queue_drop_all(t, &t->e[i]);
	free(t->e);
	free(t->head);
	free(t);
}

static uint32_t
find(const struct neigh_table *t, const struct neigh_key *k)
{
	uint32_t i = t->head[key_hash(t, k)];
	while (i != 0 && !key_equal(&t->e[i].key, k))
		i = t->e[i].next;
	return i;
}

static void
set_state(struct neigh_table *t, struct entry *e, uint8_t state, uint64_t now)
{
	if (e->state == NEIGH_INCOMPLETE)
		t->st.incomplete--;
	if (state == NEIGH_INCOMPLETE)
		t->st.incomplete++;
	e->state = state;
	e->updated = now;
}

static void
unlink_entry(struct neigh_table *t, uint32_t i)
{
	struct entry *e = &t->e[i];
	uint32_t *p = &t->head[key_hash(t, &e->key)];
	while (*p != i)
		p = &t->e[*p].next;
	*p = e->next;
	queue_drop_all(t, e);
	set_state(t, e, NEIGH_NONE, 0);
	e->next = t->free_head;
	t->free_head = i;
	t->st.entries--;
}

/* Remove an entry whose MAC was in use: tell the nexthops first. */
static void
remove_entry(struct neigh_table *t, uint32_t i)
{
	struct entry *e = &t->e[i];
	bool had_mac = e->state != NEIGH_INCOMPLETE && e->state != NEIGH_FAILED;
	struct neigh_key k = e->key;
	unlink_entry(t, i);
	if (had_mac && t->ops.changed)
		t->ops.changed(t->ctx, &k, NULL);
}

/* The STALE or FAILED entry unchanged for longest, or 0. */
static uint32_t
eviction_victim(const struct neigh_table *t)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i <= t->conf.max_entries; i++) {
		const struct entry *e = &t->e[i];
		if (e->state != NEIGH_STALE && e->state != NEIGH_FAILED)
			continue;
		if (best == 0 || e->updated < t->e[best].updated)
			best = i;
	}
	return best;
}

/* A new entry for k, or 0 when none can be had. */
static uint32_t
create(struct neigh_table *t, const struct neigh_key *k, uint64_t now)
{
	if (t->free_head == 0) {
		uint32_t v = eviction_victim(t);
		if (v == 0) {
			t->st.table_full++;
			return 0;
		}
		remove_entry(t, v);
		t->st.evicted++;
	}
	uint32_t i = t->free_head;
	struct entry *e = &t->e[i];
	t->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->key = *k;
	e->used = e->updated = now;
	uint32_t h = key_hash(t, k);
	e->next = t->head[h];
	t->head[h] = i;
	t->st.entries++;
	return i;
}

static uint64_t
reachable_time(struct neigh_table *t)
{
	/* Uniform in [0.5, 1.5) x base, as Linux's neigh_rand_reach_time. */
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	uint64_t base = t->conf.base_reachable_ms;
	return base / 2 + t->rng % (base ? base : 1);
}

static void
enqueue(struct neigh_table *t, struct entry *e, void *pkt)
{
	if (pkt == NULL)
		return;
	if (e->qcount == t->conf.queue_len) {
		/* Full: the oldest goes, as Linux's unres_qlen does. */
		void *old = e->queue[e->qhead];
		e->qhead = (uint8_t)((e->qhead + 1) % NEIGH_QUEUE_MAX);
		e->qcount--;
		t->st.queue_drops++;
		if (t->ops.drop)
			t->ops.drop(t->ctx, old);
	}
	e->queue[(e->qhead + e->qcount) % NEIGH_QUEUE_MAX] = pkt;
	e->qcount++;
}

/* Take the queued packets out, in arrival order. */
static unsigned int
dequeue_all(struct entry *e, void **out)
{
	unsigned int n = 0;
	while (e->qcount > 0) {
		out[n++] = e->queue[e->qhead];
		e->qhead = (uint8_t)((e->qhead + 1) % NEIGH_QUEUE_MAX);
		e->qcount--;
	}
	return n;
}

static void
start_incomplete(struct neigh_table *t, struct entry *e, uint64_t now)
{
	set_state(t, e, NEIGH_INCOMPLETE, now);
	e->probes = 1;
	e->deadline = now + t->conf.retrans_ms;
	if (t->ops.probe)
		t->ops.probe(t->ctx, &e->key, NULL);
}

static bool
usable(uint8_t state)
{
	return state == NEIGH_REACHABLE || state == NEIGH_STALE || state == NEIGH_DELAY ||
	       state == NEIGH_PROBE || state == NEIGH_PERMANENT;
}

/* Traffic uses e: a STALE entry starts its delay before probing. */
static void
use(struct neigh_table *t, struct entry *e, uint64_t now)
{
	e->used = now;
	if (e->state == NEIGH_STALE) {
		set_state(t, e, NEIGH_DELAY, now);
		e->deadline = now + t->conf.delay_probe_ms;
	}
}

int
neigh_resolve(struct neigh_table *t, const struct neigh_key *k, void *pkt, uint64_t now,
	      uint8_t mac[6])
{
	uint32_t i = find(t, k);
	if (i != 0 && usable(t->e[i].state)) {
		use(t, &t->e[i], now);
		memcpy(mac, t->e[i].mac, 6);
		return 0;
	}
	if (i == 0 || t->e[i].state == NEIGH_FAILED) {
		if (t->st.incomplete >= t->conf.max_incomplete) {
			t->st.table_full++;
			return -ENOSPC;
		}
		if (i == 0 && (i = create(t, k, now)) == 0)
			return -ENOSPC;
		start_incomplete(t, &t->e[i], now);
	}
	enqueue(t, &t->e[i], pkt);
	t->e[i].used = now;
	return -EAGAIN;
}

void
neigh_touch(struct neigh_table *t, const struct neigh_key *k, uint64_t now)
{
	uint32_t i = find(t, k);
	if (i != 0 && usable(t->e[i].state))
		use(t, &t->e[i], now);
}

/* e gets mac in state `state`; queued packets leave if it is usable. */
static void
update(struct neigh_table *t, struct entry *e, const uint8_t mac[6], uint8_t state, uint64_t now)
{
	bool was_usable = usable(e->state), mac_changed = memcmp(e->mac, mac, 6) != 0;
	memcpy(e->mac, mac, 6);
	set_state(t, e, state, now);
	e->probes = 0;
	e->deadline = state == NEIGH_REACHABLE ? now + reachable_time(t) : 0;
	if ((!was_usable || mac_changed) && t->ops.changed)
		t->ops.changed(t->ctx, &e->key, mac);
	if (e->qcount > 0) {
		void *pkts[NEIGH_QUEUE_MAX];
		unsigned int n = dequeue_all(e, pkts);
		if (t->ops.send)
			t->ops.send(t->ctx, &e->key, mac, pkts, n);
	}
}

int
neigh_confirm(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6],
	      unsigned int flags, uint64_t now)
{
	uint32_t i = find(t, k);
	if (i == 0)
		return -ENOENT; /* unsolicited, unknown: not created (RFC 4861 7.2.5) */
	struct entry *e = &t->e[i];
	if (e->state == NEIGH_PERMANENT)
		return 0;
	bool solicited = flags & NEIGH_F_SOLICITED, override = flags & NEIGH_F_OVERRIDE;
	if (e->state == NEIGH_INCOMPLETE || e->state == NEIGH_FAILED) {
		/* First address learned: REACHABLE if solicited, else STALE. */
		update(t, e, mac, solicited ? NEIGH_REACHABLE : NEIGH_STALE, now);
		return 0;
	}
	bool same = memcmp(e->mac, mac, 6) == 0;
	if (!override && !same) {
		/* A different address without override: keep ours; a
		 * REACHABLE entry becomes STALE (RFC 4861 7.2.5). */
		if (e->state == NEIGH_REACHABLE) {
			set_state(t, e, NEIGH_STALE, now);
			e->deadline = 0;
		}
		return 0;
	}
	if (solicited)
		update(t, e, mac, NEIGH_REACHABLE, now);
	else if (!same)
		update(t, e, mac, NEIGH_STALE, now);
	return 0;
}

int
neigh_learn(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6], uint64_t now)
{
	uint32_t i = find(t, k);
	if (i == 0) {
		if ((i = create(t, k, now)) == 0)
			return -ENOSPC;
		update(t, &t->e[i], mac, NEIGH_STALE, now);
		return 0;
	}
	struct entry *e = &t->e[i];
	if (e->state == NEIGH_PERMANENT)
		return 0;
	if (!usable(e->state) || memcmp(e->mac, mac, 6) != 0)
		update(t, e, mac, NEIGH_STALE, now);
	return 0;
}

int
neigh_add_permanent(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6])
{
	uint32_t i = find(t, k);
	if (i == 0 && (i = create(t, k, 0)) == 0)
		return -ENOSPC;
	update(t, &t->e[i], mac, NEIGH_PERMANENT, t->e[i].updated);
	return 0;
}

int
neigh_del(struct neigh_table *t, const struct neigh_key *k)
{
	uint32_t i = find(t, k);
	if (i == 0)
		return -ENOENT;
	remove_entry(t, i);
	return 0;
}

unsigned int
neigh_flush(struct neigh_table *t, uint16_t port)
{
	unsigned int n = 0;
	for (uint32_t i = 1; i <= t->conf.max_entries; i++) {
		struct entry *e = &t->e[i];
		if (e->state != NEIGH_NONE && e->state != NEIGH_PERMANENT && e->key.port == port) {
			remove_entry(t, i);
			n++;
		}
	}
	return n;
}

static void
fail(struct neigh_table *t, struct entry *e, uint64_t now)
{
	bool had_mac = e->state == NEIGH_PROBE;
	set_state(t, e, NEIGH_FAILED, now);
	e->deadline = 0;
	e->probes = 0;
	t->st.failed++;
	if (had_mac && t->ops.changed)
		t->ops.changed(t->ctx, &e->key, NULL);
	if (e->qcount > 0) {
		void *pkts[NEIGH_QUEUE_MAX];
		unsigned int n = dequeue_all(e, pkts);
		if (t->ops.failed)
			t->ops.failed(t->ctx, &e->key, pkts, n);
		else if (t->ops.drop)
			for (unsigned int k = 0; k < n; k++)
				t->ops.drop(t->ctx, pkts[k]);
	}
}

/* One entry's timer at `now`. */
static void
expire(struct neigh_table *t, struct entry *e, uint64_t now)
{
	switch (e->state) {
	case NEIGH_INCOMPLETE:
		if (e->probes >= t->conf.mcast_probes) {
			fail(t, e, now);
			return;
		}
		e->probes++;
		e->deadline = now + t->conf.retrans_ms;
		if (t->ops.probe)
			t->ops.probe(t->ctx, &e->key, NULL);
		return;
	case NEIGH_REACHABLE:
		if (now - e->used < t->conf.delay_probe_ms) {
			set_state(t, e, NEIGH_DELAY, now);
			e->deadline = now + t->conf.delay_probe_ms;
		} else {
			set_state(t, e, NEIGH_STALE, now);
			e->deadline = 0;
		}
		return;
	case NEIGH_DELAY:
		set_state(t, e, NEIGH_PROBE, now);
		e->probes = 0;
		/* The first unicast probe goes now. */
		__attribute__((fallthrough));
	case NEIGH_PROBE:
		if (e->probes >= t->conf.ucast_probes) {
			fail(t, e, now);
			return;
		}
		e->probes++;
		e->deadline = now + t->conf.retrans_ms;
		if (t->ops.probe)
			t->ops.probe(t->ctx, &e->key, e->mac);
		return;
	default:
		e->deadline = 0;
		return;
	}
}

uint64_t
neigh_timer(struct neigh_table *t, uint64_t now)
{
	uint64_t next = 0;
	for (uint32_t i = 1; i <= t->conf.max_entries; i++) {
		struct entry *e = &t->e[i];
		if (e->state == NEIGH_NONE)
			continue;
		/* Each timer fires at its own time, so a late call still walks
		 * the states as they would have gone. */
		while (e->deadline != 0 && e->deadline <= now)
			expire(t, e, e->deadline);
		/* Garbage: STALE entries unused, and FAILED entries, for
		 * gc_stale_ms. */
		uint64_t due = e->deadline;
		if (e->state == NEIGH_STALE || e->state == NEIGH_FAILED) {
			uint64_t idle = e->updated;
			if (e->state == NEIGH_STALE && e->used > idle)
				idle = e->used;
			uint64_t gc = idle + t->conf.gc_stale_ms;
			if (gc <= now) {
				remove_entry(t, i);
				t->st.collected++;
				continue;
			}
			due = due && due < gc ? due : gc;
		}
		if (due != 0 && (next == 0 || due < next))
			next = due;
	}
	return next;
}

int
neigh_get(const struct neigh_table *t, const struct neigh_key *k, struct neigh_info *out)
{
	uint32_t i = find(t, k);
	if (i == 0)
		return -ENOENT;
	const struct entry *e = &t->e[i];
	out->key = e->key;
	out->state = e->state;
	memcpy(out->mac, e->mac, 6);
	out->probes = e->probes;
	out->queued = e->qcount;
	out->deadline = e->deadline;
	return 0;
}

int
neigh_walk(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *), void *arg)
{
	struct neigh_info info;
	for (uint32_t i = 1; i <= t->conf.max_entries; i++) {
		if (t->e[i].state == NEIGH_NONE)
			continue;
		neigh_get(t, &t->e[i].key, &info);
		int rc = cb(&info, arg);
		if (rc)
			return rc;
	}
	return 0;
}

void
neigh_get_stats(const struct neigh_table *t, struct neigh_stats *st)
{
	*st = t->st;
}

size_t
neigh_memory(const struct neigh_table *t)
{
	return sizeof(*t) + sizeof(*t->e) * (t->conf.max_entries + 1) +
	       sizeof(*t->head) * (t->mask + 1);
}

const char *
neigh_state_name(uint8_t state)
{
	static const char *const names[] = {"NONE",  "INCOMPLETE", "REACHABLE", "STALE",
					    "DELAY", "PROBE",      "FAILED",    "PERMANENT"};
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}
