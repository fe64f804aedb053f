/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour timers: a wheel of one-millisecond slots, long enough to
 * hold the longest timer the configuration makes (60 s by default), so a
 * slot only ever holds entries due at the same millisecond. Arming and
 * disarming are a list operation; running the timers costs the entries
 * due plus a bitmap word for each 64 ms passed, never a walk of the
 * table. A timer beyond the wheel (settings of minutes) is parked at its
 * far end and re-armed when that comes.
 */
#include <errno.h>
#include <stdlib.h>

#include "neigh_priv.h"

#define WHEEL_MIN (1u << 10)
#define WHEEL_MAX (1u << 18)

int
wheel_init(struct neigh_table *t)
{
	const struct neigh_conf *c = &t->conf;
	uint64_t longest = (uint64_t)c->base_reachable_ms * 3 / 2;
	if (c->gc_stale_ms > longest)
		longest = c->gc_stale_ms;
	if (c->delay_probe_ms > longest)
		longest = c->delay_probe_ms;
	if (c->retrans_ms > longest)
		longest = c->retrans_ms;
	uint64_t n = WHEEL_MIN;
	while (n < longest + 2 && n < WHEEL_MAX)
		n <<= 1;
	t->slot = calloc(n, sizeof(*t->slot));
	t->bits = calloc(n / 64, sizeof(*t->bits));
	t->wmask = n - 1;
	return t->slot != NULL && t->bits != NULL ? 0 : -ENOMEM;
}

void
wheel_free(struct neigh_table *t)
{
	free(t->slot);
	free(t->bits);
}

size_t
wheel_memory(const struct neigh_table *t)
{
	return (t->wmask + 1) * sizeof(*t->slot) + (t->wmask + 1) / 64 * sizeof(*t->bits);
}

static void
unlink_slot(struct neigh_table *t, uint32_t i)
{
	struct entry *e = &t->e[i];
	uint64_t s = e->when & t->wmask;
	if (e->tl.prev != 0)
		t->e[e->tl.prev].tl.next = e->tl.next;
	else
		t->slot[s] = e->tl.next;
	if (e->tl.next != 0)
		t->e[e->tl.next].tl.prev = e->tl.prev;
	if (t->slot[s] == 0)
		t->bits[s / 64] &= ~(1ull << (s % 64));
	e->tl.prev = e->tl.next = 0;
	e->when = 0;
	t->armed--;
}

void
wheel_set(struct neigh_table *t, uint32_t i, uint64_t when)
{
	struct entry *e = &t->e[i];
	if (e->when == when)
		return;
	if (e->when != 0)
		unlink_slot(t, i);
	if (when == 0)
		return;
	/* What is already due runs at the next call; what is beyond the
	 * wheel waits at its far end. */
	if (when <= t->cursor)
		when = t->cursor + 1;
	if (when - t->cursor > t->wmask)
		when = t->cursor + t->wmask;
	uint64_t s = when & t->wmask;
	e->when = when;
	e->tl.prev = 0;
	e->tl.next = t->slot[s];
	if (t->slot[s] != 0)
		t->e[t->slot[s]].tl.prev = i;
	t->slot[s] = i;
	t->bits[s / 64] |= 1ull << (s % 64);
	t->armed++;
}

uint64_t
wheel_next(const struct neigh_table *t)
{
	if (t->armed == 0)
		return 0;
	uint64_t start = t->cursor + 1;
	for (uint64_t off = 0; off <= t->wmask;) {
		uint64_t pos = (start + off) & t->wmask;
		uint64_t word = t->bits[pos / 64] >> (pos % 64);
		if (word != 0)
			return start + off + (uint64_t)__builtin_ctzll(word);
		off += 64 - pos % 64;
	}
	return 0;
}

uint32_t
wheel_pop(struct neigh_table *t, uint64_t when)
{
	uint32_t i = t->slot[when & t->wmask];
	if (i != 0)
		unlink_slot(t, i);
	return i;
}

void
wheel_catch_up(struct neigh_table *t, uint64_t now)
{
	if (t->armed == 0 && now > t->cursor)
		t->cursor = now;
}
