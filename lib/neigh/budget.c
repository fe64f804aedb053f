/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may resolve what: the INCOMPLETE entries of each port and of each
 * source on it, in the order they began, and the token buckets that
 * bound the multicast requests sent for them (docs/neigh.md, "Fair
 * resolution").
 *
 * A source is the sender of the packets that asked for a neighbour, per
 * port and family, or the router itself. Its record lives while it has
 * resolutions pending, so there are never more records than INCOMPLETE
 * entries, and the table of records is sized like the entries' budget.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "neigh_priv.h"

int
budget_init(struct neigh_table *t)
{
	/* Never more records than INCOMPLETE entries: the table's budget
	 * for a few ports is plenty, a full table's at most. */
	uint32_t n = t->conf.port_incomplete * 8;
	if (n > t->conf.max_entries)
		n = t->conf.max_entries;
	uint32_t heads = 4;
	while (heads < 2 * n)
		heads <<= 1;
	t->s = calloc(n + 1, sizeof(*t->s));
	t->shead = calloc(heads, sizeof(*t->shead));
	if (t->s == NULL || t->shead == NULL)
		return -ENOMEM;
	t->smask = heads - 1;
	t->max_sources = n;
	for (uint32_t i = n; i >= 1; i--) {
		t->s[i].next = t->sfree;
		t->sfree = i;
	}
	/* Each port starts with a full bucket: a burst as large as what it
	 * may have resolving. */
	for (unsigned int p = 0; p < NEIGH_PORTS_MAX; p++)
		t->port[p].b.milli = (uint64_t)t->conf.port_incomplete * 1000;
	return 0;
}

void
budget_free(struct neigh_table *t)
{
	free(t->s);
	free(t->shead);
}

size_t
budget_memory(const struct neigh_table *t)
{
	return (t->max_sources + 1) * sizeof(*t->s) + (t->smask + 1) * sizeof(*t->shead);
}

static struct neigh_key
source_key(const struct neigh_key *k, const void *src)
{
	static const uint8_t none[16];
	/* family 0 is the router itself, apart from every address. */
	struct neigh_key sk =
		neigh_key(k->port, src ? k->family : NEIGH_AF_INET6, src ? src : none);
	if (src == NULL)
		sk.family = 0;
	return sk;
}

uint32_t
source_get(struct neigh_table *t, const struct neigh_key *k, const void *src, bool find_only)
{
	struct neigh_key sk = source_key(k, src);
	uint32_t h = neigh_hash(&sk, t->smask);
	uint32_t i = t->shead[h];
	while (i != 0 && memcmp(&t->s[i].key, &sk, sizeof(sk)) != 0)
		i = t->s[i].next;
	if (i != 0 || find_only || t->sfree == 0)
		return i;
	i = t->sfree;
	struct source *s = &t->s[i];
	t->sfree = s->next;
	memset(s, 0, sizeof(*s));
	s->key = sk;
	s->b.milli = (uint64_t)t->conf.source_incomplete * 1000;
	s->next = t->shead[h];
	t->shead[h] = i;
	t->st.sources++;
	return i;
}

static void
source_put(struct neigh_table *t, uint32_t si)
{
	struct source *s = &t->s[si];
	if (--s->count != 0)
		return;
	uint32_t *p = &t->shead[neigh_hash(&s->key, t->smask)];
	while (*p != si)
		p = &t->s[*p].next;
	*p = s->next;
	s->next = t->sfree;
	t->sfree = si;
	t->st.sources--;
}

void
budget_enter(struct neigh_table *t, uint32_t i, uint32_t si)
{
	struct entry *e = &t->e[i];
	struct port *p = &t->port[e->key.port];
	e->src = si;
	nlist_append(t->e, &p->incomplete, i, NLIST_L);
	p->st.incomplete++;
	t->st.incomplete++;
	if (si != 0) {
		nlist_append(t->e, &t->s[si].list, i, NLIST_SL);
		t->s[si].count++;
	}
}

void
budget_leave(struct neigh_table *t, uint32_t i)
{
	struct entry *e = &t->e[i];
	struct port *p = &t->port[e->key.port];
	nlist_remove(t->e, &p->incomplete, i, NLIST_L);
	p->st.incomplete--;
	t->st.incomplete--;
	if (e->src != 0) {
		nlist_remove(t->e, &t->s[e->src].list, i, NLIST_SL);
		source_put(t, e->src);
		e->src = 0;
	}
}

uint32_t
budget_victim(struct neigh_table *t, uint16_t port, uint32_t si)
{
	if (si != 0 && t->s[si].count >= t->conf.source_incomplete)
		return t->s[si].list.head;
	const struct port *p = &t->port[port];
	if (p->st.incomplete >= t->conf.port_incomplete)
		return p->incomplete.head;
	return 0;
}

/* Refill b at `rate` a second up to `burst`, then take one request if
 * there is one; check only (take false) to test two buckets first. */
static bool
bucket_has(struct bucket *b, uint32_t rate, uint32_t burst, uint64_t now)
{
	if (now > b->last_ms) {
		b->milli += (now - b->last_ms) * rate;
		if (b->milli > (uint64_t)burst * 1000)
			b->milli = (uint64_t)burst * 1000;
	}
	b->last_ms = now;
	return b->milli >= 1000;
}

bool
budget_request(struct neigh_table *t, uint32_t i, uint64_t now)
{
	const struct neigh_conf *c = &t->conf;
	struct entry *e = &t->e[i];
	struct port *p = &t->port[e->key.port];
	struct bucket *sb = e->src != 0 ? &t->s[e->src].b : NULL;
	bool ok = bucket_has(&p->b, c->port_requests, c->port_incomplete, now);
	if (sb != NULL)
		ok = bucket_has(sb, c->source_requests, c->source_incomplete, now) && ok;
	if (!ok) {
		p->st.rate_limited++;
		t->st.rate_limited++;
		return false;
	}
	p->b.milli -= 1000;
	if (sb != NULL)
		sb->milli -= 1000;
	p->st.requests++;
	return true;
}
