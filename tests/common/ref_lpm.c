/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "ref_lpm.h"

typedef unsigned __int128 u128;

struct ref_ent {
	u128 key;
	uint32_t value;
	uint32_t seq; /* order of ref_set calls: the last one wins */
};

struct ref_len {
	struct ref_ent *e; /* sorted by key after ref_commit */
	uint32_t n, cap;
	struct ref_ent *hash; /* open addressing over e, built by ref_commit */
	uint32_t hmask;
};

struct ref_lpm {
	uint8_t family;
	unsigned int maxlen;
	uint32_t seq;
	struct ref_len len[129];
};

static u128
to_key(const struct fib_prefix *p, unsigned int len)
{
	u128 k = 0;
	if (p->family == FIB_AF_INET)
		k = (u128)p->addr.v4 << 96;
	else
		for (int i = 0; i < 16; i++)
			k = (k << 8) | p->addr.v6[i];
	if (len == 0)
		return 0;
	return k & ~((((u128)1) << (128 - len)) - 1);
}

struct ref_lpm *
ref_create(uint8_t family)
{
	struct ref_lpm *r = calloc(1, sizeof(*r));
	r->family = family;
	r->maxlen = family == FIB_AF_INET ? 32 : 128;
	return r;
}

void
ref_free(struct ref_lpm *r)
{
	for (int i = 0; i <= 128; i++) {
		free(r->len[i].e);
		free(r->len[i].hash);
	}
	free(r);
}

static int
cmp_key(const void *a, const void *b)
{
	const struct ref_ent *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int
cmp_key_seq(const void *a, const void *b)
{
	const struct ref_ent *x = a, *y = b;
	int c = cmp_key(a, b);
	return c ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

static uint32_t
hash(u128 k)
{
	/* splitmix64's finalizer over both halves: every key bit moves the
	 * low bits the table indexes with. */
	uint64_t x = (uint64_t)(k >> 64) ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x;
}

void
ref_set(struct ref_lpm *r, const struct fib_prefix *p, uint32_t value)
{
	struct ref_len *l = &r->len[p->len];
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->e = realloc(l->e, sizeof(*l->e) * l->cap);
	}
	l->e[l->n].key = to_key(p, p->len);
	l->e[l->n].value = value;
	l->e[l->n].seq = r->seq++;
	l->n++;
}

void
ref_commit(struct ref_lpm *r)
{
	for (int i = 0; i <= 128; i++) {
		struct ref_len *l = &r->len[i];
		if (l->n > 1)
			qsort(l->e, l->n, sizeof(*l->e), cmp_key_seq);
		uint32_t k = 0;
		for (uint32_t j = 0; j < l->n; j++) {
			if (j + 1 < l->n && l->e[j + 1].key == l->e[j].key)
				continue; /* a later set of the same prefix wins */
			if (l->e[j].value != 0)
				l->e[k++] = l->e[j];
		}
		l->n = k;
		free(l->hash);
		l->hash = NULL;
		if (k == 0)
			continue;
		uint32_t cap = 4;
		while (cap < 2 * k)
			cap *= 2;
		l->hash = calloc(cap, sizeof(*l->hash));
		l->hmask = cap - 1;
		for (uint32_t j = 0; j < k; j++) {
			uint32_t h = hash(l->e[j].key) & l->hmask;
			while (l->hash[h].value != 0)
				h = (h + 1) & l->hmask;
			l->hash[h] = l->e[j];
		}
	}
}

static const struct ref_ent *
search(const struct ref_len *l, u128 key)
{
	for (uint32_t h = hash(key) & l->hmask; l->hash[h].value != 0; h = (h + 1) & l->hmask)
		if (l->hash[h].key == key)
			return &l->hash[h];
	return NULL;
}

uint32_t
ref_lookup(const struct ref_lpm *r, const struct fib_prefix *addr)
{
	u128 full = to_key(addr, 128);
	for (int len = (int)r->maxlen; len >= 0; len--) {
		const struct ref_len *l = &r->len[len];
		if (l->n == 0)
			continue;
		u128 key = len == 0 ? 0 : full & ~((((u128)1) << (128 - len)) - 1);
		const struct ref_ent *e = search(l, key);
		if (e != NULL)
			return e->value;
	}
	return 0;
}
