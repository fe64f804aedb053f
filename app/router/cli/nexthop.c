/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nexthop add|del|show: nexthop objects and groups, as `ip nexthop`
 * makes them (docs/nexthop.md), and their part of save.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>

#include "cli_priv.h"

static void nexthop_event(struct cli *c, const void *n);

/* Whether an id is the operator's: not 0 (implicit nexthops belong to
 * their routes) nor the rules' own (RT_NH_ID_RULE_UNREACHABLE). */
static bool
operator_id(uint32_t id)
{
	return id != 0 && id != RT_NH_ID_RULE_UNREACHABLE;
}

int
cli_nh_lookup_id(const struct router *r, uint32_t id, uint32_t *index)
{
	return operator_id(id) ? nh_lookup_id(r->nh, id, index) : -ENOENT;
}

static void
nexthop_added(struct router *r, uint32_t idx)
{
	struct nh_info n;
	if (cli_monitoring(CLI_EV_NEXTHOP) && nh_get(r->nh, idx, &n) == 0)
		cli_event(r, CLI_EV_NEXTHOP, false, nexthop_event, &n);
}

/* nexthop add id ID group ID[,W]/ID[,W]..., `group` read: the members,
 * by the operator's ids, then the group. */
static int
group_add(struct cli *c, uint32_t id)
{
	struct router *r = c->r;
	char *spec = (char *)cli_next(c);
	if (spec == NULL)
		return cli_fail(c, EINVAL, "nexthop add: 'group ID[,WEIGHT]/...' expected");
	struct nh_member m[NH_GROUP_MEMBERS_MAX];
	unsigned int n = 0;
	int rc = 0;
	for (char *save, *t = strtok_r(spec, "/", &save); t != NULL;
	     t = strtok_r(NULL, "/", &save)) {
		if (n == NH_GROUP_MEMBERS_MAX)
			return cli_fail(c, EINVAL, "nexthop add: too many members");
		char *comma = strchr(t, ',');
		uint32_t mid, weight = 1;
		if (comma)
			*comma = 0;
		if ((rc = cli_parse_u32(c, "group member", t, UINT32_MAX, &mid)) < 0 ||
		    (comma && (rc = cli_parse_u32(c, "weight", comma + 1, 255, &weight)) < 0))
			return rc;
		if (weight == 0)
			return cli_fail(c, EINVAL, "nexthop add: weight 0");
		if (cli_nh_lookup_id(r, mid, &m[n].index) != 0)
			return cli_fail(c, ENOENT, "nexthop add: no nexthop with id %u", mid);
		m[n++].weight = (uint16_t)weight;
	}
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "nexthop add: too many arguments");
	uint32_t idx;
	if (nh_lookup_id(r->nh, id, &idx) == 0)
		return cli_fail(c, EEXIST, "nexthop add: id %u exists", id);
	rc = nh_group_set(r->nh, id, m, n, &idx);
	if (rc < 0)
		return cli_fail(c, -rc, "nexthop add: group: %s", strerror(-rc));
	nexthop_added(r, idx);
	return 0;
}

/* A single nexthop: a gateway (via and dev), on-link (dev alone) or a
 * blackhole. */
static int
single_add(struct cli *c, struct nh_spec *s, bool has_dev, const struct fib_prefix *via)
{
	struct router *r = c->r;
	if (s->type == NH_T_CONNECTED) {
		if (!has_dev)
			return cli_fail(c, EINVAL, "nexthop add: 'dev PORT' expected");
		if (via->family) {
			s->type = NH_T_GATEWAY;
			s->family = via->family;
			cli_addr_bytes(via, s->gw);
			if (rt_addr_is_local(r, s->family, s->gw))
				return cli_fail(c, EINVAL,
						"nexthop add: gateway is a local address");
		} else {
			s->family = c->family ? c->family : FIB_AF_INET;
		}
	}
	uint32_t idx;
	int rc = nh_add(r->nh, s, &idx);
	if (rc == -EEXIST)
		return cli_fail(c, EEXIST, "nexthop add: id %u exists", s->id);
	if (rc < 0)
		return cli_fail(c, -rc, "nexthop add: %s", strerror(-rc));
	/* A gateway already resolved: the new nexthop gets its header now. */
	struct neigh_info ni;
	struct neigh_key k = neigh_key(s->port, s->family, s->gw);
	if (s->type == NH_T_GATEWAY && neigh_get(r->neigh, &k, &ni) == 0 &&
	    ni.state != NEIGH_INCOMPLETE && ni.state != NEIGH_FAILED)
		nh_neigh_update(r->nh, s->port, s->family, s->gw, ni.mac);
	nexthop_added(r, idx);
	return 0;
}

/* nexthop add id ID (via ADDR dev PORT | dev PORT | blackhole |
 *                    group ID[,W]/ID[,W]...) */
static int
nexthop_add(struct cli *c)
{
	const char *w = cli_next(c);
	uint32_t id;
	if (w == NULL || strcmp(w, "id") != 0)
		return cli_fail(c, EINVAL, "nexthop add: 'id ID' expected");
	int rc = cli_parse_u32(c, "id", cli_next(c), UINT32_MAX, &id);
	if (rc < 0)
		return rc;
	if (!operator_id(id))
		return cli_fail(c, EINVAL, "nexthop add: id %u is reserved", id);
	struct nh_spec s = {.id = id, .type = NH_T_CONNECTED};
	struct fib_prefix via = {0};
	bool has_dev = false;
	while ((w = cli_next(c)) != NULL) {
		if (strcmp(w, "via") == 0) {
			rc = cli_parse_addr(c, "nexthop add", cli_next(c), c->family, &via);
		} else if (strcmp(w, "dev") == 0) {
			rc = cli_parse_port(c, cli_next(c), &s.port);
			has_dev = true;
		} else if (strcmp(w, "blackhole") == 0) {
			s.type = NH_T_BLACKHOLE;
		} else if (strcmp(w, "group") == 0) {
			return group_add(c, id);
		} else {
			rc = cli_fail(c, EINVAL, "nexthop add: unknown argument '%s'", w);
		}
		if (rc < 0)
			return rc;
	}
	return single_add(c, &s, has_dev, &via);
}

struct nh_show {
	struct cli *c;
	/* save: each line a nexthop add; groups apart from the rest, as a
	 * group's members must exist before it */
	const char *prefix;
	int groups; /* -1: every nexthop; 0: no groups; 1: groups only */
};

static int
show_nexthop(const struct nh_info *n, void *arg)
{
	struct nh_show *s = arg;
	struct cli *c = s->c;
	if (!operator_id(n->spec.id))
		return 0;
	if (s->groups >= 0 && (n->spec.type == NH_T_GROUP) != s->groups)
		return 0;
	char gw[64] = "";
	const char *dev = NULL;
	if (n->spec.type == NH_T_GATEWAY || n->spec.type == NH_T_CONNECTED)
		dev = c->r->dp.port[n->spec.port].name;
	if (n->spec.type == NH_T_GATEWAY)
		cli_fmt_addr(n->spec.family, n->spec.gw, gw, sizeof(gw));
	if (c->json) {
		json_obj(&c->j, NULL);
		json_u64(&c->j, "id", n->spec.id);
		if (gw[0])
			json_str(&c->j, "gateway", gw);
		if (dev)
			json_str(&c->j, "dev", dev);
		if (n->spec.type == NH_T_BLACKHOLE)
			json_bool(&c->j, "blackhole", true);
		if (n->spec.type == NH_T_GROUP) {
			json_arr(&c->j, "group");
			for (uint16_t k = 0; k < n->nb_members; k++) {
				struct nh_info m;
				nh_get(c->r->nh, n->m[k].index, &m);
				json_obj(&c->j, NULL);
				json_u64(&c->j, "id", m.spec.id);
				json_u64(&c->j, "weight", n->m[k].weight);
				json_end(&c->j);
			}
			json_end(&c->j);
		}
		json_end(&c->j);
	} else {
		rt_buf_printf(c->out, "%sid %u", s->prefix, n->spec.id);
		if (n->spec.type == NH_T_GROUP) {
			rt_buf_printf(c->out, " group ");
			for (uint16_t k = 0; k < n->nb_members; k++) {
				struct nh_info m;
				nh_get(c->r->nh, n->m[k].index, &m);
				rt_buf_printf(c->out, "%s%u", k ? "/" : "", m.spec.id);
				if (n->m[k].weight != 1)
					rt_buf_printf(c->out, ",%u", n->m[k].weight);
			}
		}
		if (gw[0])
			rt_buf_printf(c->out, " via %s", gw);
		if (dev)
			rt_buf_printf(c->out, " dev %s", dev);
		if (n->spec.type == NH_T_BLACKHOLE)
			rt_buf_printf(c->out, " blackhole");
		rt_buf_printf(c->out, "\n");
	}
	return 0;
}

static void
nexthop_event(struct cli *c, const void *n)
{
	struct nh_show s = {.c = c, .prefix = "", .groups = -1};
	show_nexthop(n, &s);
}

/* The nexthops with ids, in id order as ip nexthop show lists them (the
 * table's own order is by index, which depends on the order they were
 * made in). */
struct id_list {
	uint32_t *ids;
	size_t n, cap;
	bool failed;
};

static int
collect_id(const struct nh_info *n, void *arg)
{
	struct id_list *l = arg;
	if (!operator_id(n->spec.id))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint32_t *ids = realloc(l->ids, cap * sizeof(*ids));
		if (ids == NULL) {
			l->failed = true;
			return 1;
		}
		l->ids = ids;
		l->cap = cap;
	}
	l->ids[l->n++] = n->spec.id;
	return 0;
}

static int
cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void
walk_by_id(struct cli *c, int (*fn)(const struct nh_info *, void *), void *arg)
{
	struct id_list l = {0};
	nh_walk(c->r->nh, collect_id, &l);
	if (l.failed) { /* out of memory: the table's order */
		free(l.ids);
		nh_walk(c->r->nh, fn, arg);
		return;
	}
	if (l.n > 1) /* qsort's base must not be NULL, even for none */
		qsort(l.ids, l.n, sizeof(*l.ids), cmp_id);
	for (size_t i = 0; i < l.n; i++) {
		uint32_t idx;
		struct nh_info n;
		if (nh_lookup_id(c->r->nh, l.ids[i], &idx) == 0 && nh_get(c->r->nh, idx, &n) == 0)
			fn(&n, arg);
	}
	free(l.ids);
}

int
cli_nexthop(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list")) {
		struct nh_show s = {.c = c, .prefix = "", .groups = -1};
		if (c->json)
			json_arr(&c->j, NULL);
		walk_by_id(c, show_nexthop, &s);
		if (c->json)
			json_end(&c->j);
		return 0;
	}
	int rc = cli_may_change(c, "nexthop", cmd);
	if (rc < 0)
		return rc;
	if (cli_matches(cmd, "add"))
		return nexthop_add(c);
	if (!cli_matches(cmd, "delete"))
		return cli_fail(c, EINVAL, "nexthop: unknown command '%s'", cmd);
	const char *w = cli_next(c);
	uint32_t id;
	if (w == NULL || strcmp(w, "id") != 0)
		return cli_fail(c, EINVAL, "nexthop del: 'id ID' expected");
	rc = cli_parse_u32(c, "id", cli_next(c), UINT32_MAX, &id);
	if (rc < 0)
		return rc;
	if (!operator_id(id))
		return cli_fail(c, EINVAL, "nexthop del: id %u is reserved", id);
	struct nh_info gone;
	uint32_t idx;
	bool shown = nh_lookup_id(c->r->nh, id, &idx) == 0 && nh_get(c->r->nh, idx, &gone) == 0;
	rc = nh_del(c->r->nh, id);
	if (rc == -ENOENT)
		return cli_fail(c, ENOENT, "nexthop del: no nexthop with id %u", id);
	if (rc == -EBUSY)
		return cli_fail(c, EBUSY,
				"nexthop del: id %u is used by routes, or is a group's last member",
				id);
	if (rc < 0)
		return cli_fail(c, -rc, "nexthop del: %s", strerror(-rc));
	/* A group may have lost its last member that was up. */
	rt_fib_sync_down(c->r, "nexthop del");
	if (shown)
		cli_event(c->r, CLI_EV_NEXTHOP, true, nexthop_event, &gone);
	return 0;
}

void
cli_nexthop_save(struct cli *c)
{
	struct nh_show s = {.c = c, .prefix = "nexthop add ", .groups = 0};
	walk_by_id(c, show_nexthop, &s);
	s.groups = 1;
	walk_by_id(c, show_nexthop, &s);
}
