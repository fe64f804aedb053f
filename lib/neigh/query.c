/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the neighbour table: one entry, all of them, the counters and
 * the memory, and the prefetch ahead of a lookup. Nothing here changes it.
 */
#include <errno.h>
#include <string.h>

#include "neigh_priv.h"

void
neigh_prefetch(const struct neigh_table *t, const struct neigh_key *k)
{
	__builtin_prefetch(&t->head[neigh_hash(k, t->mask)]);
}

int
neigh_get(const struct neigh_table *t, const struct neigh_key *k, struct neigh_info *out)
{
	uint32_t i = neigh_find(t, k);
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

int
neigh_get_port_stats(const struct neigh_table *t, uint16_t port, struct neigh_port_stats *st)
{
	if (port >= NEIGH_PORTS_MAX)
		return -EINVAL;
	*st = t->port[port].st;
	return 0;
}

size_t
neigh_memory(const struct neigh_table *t)
{
	return sizeof(*t) + (sizeof(*t->e) + sizeof(*t->chain)) * (t->conf.max_entries + 1) +
	       sizeof(*t->head) * (t->mask + 1) + budget_memory(t) + wheel_memory(t);
}

const char *
neigh_state_name(uint8_t state)
{
	static const char *const names[] = {"NONE",  "INCOMPLETE", "REACHABLE", "STALE",
					    "DELAY", "PROBE",      "FAILED",    "PERMANENT"};
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}
