/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The front of the library: argument checks, the table registry, and
 * dispatch to table.c (routes) and rules.c (policy). All checks happen
 * here, on the writer's path, so the algorithm files can assume valid
 * input and the lookups check nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fib_priv.h"
#include "table.h"

static void
free_mem(void *ctx, uint32_t arg)
{
	(void)arg;
	free(ctx);
}

struct fib *
fib_create(const struct fib_conf *conf)
{
	if (conf == NULL) {
		errno = EINVAL;
		return NULL;
	}
	struct fib_conf c = *conf;
	if (c.type_nh[FIB_RT_BROADCAST] == FIB_NH_NONE)
		c.type_nh[FIB_RT_BROADCAST] = c.type_nh[FIB_RT_LOCAL];
	c.type_nh[FIB_RT_THROW] = FIB_NH_NONE;
	conf = &c;
	for (int t = FIB_RT_LOCAL; t < FIB_RT_COUNT; t++) {
		if (t == FIB_RT_THROW)
			continue;
		if (conf->type_nh[t] == FIB_NH_NONE || conf->type_nh[t] > FIB_NH_MAX) {
			errno = EINVAL;
			return NULL;
		}
	}
	if (conf->groups4 > MBT_GROUPS_MAX4 || conf->groups6 > MBT_GROUPS_MAX6 ||
	    conf->rule_unreachable_nh > FIB_NH_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct fib *fib = aligned_alloc(64, sizeof(*fib));
	if (fib == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(fib, 0, sizeof(*fib));
	fib->conf = *conf;
	fib->local_nh = conf->type_nh[FIB_RT_LOCAL];
	defer_init(&fib->defer, conf->qsbr);
	fib->main = fib_table_get_or_create(fib, FIB_TABLE_MAIN);
	if (fib->main == NULL || rules_init(fib) < 0) {
		fib_free(fib);
		errno = ENOMEM;
		return NULL;
	}
	return fib;
}

void
fib_free(struct fib *fib)
{
	if (fib == NULL)
		return;
	rules_fini(fib);
	defer_fini(&fib->defer);
	if (fib->tables != NULL) {
		for (uint32_t i = 0; i < fib->tables->n; i++)
			table_free(fib->tables->e[i].t);
		free(fib->tables);
	}
	free(fib);
}

uint32_t
fib_reclaim(struct fib *fib)
{
	defer_reclaim(&fib->defer);
	return fib->defer.count;
}

static int
table_index(const struct table_set *s, uint32_t id, uint32_t *pos)
{
	uint32_t lo = 0, hi = s ? s->n : 0;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return s != NULL && lo < s->n && s->e[lo].id == id;
}

const struct fib_table *
fib_table_lookup(const struct fib *fib, uint32_t id)
{
	/* Acquire: the set's contents were written before it was published. */
	const struct table_set *s = __atomic_load_n(&fib->tables, __ATOMIC_ACQUIRE);
	uint32_t pos;
	return table_index(s, id ? id : FIB_TABLE_MAIN, &pos) ? s->e[pos].t : NULL;
}

struct fib_table *
fib_table_get_or_create(struct fib *fib, uint32_t id)
{
	struct table_set *old = fib->tables, *s;
	uint32_t pos, n = old ? old->n : 0;
	if (table_index(old, id, &pos))
		return old->e[pos].t;

	s = malloc(sizeof(*s) + sizeof(s->e[0]) * (n + 1));
	struct fib_table *t = table_create(id, &fib->conf, &fib->defer);
	if (s == NULL || t == NULL || defer_reserve(&fib->defer, 1) < 0) {
		free(s);
		table_free(t);
		return NULL;
	}
	s->n = n + 1;
	if (n)
		memcpy(s->e, old->e, sizeof(s->e[0]) * pos);
	s->e[pos].id = id;
	s->e[pos].t = t;
	if (n)
		memcpy(&s->e[pos + 1], &old->e[pos], sizeof(s->e[0]) * (n - pos));
	/* Release: readers that see the new set see its entries. */
	__atomic_store_n(&fib->tables, s, __ATOMIC_RELEASE);
	if (old != NULL)
		(void)defer_push(&fib->defer, free_mem, old, 0);
	return t;
}

static int
prefix_valid(const struct fib_prefix *p)
{
	if (p->family == FIB_AF_INET) {
		if (p->len > 32)
			return 0;
		/* Host bits must be zero, as `ip route` insists. */
		return p->len == 32 || (p->addr.v4 & (0xffffffffu >> p->len)) == 0;
	}
	if (p->family != FIB_AF_INET6 || p->len > 128)
		return 0;
	for (unsigned int b = p->len; b < 128; b++)
		if (p->addr.v6[b / 8] & (0x80 >> (b % 8)))
			return 0;
	return 1;
}

static int
route_valid(const struct fib_route *r)
{
	if (!prefix_valid(&r->dst) || r->type >= FIB_RT_COUNT)
		return 0;
	return r->type != FIB_RT_UNICAST || (r->nh != FIB_NH_NONE && r->nh <= FIB_NH_MAX);
}

static int
route_update(struct fib *fib, const struct fib_route *r, bool replace)
{
	if (r == NULL || !route_valid(r))
		return -EINVAL;
	struct fib_table *t = fib_table_get_or_create(fib, r->table ? r->table : FIB_TABLE_MAIN);
	if (t == NULL)
		return -ENOMEM;
	uint8_t af = r->dst.family;
	bool first = r->table == FIB_TABLE_DEFAULT && table_route_count(t, af) == 0;
	int rc = table_route_add(t, r, replace);
	if (rc == 0 && first && rules_default_table_changed(fib) < 0) {
		/* The rules would not see the route: take it out again (it
		 * was the family's only one, so nothing was replaced). */
		(void)table_route_del(t, r, false);
		return -ENOMEM;
	}
	return rc;
}

int
fib_route_add(struct fib *fib, const struct fib_route *r)
{
	return route_update(fib, r, false);
}

int
fib_route_replace(struct fib *fib, const struct fib_route *r)
{
	return route_update(fib, r, true);
}

int
fib_route_del(struct fib *fib, const struct fib_route *r, bool any_metric)
{
	if (r == NULL || !prefix_valid(&r->dst))
		return -EINVAL;
	struct fib_table *t = (struct fib_table *)fib_table_lookup(fib, r->table);
	int rc = t ? table_route_del(t, r, any_metric) : -ENOENT;
	/* A set left in place if this fails looks up an empty table: the
	 * same answers, one lookup slower. */
	if (rc == 0 && r->table == FIB_TABLE_DEFAULT && table_route_count(t, r->dst.family) == 0)
		(void)rules_default_table_changed(fib);
	return rc;
}

int
fib_route_get(const struct fib *fib, const struct fib_route *key, bool any_metric,
	      struct fib_route *out)
{
	if (key == NULL || out == NULL || !prefix_valid(&key->dst))
		return -EINVAL;
	const struct fib_table *t = fib_table_lookup(fib, key->table);
	return t ? table_route_get(t, key, any_metric, out) : -ENOENT;
}

int
fib_route_match(const struct fib *fib, uint32_t table, const struct fib_prefix *addr,
		struct fib_route *out)
{
	if (addr == NULL || out == NULL ||
	    (addr->family != FIB_AF_INET && addr->family != FIB_AF_INET6))
		return -EINVAL;
	const struct fib_table *t = fib_table_lookup(fib, table);
	return t ? table_route_match(t, addr, out) : -ENOENT;
}

int
fib_sync_down(struct fib *fib)
{
	if (fib->conf.nh_down == NULL)
		return 0;
	int rc = 0;
	const struct table_set *ts = fib->tables;
	for (uint32_t i = 0; ts != NULL && i < ts->n; i++) {
		int r = table_sync_down(ts->e[i].t);
		if (rc == 0)
			rc = r;
	}
	return rc;
}

int
fib_route_walk(const struct fib *fib, uint32_t table, uint8_t family, fib_route_cb cb, void *arg)
{
	if (cb == NULL || (family != FIB_AF_INET && family != FIB_AF_INET6))
		return -EINVAL;
	const struct fib_table *t = fib_table_lookup(fib, table);
	return t ? table_route_walk(t, family, cb, arg) : -ENOENT;
}

uint32_t
fib_table_ids(const struct fib *fib, uint32_t *ids, uint32_t max)
{
	const struct table_set *s = fib->tables;
	uint32_t n = s ? s->n : 0;
	for (uint32_t i = 0; i < n && i < max; i++)
		ids[i] = s->e[i].id;
	return n;
}

uint32_t
fib_route_count(const struct fib *fib, uint32_t table, uint8_t family)
{
	const struct fib_table *t = fib_table_lookup(fib, table);
	return t ? table_route_count(t, family) : 0;
}

int
fib_table_mem(const struct fib *fib, uint32_t table, struct fib_mem_stats *st)
{
	const struct fib_table *t = fib_table_lookup(fib, table);
	if (t == NULL)
		return -ENOENT;
	table_mem(t, st);
	return 0;
}
