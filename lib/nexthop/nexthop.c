/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nexthop objects: indices, ids, sharing and references. The control core
 * keeps a record per index (struct nh_obj) and writes each worker's line
 * from it (l2.c). Workers never see the records.
 *
 * Indices are handed out from a free list; a released index returns to it
 * only after a QSBR grace period, so a worker that read it from a route a
 * moment ago never finds another nexthop behind it.
 *
 * Two hash chains, both through the records: user id -> index, and
 * (port, family, gateway) -> indices, which serves both the sharing of
 * implicit nexthops and neighbour events. Both have 2 heads per possible
 * index, so chains stay about one long.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nh_priv.h"

static uint32_t
hash_id(const struct nh_table *t, uint32_t id)
{
	return nh_mix(id, 0x1d) & t->hash_mask;
}

static uint32_t
hash_gw(const struct nh_table *t, uint16_t port, uint8_t family, const uint8_t gw[16])
{
	uint64_t a, b;
	memcpy(&a, gw, 8);
	memcpy(&b, gw + 8, 8);
	return nh_mix(a ^ ((uint64_t)port << 8 | family), b) & t->hash_mask;
}

static bool
has_gateway(uint8_t type)
{
	return type == NH_T_GATEWAY || type == NH_T_CONNECTED;
}

struct nh_table *
nh_table_create(const struct nh_conf *conf)
{
	if (conf == NULL || conf->max_nexthops == 0 || conf->max_nexthops > NH_INDEX_MAX ||
	    conf->nb_workers == 0 || conf->nb_workers > NH_WORKERS_MAX ||
	    conf->hash_policy > NH_HASH_L3) {
		errno = EINVAL;
		return NULL;
	}
	struct nh_table *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	t->conf = *conf;
	if (t->conf.default_mtu == 0)
		t->conf.default_mtu = 1500;
	uint32_t n = conf->max_nexthops + 1, heads = 1;
	while (heads < 2 * n)
		heads <<= 1;
	t->hash_mask = heads - 1;
	t->obj = calloc(n, sizeof(*t->obj));
	t->id_head = calloc(heads, sizeof(uint32_t));
	t->gw_head = calloc(heads, sizeof(uint32_t));
	t->view = calloc(conf->nb_workers, sizeof(*t->view));
	bool ok = t->obj && t->id_head && t->gw_head && t->view;
	for (uint16_t w = 0; ok && w < conf->nb_workers; w++) {
		t->view[w] = aligned_alloc(64, sizeof(struct nh_dp) * n);
		ok = t->view[w] != NULL;
		if (ok)
			memset(t->view[w], 0, sizeof(struct nh_dp) * n);
	}
	if (!ok) {
		nh_table_free(t);
		errno = ENOMEM;
		return NULL;
	}
	/* Free list in index order, so the first nexthops get 1, 2, ... */
	for (uint32_t i = conf->max_nexthops; i >= 1; i--) {
		t->obj[i].next_free = t->free_head;
		t->free_head = i;
	}
	defer_init(&t->defer, conf->qsbr);
	return t;
}

void
nh_table_free(struct nh_table *t)
{
	if (t == NULL)
		return;
	defer_fini(&t->defer);
	if (t->obj != NULL)
		for (uint32_t i = 1; i <= t->conf.max_nexthops; i++)
			nh_group_fini(&t->obj[i]);
	if (t->view != NULL)
		for (uint16_t w = 0; w < t->conf.nb_workers; w++)
			free(t->view[w]);
	free(t->view);
	free(t->obj);
	free(t->id_head);
	free(t->gw_head);
	free(t->ports);
	free(t);
}

enum nh_hash_policy
nh_hash_policy(const struct nh_table *t)
{
	return (enum nh_hash_policy)t->conf.hash_policy;
}

const struct nh_dp *
nh_worker_view(const struct nh_table *t, unsigned int worker)
{
	return worker < t->conf.nb_workers ? t->view[worker] : NULL;
}

uint32_t
nh_reclaim(struct nh_table *t)
{
	defer_reclaim(&t->defer);
	return t->defer.count;
}

/* Rebuild the headers of every nexthop on a port. */
static void
publish_port(struct nh_table *t, uint16_t port)
{
	for (uint32_t i = 1; i <= t->conf.max_nexthops; i++)
		if (t->obj[i].in_use && has_gateway(t->obj[i].spec.type) &&
		    t->obj[i].spec.port == port)
			nh_publish(t, i);
}

int
nh_port_set(struct nh_table *t, uint16_t port, const uint8_t mac[6], uint16_t mtu)
{
	if (mac == NULL || mtu < 68)
		return -EINVAL;
	if (port >= t->nb_ports) {
		uint32_t n = port + 1u;
		struct nh_port *p = realloc(t->ports, sizeof(*p) * n);
		if (p == NULL)
			return -ENOMEM;
		memset(&p[t->nb_ports], 0, sizeof(*p) * (n - t->nb_ports));
		t->ports = p;
		t->nb_ports = n;
	}
	struct nh_port *p = &t->ports[port];
	memcpy(p->mac, mac, 6);
	p->mtu = mtu;
	p->set = true;
	publish_port(t, port);
	return 0;
}

int
nh_port_down(struct nh_table *t, uint16_t port, bool down)
{
	if (port >= t->nb_ports || !t->ports[port].set)
		return -EINVAL;
	/* Going down, the groups' flows move off the port before its
	 * headers go; coming up, the headers are back before flows return. */
	t->ports[port].down = down;
	if (down)
		nh_groups_port_changed(t, port);
	publish_port(t, port);
	if (!down)
		nh_groups_port_changed(t, port);
	return 0;
}

bool
nh_down(const struct nh_table *t, uint32_t index)
{
	if (index < 1 || index > t->conf.max_nexthops || !t->obj[index].in_use)
		return false;
	const struct nh_obj *o = &t->obj[index];
	if (o->spec.type != NH_T_GROUP)
		return nh_spec_port_down(t, &o->spec);
	for (unsigned int i = 0; i < o->nb_members; i++)
		if (!nh_spec_port_down(t, &t->obj[o->members[i].index].spec))
			return false;
	return o->nb_members > 0;
}

static uint32_t
find_id(const struct nh_table *t, uint32_t id)
{
	uint32_t i = t->id_head[hash_id(t, id)];
	while (i != 0 && t->obj[i].spec.id != id)
		i = t->obj[i].next_id;
	return i;
}

static bool
same_gateway(const struct nh_spec *a, uint16_t port, uint8_t family, const uint8_t gw[16])
{
	return a->port == port && a->family == family && memcmp(a->gw, gw, 16) == 0;
}

/* An implicit nexthop equal to spec, or 0. */
static uint32_t
find_implicit(const struct nh_table *t, const struct nh_spec *spec)
{
	if (!has_gateway(spec->type))
		return t->special[spec->type]; /* shared by type alone */
	uint32_t i = t->gw_head[hash_gw(t, spec->port, spec->family, spec->gw)];
	for (; i != 0; i = t->obj[i].next_gw) {
		const struct nh_obj *o = &t->obj[i];
		if (o->spec.id == 0 && o->spec.type == spec->type &&
		    same_gateway(&o->spec, spec->port, spec->family, spec->gw))
			return i;
	}
	return 0;
}

static int
spec_valid(const struct nh_spec *s)
{
	switch (s->type) {
	case NH_T_GATEWAY:
	case NH_T_CONNECTED:
		return s->family == 2 || s->family == 10;
	case NH_T_LOCAL:
	case NH_T_BLACKHOLE:
	case NH_T_UNREACHABLE:
	case NH_T_PROHIBIT:
		return 1;
	default:
		return 0;
	}
}

/* Writer: a fresh index holding spec, linked into the hashes. */
static int
index_alloc(struct nh_table *t, const struct nh_spec *spec, uint32_t *index)
{
	uint32_t i = t->free_head;
	if (i == 0) {
		defer_reclaim(&t->defer);
		if ((i = t->free_head) == 0)
			return -ENOSPC;
	}
	struct nh_obj *o = &t->obj[i];
	t->free_head = o->next_free;
	memset(o, 0, sizeof(*o));
	o->spec = *spec;
	if (!has_gateway(spec->type)) {
		o->spec.family = 0;
		o->spec.port = 0;
		memset(o->spec.gw, 0, sizeof(o->spec.gw));
	}
	o->in_use = true;
	if (spec->id != 0) {
		uint32_t h = hash_id(t, spec->id);
		o->next_id = t->id_head[h];
		t->id_head[h] = i;
	}
	if (has_gateway(spec->type)) {
		uint32_t h = hash_gw(t, spec->port, spec->family, spec->gw);
		o->next_gw = t->gw_head[h];
		t->gw_head[h] = i;
	} else if (spec->id == 0 && spec->type != NH_T_GROUP) {
		t->special[spec->type] = i;
	}
	*index = i;
	return 0;
}

int
nh_add(struct nh_table *t, const struct nh_spec *spec, uint32_t *index)
{
	if (spec == NULL || index == NULL || !spec_valid(spec))
		return -EINVAL;
	uint32_t i;
	if (spec->id == 0 && (i = find_implicit(t, spec)) != 0) {
		t->obj[i].route_refs++;
		*index = i;
		return 0;
	}
	if (spec->id != 0 && find_id(t, spec->id) != 0)
		return -EEXIST;
	int rc = index_alloc(t, spec, &i);
	if (rc < 0)
		return rc;
	t->obj[i].route_refs = spec->id == 0; /* explicit ones live until nh_del */
	nh_publish(t, i);
	*index = i;
	return 0;
}

int
nh_group_new(struct nh_table *t, uint32_t id, uint32_t *index)
{
	struct nh_spec spec = {.id = id, .type = NH_T_GROUP};
	return index_alloc(t, &spec, index);
}

static void
unlink_chain(struct nh_table *t, uint32_t *head, uint32_t index, bool by_id)
{
	uint32_t *p = head;
	while (*p != 0 && *p != index)
		p = by_id ? &t->obj[*p].next_id : &t->obj[*p].next_gw;
	if (*p == index)
		*p = by_id ? t->obj[index].next_id : t->obj[index].next_gw;
}

static void
index_release(void *ctx, uint32_t index)
{
	struct nh_table *t = ctx;
	t->obj[index].next_free = t->free_head;
	t->free_head = index;
}

void
nh_index_free(struct nh_table *t, uint32_t index)
{
	struct nh_obj *o = &t->obj[index];
	if (o->spec.id != 0)
		unlink_chain(t, &t->id_head[hash_id(t, o->spec.id)], index, true);
	if (has_gateway(o->spec.type))
		unlink_chain(t, &t->gw_head[hash_gw(t, o->spec.port, o->spec.family, o->spec.gw)],
			     index, false);
	else if (o->spec.type != NH_T_GROUP && t->special[o->spec.type] == index)
		t->special[o->spec.type] = 0;
	if (o->spec.type == NH_T_GROUP)
		nh_group_retire(t, index);
	o->in_use = false;
	o->spec.type = NH_T_UNUSED;
	nh_publish(t, index);
	/* Workers may still hold the index for a moment: reuse it after
	 * they have all been quiescent. Cannot fail once reserved. */
	if (defer_reserve(&t->defer, 1) == 0)
		(void)defer_push(&t->defer, index_release, t, index);
}

void
nh_ref(struct nh_table *t, uint32_t index)
{
	if (index >= 1 && index <= t->conf.max_nexthops && t->obj[index].in_use)
		t->obj[index].route_refs++;
}

void
nh_unref(struct nh_table *t, uint32_t index)
{
	if (index < 1 || index > t->conf.max_nexthops || !t->obj[index].in_use)
		return;
	struct nh_obj *o = &t->obj[index];
	if (o->route_refs > 0)
		o->route_refs--;
	if (o->spec.id == 0 && o->route_refs == 0 && o->group_refs == 0)
		nh_index_free(t, index);
}

int
nh_del(struct nh_table *t, uint32_t id)
{
	uint32_t i = id ? find_id(t, id) : 0;
	if (i == 0)
		return -ENOENT;
	struct nh_obj *o = &t->obj[i];
	if (o->route_refs > 0)
		return -EBUSY;
	if (o->group_refs > 0) {
		int rc = nh_groups_drop_member(t, i);
		if (rc < 0)
			return rc;
	}
	nh_index_free(t, i);
	return 0;
}

int
nh_lookup_id(const struct nh_table *t, uint32_t id, uint32_t *index)
{
	uint32_t i = id ? find_id(t, id) : 0;
	if (i == 0)
		return -ENOENT;
	*index = i;
	return 0;
}

int
nh_get(const struct nh_table *t, uint32_t index, struct nh_info *out)
{
	if (index < 1 || index > t->conf.max_nexthops || !t->obj[index].in_use)
		return -ENOENT;
	const struct nh_obj *o = &t->obj[index];
	memset(out, 0, sizeof(*out));
	out->spec = o->spec;
	out->index = index;
	out->mtu = t->view[0][index].mtu;
	out->resolved = o->resolved;
	memcpy(out->mac, o->mac, 6);
	out->route_refs = o->route_refs;
	out->group_refs = o->group_refs;
	out->nb_members = o->nb_members;
	if (o->nb_members)
		memcpy(out->m, o->members, sizeof(out->m[0]) * o->nb_members);
	return 0;
}

uint16_t
nh_mtu(const struct nh_table *t, uint32_t index)
{
	if (index < 1 || index > t->conf.max_nexthops || !t->obj[index].in_use)
		return 0;
	if (!has_gateway(t->obj[index].spec.type))
		return 0;
	return t->view[0][index].mtu; /* every worker's copy holds the same */
}

uint32_t
nh_group_pick(const struct nh_table *t, uint32_t index, uint32_t hash)
{
	if (index < 1 || index > t->conf.max_nexthops || !t->obj[index].in_use ||
	    t->obj[index].spec.type != NH_T_GROUP)
		return 0;
	return nh_bucket_member(t->obj[index].buckets, hash);
}

int
nh_walk(const struct nh_table *t, int (*cb)(const struct nh_info *, void *), void *arg)
{
	struct nh_info info;
	for (uint32_t i = 1; i <= t->conf.max_nexthops; i++) {
		if (!t->obj[i].in_use)
			continue;
		nh_get(t, i, &info);
		int rc = cb(&info, arg);
		if (rc)
			return rc;
	}
	return 0;
}

unsigned int
nh_neigh_update(struct nh_table *t, uint16_t port, uint8_t family, const uint8_t addr[16],
		const uint8_t mac[6])
{
	unsigned int n = 0;
	uint32_t i = t->gw_head[hash_gw(t, port, family, addr)];
	for (; i != 0; i = t->obj[i].next_gw) {
		struct nh_obj *o = &t->obj[i];
		if (o->spec.type != NH_T_GATEWAY || !same_gateway(&o->spec, port, family, addr))
			continue;
		bool resolved = mac != NULL;
		if (o->resolved == resolved && (!resolved || memcmp(o->mac, mac, 6) == 0))
			continue;
		o->resolved = resolved;
		if (resolved)
			memcpy(o->mac, mac, 6);
		nh_publish(t, i);
		n++;
	}
	return n;
}
