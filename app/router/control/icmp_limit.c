/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "icmp_limit.h"

void
icmp_limit_init(struct icmp_limit *l, uint64_t interval)
{
	memset(l, 0, sizeof(*l));
	l->interval = interval;
}

void
icmp_limit_key4(uint32_t addr_be, uint8_t key[16])
{
	memset(key, 0, 10);
	key[10] = key[11] = 0xff;
	memcpy(key + 12, &addr_be, 4);
}

static uint32_t
slot_of(const uint64_t k[2])
{
	uint64_t h = (k[0] ^ (k[1] * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 40) % ICMP_LIMIT_SLOTS;
}

/* The entry of key k: found, or a free or least recently used one of its
 * probe run, reset for k with a full burst (a destination not seen
 * lately may have its burst, as a new inet_peer does). */
static struct icmp_dest *
entry_of(struct icmp_limit *l, const uint64_t k[2])
{
	uint32_t s = slot_of(k);
	struct icmp_dest *victim = NULL;
	for (uint32_t i = 0; i < ICMP_LIMIT_PROBE; i++) {
		struct icmp_dest *d = &l->e[(s + i) % ICMP_LIMIT_SLOTS];
		if (d->b.last != 0 && d->key[0] == k[0] && d->key[1] == k[1])
			return d;
		if (victim == NULL || d->b.last < victim->b.last)
			victim = d;
	}
	victim->key[0] = k[0];
	victim->key[1] = k[1];
	victim->b = (struct icmp_bucket){0};
	return victim;
}

bool
icmp_bucket_take(struct icmp_bucket *b, uint64_t now, uint64_t interval, uint64_t burst)
{
	uint64_t cap = burst * interval;
	if (b->last == 0) {
		b->tokens = cap;
	} else {
		uint64_t t = b->tokens + (now - b->last);
		b->tokens = t > cap || t < b->tokens ? cap : t;
	}
	b->last = now;
	if (b->tokens < interval)
		return false;
	b->tokens -= interval;
	return true;
}

bool
icmp_limit_allow(struct icmp_limit *l, const uint8_t addr[16], uint64_t now)
{
	if (l->interval == 0)
		return true;
	uint64_t k[2];
	memcpy(k, addr, 16);
	return icmp_bucket_take(&entry_of(l, k)->b, now, l->interval, ICMP_LIMIT_BURST);
}
