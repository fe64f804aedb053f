/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP groups with resilient hashing (as Linux's "resilient" nexthop
 * groups). A group owns NH_GROUP_BUCKETS buckets; a flow hash picks a
 * bucket, the bucket names a member. Members get buckets in proportion to
 * their weights (hash-threshold, RFC 2992, by bucket counts).
 *
 * When the members change, buckets stay with their member while it is in
 * the group and not above its new share; only the buckets of removed
 * members, and of members over their share, move, and only to members
 * under theirs. So removing one of four equal members moves a quarter of
 * the flows, all of them the removed member's.
 *
 * Workers read an immutable bucket table through a pointer in their line;
 * a change builds a new table, publishes it with a release store in every
 * worker's line and retires the old one through QSBR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nh_priv.h"

/* Buckets each member should own: floor of its weighted share, then the
 * remainders go to the largest fractional parts (lowest position first). */
static void
targets(const struct nh_member *m, unsigned int n, uint32_t *want)
{
	uint32_t total = 0, given = 0;
	for (unsigned int k = 0; k < n; k++)
		total += m[k].weight;
	uint32_t frac[NH_GROUP_MEMBERS_MAX];
	for (unsigned int k = 0; k < n; k++) {
		uint32_t scaled = m[k].weight * NH_GROUP_BUCKETS;
		want[k] = scaled / total;
		frac[k] = scaled % total;
		given += want[k];
	}
	while (given < NH_GROUP_BUCKETS) {
		unsigned int best = 0;
		for (unsigned int k = 1; k < n; k++)
			if (frac[k] > frac[best])
				best = k;
		want[best]++;
		frac[best] = 0;
		given++;
	}
}

/* Position of nexthop index in m[], or -1. */
static int
position(const struct nh_member *m, unsigned int n, uint32_t index)
{
	for (unsigned int k = 0; k < n; k++)
		if (m[k].index == index)
			return (int)k;
	return -1;
}

/*
 * A bucket table for members m[0..n), moving as few buckets of `old` as
 * the new shares allow. NULL if out of memory.
 */
static struct nh_buckets *
assign(const struct nh_member *m, unsigned int n, const struct nh_buckets *old)
{
	struct nh_buckets *b = malloc(sizeof(*b) + sizeof(uint16_t) * NH_GROUP_BUCKETS);
	if (b == NULL)
		return NULL;
	b->n = n ? NH_GROUP_BUCKETS : 0;
	if (n == 0)
		return b;
	uint32_t want[NH_GROUP_MEMBERS_MAX], have[NH_GROUP_MEMBERS_MAX] = {0};
	targets(m, n, want);
	bool open[NH_GROUP_BUCKETS];
	/* Keep what may be kept. */
	for (unsigned int i = 0; i < NH_GROUP_BUCKETS; i++) {
		int k = old && old->n ? position(m, n, old->member[i]) : -1;
		open[i] = k < 0 || have[k] >= want[k];
		if (!open[i]) {
			b->member[i] = old->member[i];
			have[k]++;
		}
	}
	/* Hand out the rest to members below their share, in turn, so a
	 * member's new buckets spread over the table. */
	unsigned int k = 0;
	for (unsigned int i = 0; i < NH_GROUP_BUCKETS; i++) {
		if (!open[i])
			continue;
		while (have[k] >= want[k])
			k = (k + 1) % n;
		b->member[i] = (uint16_t)m[k].index;
		have[k]++;
		k = (k + 1) % n;
	}
	return b;
}

/*
 * The members of m[0..n) that can carry flows, into out: those whose port
 * is up. A member on a port that is down would drop its buckets' flows
 * (port_down), where Linux takes a nexthop whose device goes down out of
 * its groups and its flows move to the others; so the buckets are
 * assigned over the live members, and assign() moves only the dead
 * ones' buckets (and back, when the port comes up). When none is live,
 * all of them: the drops then say why.
 */
static unsigned int
live_members(const struct nh_table *t, const struct nh_member *m, unsigned int n,
	     struct nh_member *out)
{
	unsigned int k = 0;
	for (unsigned int i = 0; i < n; i++)
		if (!nh_spec_port_down(t, &t->obj[m[i].index].spec))
			out[k++] = m[i];
	if (k == 0) {
		memcpy(out, m, sizeof(*m) * n);
		k = n;
	}
	return k;
}

/* assign() over the live members of m[0..n). */
static struct nh_buckets *
assign_live(const struct nh_table *t, const struct nh_member *m, unsigned int n,
	    const struct nh_buckets *old)
{
	struct nh_member live[NH_GROUP_MEMBERS_MAX];
	return assign(live, live_members(t, m, n, live), old);
}

static void
free_buckets(void *ctx, uint32_t arg)
{
	(void)arg;
	free(ctx);
}

/* Writer: make b the group's table in every worker's line. */
static void
publish_buckets(struct nh_table *t, uint32_t index, struct nh_buckets *b)
{
	struct nh_obj *o = &t->obj[index];
	struct nh_buckets *old = o->buckets;
	o->buckets = b;
	/* Release: the table's contents before the pointer. */
	for (uint16_t w = 0; w < t->conf.nb_workers; w++)
		__atomic_store_n(&t->view[w][index].buckets, b, __ATOMIC_RELEASE);
	if (old != NULL)
		(void)defer_push(&t->defer, free_buckets, old, 0);
}

static int
members_valid(const struct nh_table *t, const struct nh_member *m, unsigned int n)
{
	if (n == 0 || n > NH_GROUP_MEMBERS_MAX)
		return -EINVAL;
	for (unsigned int k = 0; k < n; k++) {
		uint32_t i = m[k].index;
		if (m[k].weight == 0 || m[k].weight > 255 || position(m, k, i) >= 0)
			return -EINVAL;
		if (i < 1 || i > t->conf.max_nexthops || !t->obj[i].in_use)
			return -ENOENT;
		if (t->obj[i].spec.type == NH_T_GROUP)
			return -EINVAL; /* no nested groups */
	}
	return 0;
}

/* Create (created: true) or update group g with members m; a new group's
 * buckets start from seed's where there is one. */
static int
group_apply(struct nh_table *t, uint32_t id, const struct nh_member *m, unsigned int n,
	    uint32_t *index, bool created, uint32_t g, const struct nh_buckets *seed)
{
	int rc;
	struct nh_member *copy = malloc(sizeof(*copy) * n);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, m, sizeof(*copy) * n);
	if (created && (rc = nh_group_new(t, id, &g)) < 0) {
		free(copy);
		return rc;
	}
	struct nh_obj *o = &t->obj[g];
	struct nh_buckets *b = assign_live(t, copy, n, created ? seed : o->buckets);
	if (b == NULL || defer_reserve(&t->defer, 1) < 0) {
		free(b);
		free(copy);
		if (created)
			nh_index_free(t, g);
		return -ENOMEM;
	}
	for (unsigned int k = 0; k < n; k++)
		t->obj[copy[k].index].group_refs++;
	for (uint16_t k = 0; k < o->nb_members; k++)
		t->obj[o->members[k].index].group_refs--;
	free(o->members);
	o->members = copy;
	o->nb_members = (uint16_t)n;
	if (created) {
		t->obj[g].route_refs = id == 0; /* an implicit group: the caller's */
		nh_publish(t, g);
	}
	publish_buckets(t, g, b);
	*index = g;
	return 0;
}

int
nh_group_set(struct nh_table *t, uint32_t id, const struct nh_member *m, unsigned int n,
	     uint32_t *index)
{
	if (id == 0 || m == NULL || index == NULL)
		return -EINVAL;
	int rc = members_valid(t, m, n);
	if (rc < 0)
		return rc;
	uint32_t g;
	bool created = nh_lookup_id(t, id, &g) != 0;
	if (!created && t->obj[g].spec.type != NH_T_GROUP)
		return -EEXIST; /* the id names a plain nexthop */
	return group_apply(t, id, m, n, index, created, g, NULL);
}

int
nh_group_add(struct nh_table *t, const struct nh_member *m, unsigned int n, uint32_t *index)
{
	if (m == NULL || index == NULL)
		return -EINVAL;
	int rc = members_valid(t, m, n);
	return rc < 0 ? rc : group_apply(t, 0, m, n, index, true, 0, NULL);
}

int
nh_group_add_like(struct nh_table *t, const struct nh_member *m, unsigned int n, uint32_t like,
		  uint32_t *index)
{
	if (m == NULL || index == NULL)
		return -EINVAL;
	int rc = members_valid(t, m, n);
	if (rc < 0)
		return rc;
	if (like < 1 || like > t->conf.max_nexthops || !t->obj[like].in_use)
		return group_apply(t, 0, m, n, index, true, 0, NULL);
	if (t->obj[like].spec.type == NH_T_GROUP)
		return group_apply(t, 0, m, n, index, true, 0, t->obj[like].buckets);
	/* A plain nexthop: as a table whose every bucket is it, so that the
	 * flows that stay on it are the ones its share keeps. */
	struct nh_buckets *seed = malloc(sizeof(*seed) + sizeof(uint16_t) * NH_GROUP_BUCKETS);
	if (seed == NULL)
		return -ENOMEM;
	seed->n = NH_GROUP_BUCKETS;
	for (unsigned int i = 0; i < NH_GROUP_BUCKETS; i++)
		seed->member[i] = (uint16_t)like;
	rc = group_apply(t, 0, m, n, index, true, 0, seed);
	free(seed);
	return rc;
}

int
nh_groups_drop_member(struct nh_table *t, uint32_t index)
{
	/* All or nothing: build every affected group's new table first. */
	uint32_t n = 0, cap = 0, *gs = NULL;
	struct nh_buckets **bs = NULL;
	int rc = 0;
	for (uint32_t g = 1; g <= t->conf.max_nexthops && rc == 0; g++) {
		struct nh_obj *o = &t->obj[g];
		if (!o->in_use || o->spec.type != NH_T_GROUP)
			continue;
		int k = position(o->members, o->nb_members, index);
		if (k < 0)
			continue;
		struct nh_member rest[NH_GROUP_MEMBERS_MAX];
		unsigned int nr = 0;
		for (uint16_t j = 0; j < o->nb_members; j++)
			if ((int)j != k)
				rest[nr++] = o->members[j];
		if (nr == 0) {
			/* A group's last member: the group would be left with
			 * no path (Linux deletes it, and its routes). */
			rc = -EBUSY;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			uint32_t *g2 = realloc(gs, sizeof(*gs) * cap);
			struct nh_buckets **b2 = g2 ? realloc(bs, sizeof(*bs) * cap) : NULL;
			gs = g2 ? g2 : gs;
			bs = b2 ? b2 : bs;
			if (g2 == NULL || b2 == NULL) {
				rc = -ENOMEM;
				break;
			}
		}
		gs[n] = g;
		bs[n] = assign_live(t, rest, nr, o->buckets);
		if (bs[n++] == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = defer_reserve(&t->defer, n);
	if (rc < 0) {
		for (uint32_t k = 0; k < n; k++)
			free(bs[k]);
		free(gs);
		free(bs);
		return rc;
	}
	for (uint32_t k = 0; k < n; k++) {
		struct nh_obj *o = &t->obj[gs[k]];
		int j = position(o->members, o->nb_members, index);
		o->members[j] = o->members[--o->nb_members];
		t->obj[index].group_refs--;
		publish_buckets(t, gs[k], bs[k]);
	}
	free(gs);
	free(bs);
	return 0;
}

void
nh_group_retire(struct nh_table *t, uint32_t index)
{
	struct nh_obj *o = &t->obj[index];
	for (uint16_t k = 0; k < o->nb_members; k++) {
		uint32_t mi = o->members[k].index;
		struct nh_obj *mo = &t->obj[mi];
		mo->group_refs--;
		/* An implicit member held by nothing else goes too. */
		if (mo->spec.id == 0 && mo->route_refs == 0 && mo->group_refs == 0)
			nh_index_free(t, mi);
	}
	free(o->members);
	o->members = NULL;
	o->nb_members = 0;
	if (o->buckets != NULL && defer_reserve(&t->defer, 1) == 0) {
		for (uint16_t w = 0; w < t->conf.nb_workers; w++)
			__atomic_store_n(&t->view[w][index].buckets, NULL, __ATOMIC_RELEASE);
		(void)defer_push(&t->defer, free_buckets, o->buckets, 0);
		o->buckets = NULL;
	}
}

void
nh_group_fini(struct nh_obj *o)
{
	/* Teardown only: no worker reads any more. */
	free(o->members);
	o->members = NULL;
	o->nb_members = 0;
	free(o->buckets);
	o->buckets = NULL;
}

void
nh_groups_port_changed(struct nh_table *t, uint16_t port)
{
	for (uint32_t g = 1; g <= t->conf.max_nexthops; g++) {
		struct nh_obj *o = &t->obj[g];
		if (!o->in_use || o->spec.type != NH_T_GROUP)
			continue;
		bool on_port = false;
		for (uint16_t k = 0; k < o->nb_members && !on_port; k++) {
			const struct nh_spec *s = &t->obj[o->members[k].index].spec;
			on_port = (s->type == NH_T_GATEWAY || s->type == NH_T_CONNECTED) &&
				  s->port == port;
		}
		if (!on_port)
			continue;
		/* Best effort: without memory the old table stays, and the
		 * flows of a dead member are dropped as port_down. */
		struct nh_buckets *b = assign_live(t, o->members, o->nb_members, o->buckets);
		if (b == NULL || defer_reserve(&t->defer, 1) < 0) {
			free(b);
			continue;
		}
		publish_buckets(t, g, b);
	}
}
