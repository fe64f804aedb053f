/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour table: a fixed array of entries (allocated once, so
 * memory is bounded whatever arrives) indexed by a chained hash of the
 * key, and the NUD state machine. Control core only.
 *
 * Sizes: with the default 1024 entries of about 230 bytes (16 queue slots
 * each) the entries hold about 230 KiB; the hash has 2 heads per entry;
 * the timer wheel 256 KiB (wheel.c).
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
 * collected; when the table is full the oldest FAILED entry, else the
 * oldest STALE one, is evicted for a new neighbour (lists in state order,
 * not a search). REACHABLE, DELAY, PROBE, PERMANENT and INCOMPLETE
 * entries are never evicted; INCOMPLETE ones are bounded and replaced by
 * the budget (budget.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "neigh_priv.h"

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

uint64_t
neigh_mix(const struct neigh_key *k)
{
	uint64_t a, b, c;
	memcpy(&a, k->addr, 8);
	memcpy(&b, k->addr + 8, 8);
	c = (uint64_t)k->port << 8 | k->family;
	uint64_t h = (a ^ c * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	return (h ^ (h >> 29) ^ b) * 0x94d049bb133111ebull;
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
	c.port_incomplete = DEFAULT(c.port_incomplete, 256);
	c.source_incomplete = DEFAULT(c.source_incomplete, 32);
	c.port_requests = DEFAULT(c.port_requests, 1000);
	c.source_requests = DEFAULT(c.source_requests, 100);
	c.base_reachable_ms = DEFAULT(c.base_reachable_ms, 30000);
	c.retrans_ms = DEFAULT(c.retrans_ms, 1000);
	c.delay_probe_ms = DEFAULT(c.delay_probe_ms, 5000);
	c.ucast_probes = DEFAULT(c.ucast_probes, 3);
	c.mcast_probes = DEFAULT(c.mcast_probes, 3);
	c.gc_stale_ms = DEFAULT(c.gc_stale_ms, 60000);
	c.queue_len = DEFAULT(c.queue_len, 3);
	c.seed = DEFAULT(c.seed, 0x2545f4914f6cdd1dull);
	if (ops == NULL || c.queue_len > NEIGH_QUEUE_MAX || c.max_entries > (1u << 24) ||
	    c.ucast_probes > 255 || c.mcast_probes > 255 || c.port_incomplete > (1u << 24) ||
	    c.source_incomplete > c.port_incomplete || c.port_requests > (1u << 24) ||
	    c.source_requests > c.port_requests) {
		errno = EINVAL;
		return NULL;
	}
	struct neigh_table *t = calloc(1, sizeof(*t));
	uint32_t heads = 4;
	while (heads < 2 * c.max_entries)
		heads <<= 1;
	if (t != NULL) {
		t->conf = c;
		t->e = calloc(c.max_entries + 1, sizeof(*t->e));
		t->chain = calloc(c.max_entries + 1, sizeof(*t->chain));
		t->head = calloc(heads, sizeof(*t->head));
	}
	if (t == NULL || t->e == NULL || t->chain == NULL || t->head == NULL ||
	    budget_init(t) != 0 || wheel_init(t) != 0) {
		neigh_free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->ops = *ops;
	t->ctx = ctx;
	t->mask = heads - 1;
	t->rng = c.seed;
	for (uint32_t i = c.max_entries; i >= 1; i--) {
		t->chain[i].next = t->free_head;
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
	free(t->chain);
	free(t->head);
	budget_free(t);
	wheel_free(t);
	free(t);
}

uint32_t
neigh_find(const struct neigh_table *t, const struct neigh_key *k)
{
	uint64_t h = neigh_mix(k);
	uint32_t i = t->head[neigh_bucket(h, t->mask)];
	/* The entry is read only when its tag matches: a key not in the
	 * table (a flood's) costs the heads and links, not the entries. */
	while (i != 0 && (t->chain[i].tag != (uint32_t)h || !key_equal(&t->e[i].key, k)))
		i = t->chain[i].next;
	return i;
}

/* The state's lists: INCOMPLETE entries are the budget's, STALE and
 * FAILED ones the eviction order, oldest first. */
static void
set_state(struct neigh_table *t, uint32_t i, uint8_t state, uint64_t now)
{
	struct entry *e = &t->e[i];
	if (e->state == NEIGH_INCOMPLETE)
		budget_leave(t, i);
	else if (e->state == NEIGH_STALE)
		nlist_remove(t->e, &t->stale, i, NLIST_L);
	else if (e->state == NEIGH_FAILED)
		nlist_remove(t->e, &t->failed, i, NLIST_L);
	if (state == NEIGH_STALE)
		nlist_append(t->e, &t->stale, i, NLIST_L);
	else if (state == NEIGH_FAILED)
		nlist_append(t->e, &t->failed, i, NLIST_L);
	e->state = state;
	e->updated = now;
}

/* Put the entry's next timer on the wheel: its NUD deadline, or for a
 * STALE or FAILED entry its collection if that comes first. */
static void
rearm(struct neigh_table *t, uint32_t i)
{
	const struct entry *e = &t->e[i];
	uint64_t when = e->deadline;
	if (e->state == NEIGH_STALE || e->state == NEIGH_FAILED) {
		uint64_t gc = e->updated + t->conf.gc_stale_ms;
		when = when != 0 && when < gc ? when : gc;
	}
	wheel_set(t, i, e->state == NEIGH_NONE ? 0 : when);
}

static void
unlink_entry(struct neigh_table *t, uint32_t i)
{
	struct entry *e = &t->e[i];
	uint32_t *p = &t->head[neigh_bucket(neigh_mix(&e->key), t->mask)];
	while (*p != i)
		p = &t->chain[*p].next;
	*p = t->chain[i].next;
	queue_drop_all(t, e);
	set_state(t, i, NEIGH_NONE, 0);
	wheel_set(t, i, 0);
	t->chain[i].next = t->free_head;
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

/* A new entry for k, or 0 when none can be had. A full table gives up
 * its oldest FAILED entry (it holds nothing), else its oldest STALE one. */
static uint32_t
create(struct neigh_table *t, const struct neigh_key *k, uint64_t now)
{
	if (t->free_head == 0) {
		uint32_t v = t->failed.head ? t->failed.head : t->stale.head;
		if (v == 0) {
			t->st.table_full++;
			return 0;
		}
		remove_entry(t, v);
		t->st.evicted++;
	}
	uint32_t i = t->free_head;
	struct entry *e = &t->e[i];
	t->free_head = t->chain[i].next;
	memset(e, 0, sizeof(*e));
	e->key = *k;
	e->used = e->updated = now;
	uint64_t h = neigh_mix(k);
	uint32_t b = neigh_bucket(h, t->mask);
	t->chain[i] = (struct chain){.next = t->head[b], .tag = (uint32_t)h};
	t->head[b] = i;
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

/* A multicast request for an INCOMPLETE entry, if its port's and its
 * source's rates allow one now; if not, its next retransmission tries. */
static void
request(struct neigh_table *t, uint32_t i, uint64_t now)
{
	if (budget_request(t, i, now) && t->ops.probe)
		t->ops.probe(t->ctx, &t->e[i].key, NULL);
}

static void
start_incomplete(struct neigh_table *t, uint32_t i, uint32_t si, uint64_t now)
{
	struct entry *e = &t->e[i];
	set_state(t, i, NEIGH_INCOMPLETE, now);
	budget_enter(t, i, si);
	e->probes = 1;
	e->deadline = now + t->conf.retrans_ms;
	rearm(t, i);
	request(t, i, now);
}

static bool
usable(uint8_t state)
{
	return state == NEIGH_REACHABLE || state == NEIGH_STALE || state == NEIGH_DELAY ||
	       state == NEIGH_PROBE || state == NEIGH_PERMANENT;
}

/* Traffic uses e: a STALE entry starts its delay before probing. */
static void
use(struct neigh_table *t, uint32_t i, uint64_t now)
{
	struct entry *e = &t->e[i];
	e->used = now;
	if (e->state == NEIGH_STALE) {
		set_state(t, i, NEIGH_DELAY, now);
		e->deadline = now + t->conf.delay_probe_ms;
		rearm(t, i);
	}
}

/* A resolution for k asked by src starts, within the port's and the
 * source's budget (replacing the oldest of them at the limit): the entry,
 * or 0 when none can be had. i is k's FAILED entry, or 0. */
static uint32_t
begin(struct neigh_table *t, const struct neigh_key *k, const void *src, uint32_t i, uint64_t now)
{
	struct port *p = &t->port[k->port];
	uint32_t si = source_get(t, k, src, true);
	if (si == 0 && t->sfree == 0) {
		p->st.refused++;
		t->st.table_full++;
		return 0;
	}
	uint32_t v = budget_victim(t, k->port, si);
	if (v != 0) {
		remove_entry(t, v); /* may end si's record: looked up again below */
		p->st.replaced++;
		t->st.replaced++;
	}
	if (i == 0 && (i = create(t, k, now)) == 0) {
		p->st.refused++;
		return 0;
	}
	start_incomplete(t, i, source_get(t, k, src, false), now);
	return i;
}

int
neigh_resolve(struct neigh_table *t, const struct neigh_key *k, const void *src, void *pkt,
	      uint64_t now, uint8_t mac[6])
{
	wheel_catch_up(t, now);
	uint32_t i = neigh_find(t, k);
	if (i != 0 && usable(t->e[i].state)) {
		use(t, i, now);
		memcpy(mac, t->e[i].mac, 6);
		return 0;
	}
	if (i == 0 || t->e[i].state == NEIGH_FAILED) {
		if (k->port >= NEIGH_PORTS_MAX) {
			t->st.table_full++;
			return -ENOSPC;
		}
		if ((i = begin(t, k, src, i, now)) == 0)
			return -ENOSPC;
	}
	enqueue(t, &t->e[i], pkt);
	t->e[i].used = now;
	return -EAGAIN;
}

void
neigh_touch(struct neigh_table *t, const struct neigh_key *k, uint64_t now)
{
	uint32_t i = neigh_find(t, k);
	if (i != 0 && usable(t->e[i].state))
		use(t, i, now);
}

/* e gets mac in state `state`; queued packets leave if it is usable. */
static void
update(struct neigh_table *t, uint32_t i, const uint8_t mac[6], uint8_t state, uint64_t now)
{
	struct entry *e = &t->e[i];
	bool was_usable = usable(e->state), mac_changed = memcmp(e->mac, mac, 6) != 0;
	memcpy(e->mac, mac, 6);
	set_state(t, i, state, now);
	e->probes = 0;
	e->deadline = state == NEIGH_REACHABLE ? now + reachable_time(t) : 0;
	rearm(t, i);
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
	wheel_catch_up(t, now);
	uint32_t i = neigh_find(t, k);
	if (i == 0)
		return -ENOENT; /* unsolicited, unknown: not created (RFC 4861 7.2.5) */
	struct entry *e = &t->e[i];
	if (e->state == NEIGH_PERMANENT)
		return 0;
	bool solicited = flags & NEIGH_F_SOLICITED, override = flags & NEIGH_F_OVERRIDE;
	if (e->state == NEIGH_INCOMPLETE || e->state == NEIGH_FAILED) {
		/* First address learned: REACHABLE if solicited, else STALE. */
		update(t, i, mac, solicited ? NEIGH_REACHABLE : NEIGH_STALE, now);
		return 0;
	}
	bool same = memcmp(e->mac, mac, 6) == 0;
	if (!override && !same) {
		/* A different address without override: keep ours; a
		 * REACHABLE entry becomes STALE (RFC 4861 7.2.5). */
		if (e->state == NEIGH_REACHABLE) {
			set_state(t, i, NEIGH_STALE, now);
			e->deadline = 0;
			rearm(t, i);
		}
		return 0;
	}
	if (solicited)
		update(t, i, mac, NEIGH_REACHABLE, now);
	else if (!same)
		update(t, i, mac, NEIGH_STALE, now);
	return 0;
}

int
neigh_learn(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6], uint64_t now)
{
	wheel_catch_up(t, now);
	uint32_t i = neigh_find(t, k);
	if (i == 0) {
		if ((i = create(t, k, now)) == 0)
			return -ENOSPC;
		update(t, i, mac, NEIGH_STALE, now);
		return 0;
	}
	struct entry *e = &t->e[i];
	if (e->state == NEIGH_PERMANENT)
		return 0;
	if (!usable(e->state) || memcmp(e->mac, mac, 6) != 0)
		update(t, i, mac, NEIGH_STALE, now);
	return 0;
}

int
neigh_add_permanent(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6])
{
	uint32_t i = neigh_find(t, k);
	if (i == 0 && (i = create(t, k, 0)) == 0)
		return -ENOSPC;
	update(t, i, mac, NEIGH_PERMANENT, t->e[i].updated);
	return 0;
}

int
neigh_del(struct neigh_table *t, const struct neigh_key *k)
{
	uint32_t i = neigh_find(t, k);
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
fail(struct neigh_table *t, uint32_t i, uint64_t now)
{
	struct entry *e = &t->e[i];
	bool had_mac = e->state == NEIGH_PROBE;
	set_state(t, i, NEIGH_FAILED, now);
	e->deadline = 0;
	e->probes = 0;
	rearm(t, i);
	t->st.failed++;
	if (had_mac && t->ops.changed)
		t->ops.changed(t->ctx, &e->key, NULL);
	if (e->qcount > 0) {
		void *pkts[NEIGH_QUEUE_MAX];
		struct neigh_key k = e->key;
		unsigned int n = dequeue_all(e, pkts);
		if (t->ops.failed)
			t->ops.failed(t->ctx, &k, pkts, n);
		else if (t->ops.drop)
			for (unsigned int j = 0; j < n; j++)
				t->ops.drop(t->ctx, pkts[j]);
	}
}

/* One entry's NUD timer at `now`. */
static void
expire(struct neigh_table *t, uint32_t i, uint64_t now)
{
	struct entry *e = &t->e[i];
	switch (e->state) {
	case NEIGH_INCOMPLETE:
		if (e->probes >= t->conf.mcast_probes) {
			fail(t, i, now);
			return;
		}
		e->probes++;
		e->deadline = now + t->conf.retrans_ms;
		request(t, i, now);
		return;
	case NEIGH_REACHABLE:
		if (now - e->used < t->conf.delay_probe_ms) {
			set_state(t, i, NEIGH_DELAY, now);
			e->deadline = now + t->conf.delay_probe_ms;
		} else {
			set_state(t, i, NEIGH_STALE, now);
			e->deadline = 0;
		}
		return;
	case NEIGH_DELAY:
		set_state(t, i, NEIGH_PROBE, now);
		e->probes = 0;
		/* The first unicast probe goes now. */
		__attribute__((fallthrough));
	case NEIGH_PROBE:
		if (e->probes >= t->conf.ucast_probes) {
			fail(t, i, now);
			return;
		}
		e->probes++;
		e->deadline = now + t->conf.retrans_ms;
		if (e->key.port < NEIGH_PORTS_MAX)
			t->port[e->key.port].st.probes++;
		if (t->ops.probe)
			t->ops.probe(t->ctx, &e->key, e->mac);
		return;
	default:
		e->deadline = 0;
		return;
	}
}

/* Entry i's timer came, at `when`: its NUD timers up to then run (each
 * at its own time), then it is collected or goes back on the wheel. The
 * callbacks may change the table; an entry they removed is left alone. */
static void
fire(struct neigh_table *t, uint32_t i, uint64_t when)
{
	struct entry *e = &t->e[i];
	while (e->deadline != 0 && e->deadline <= when && e->state != NEIGH_NONE)
		expire(t, i, e->deadline);
	if (e->state == NEIGH_NONE)
		return;
	if ((e->state == NEIGH_STALE || e->state == NEIGH_FAILED) &&
	    e->updated + t->conf.gc_stale_ms <= when) {
		remove_entry(t, i);
		t->st.collected++;
		return;
	}
	rearm(t, i);
}

uint64_t
neigh_timer(struct neigh_table *t, uint64_t now)
{
	uint64_t when;
	while ((when = wheel_next(t)) != 0 && when <= now) {
		t->cursor = when;
		uint32_t i;
		while ((i = wheel_pop(t, when)) != 0)
			fire(t, i, when);
	}
	if (now > t->cursor)
		t->cursor = now;
	return wheel_next(t);
}
