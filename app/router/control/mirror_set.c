/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel mirror's own routes (mirror_set.h). */
#include <stdlib.h>
#include <string.h>

#include "mirror_set.h"

static uint64_t
key_hash(const struct mset_key *k)
{
	uint64_t a, b, c;
	memcpy(&a, k->addr, 8);
	memcpy(&b, k->addr + 8, 8);
	c = (uint64_t)k->table << 32 ^ (uint64_t)k->metric << 8 ^ (uint64_t)k->len << 1 ^ k->family;
	uint64_t h = (a ^ c * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 29) ^ b) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static bool
key_equal(const struct mset_key *a, const struct mset_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

struct mset_entry *
mset_find(const struct mset *s, const struct mset_key *key)
{
	if (s->cap == 0)
		return NULL;
	for (size_t i = key_hash(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		struct mset_entry *e = &s->e[i];
		if (!e->used)
			return NULL;
		if (key_equal(&e->key, key))
			return e;
	}
}

static int
grow(struct mset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	struct mset_entry *e = calloc(cap, sizeof(*e));
	if (e == NULL)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->e[i].used)
			continue;
		size_t j = key_hash(&s->e[i].key) & (cap - 1);
		while (e[j].used)
			j = (j + 1) & (cap - 1);
		e[j] = s->e[i];
	}
	free(s->e);
	s->e = e;
	s->cap = cap;
	return 0;
}

struct mset_entry *
mset_add(struct mset *s, const struct mset_key *key, bool *added)
{
	struct mset_entry *f = mset_find(s, key);
	*added = f == NULL;
	if (f != NULL)
		return f;
	if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
		return NULL;
	size_t i = key_hash(key) & (s->cap - 1);
	while (s->e[i].used)
		i = (i + 1) & (s->cap - 1);
	s->e[i] = (struct mset_entry){.key = *key, .used = true};
	s->n++;
	return &s->e[i];
}

void
mset_del(struct mset *s, const struct mset_key *key)
{
	struct mset_entry *f = mset_find(s, key);
	if (f == NULL)
		return;
	size_t mask = s->cap - 1, i = (size_t)(f - s->e);
	/* Backward shift: pull later entries of the probe run into the hole
	 * when their home slot is not between the hole and them. */
	for (size_t j = (i + 1) & mask; s->e[j].used; j = (j + 1) & mask) {
		size_t home = key_hash(&s->e[j].key) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->e[i] = s->e[j];
			i = j;
		}
	}
	s->e[i].used = false;
	s->n--;
}

void
mset_free(struct mset *s)
{
	free(s->e);
	s->e = NULL;
	s->cap = s->n = 0;
}
