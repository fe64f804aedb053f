/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh add|del|show|flush: the neighbour table, as `ip neigh` shows and
 * changes it (permanent entries added, learnt ones listed and flushed),
 * its part of save, and its changes for monitors.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>

#include "cli_priv.h"

static void
key_of(const struct fib_prefix *a, uint16_t port, struct neigh_key *k)
{
	if (a->family == FIB_AF_INET) {
		uint32_t be = rte_cpu_to_be_32(a->addr.v4);
		*k = neigh_key(port, NEIGH_AF_INET, &be);
	} else {
		*k = neigh_key(port, NEIGH_AF_INET6, a->addr.v6);
	}
}

struct neigh_show {
	struct cli *c;
	int port;  /* -1: all */
	int state; /* nud STATE: -1 all, -2 (the default) all but NONE */
};

static int
show_neigh(const struct neigh_info *n, void *arg)
{
	struct neigh_show *s = arg;
	struct cli *c = s->c;
	if ((s->port >= 0 && n->key.port != s->port) || (c->family && n->key.family != c->family) ||
	    (s->state >= 0 && n->state != s->state) || (s->state == -2 && n->state == NEIGH_NONE))
		return 0;
	char a[64], mac[24] = "";
	cli_fmt_addr(n->key.family, n->key.addr, a, sizeof(a));
	bool has_mac = n->state != NEIGH_INCOMPLETE && n->state != NEIGH_FAILED;
	if (has_mac)
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0], n->mac[1],
			 n->mac[2], n->mac[3], n->mac[4], n->mac[5]);
	const char *dev = c->r->dp.port[n->key.port].name;
	if (c->json) {
		json_obj(&c->j, NULL);
		json_str(&c->j, "dst", a);
		json_str(&c->j, "dev", dev);
		if (has_mac)
			json_str(&c->j, "lladdr", mac);
		json_arr(&c->j, "state");
		json_str(&c->j, NULL, neigh_state_name(n->state));
		json_end(&c->j);
		json_end(&c->j);
	} else {
		rt_buf_printf(c->out, "%s dev %s", a, dev);
		if (has_mac)
			rt_buf_printf(c->out, " lladdr %s", mac);
		rt_buf_printf(c->out, " %s\n", neigh_state_name(n->state));
	}
	return 0;
}

/* A permanent entry as the neigh add line that recreates it (the others
 * are learnt). */
static int
save_neigh(const struct neigh_info *n, void *arg)
{
	struct cli *c = arg;
	if (n->state != NEIGH_PERMANENT)
		return 0;
	char a[64];
	rt_buf_printf(c->out,
		      "neigh add %s lladdr %02x:%02x:%02x:%02x:%02x:%02x dev %s permanent\n",
		      cli_fmt_addr(n->key.family, n->key.addr, a, sizeof(a)), n->mac[0], n->mac[1],
		      n->mac[2], n->mac[3], n->mac[4], n->mac[5], c->r->dp.port[n->key.port].name);
	return 0;
}

void
cli_neigh_save(struct cli *c)
{
	neigh_walk(c->r->neigh, save_neigh, c);
}

static void
neigh_event(struct cli *c, const void *n)
{
	struct neigh_show s = {.c = c, .port = -1, .state = -1};
	show_neigh(n, &s);
}

/* A neighbour gone from the table: its address and port. */
static void
neigh_gone_event(struct cli *c, const void *key)
{
	const struct neigh_key *k = key;
	char a[64];
	cli_fmt_addr(k->family, k->addr, a, sizeof(a));
	if (c->json) {
		json_obj(&c->j, NULL);
		json_str(&c->j, "dst", a);
		json_str(&c->j, "dev", c->r->dp.port[k->port].name);
		json_end(&c->j);
		return;
	}
	rt_buf_printf(c->out, "%s dev %s\n", a, c->r->dp.port[k->port].name);
}

void
cli_neigh_event(struct router *r, const struct neigh_key *k)
{
	struct neigh_info n;
	if (!cli_monitoring(CLI_EV_NEIGH))
		return;
	if (neigh_get(r->neigh, k, &n) == 0)
		cli_event(r, CLI_EV_NEIGH, false, neigh_event, &n);
	else
		cli_event(r, CLI_EV_NEIGH, true, neigh_gone_event, k);
}

/* neigh show [dev PORT] [nud all|STATE] */
static int
neigh_show(struct cli *c)
{
	struct neigh_show s = {.c = c, .port = -1, .state = -2};
	const char *w;
	int rc;
	while ((w = cli_next(c)) != NULL) {
		uint16_t p = 0;
		if (strcmp(w, "nud") == 0) {
			/* nud all|STATE, as ip neigh show takes it */
			const char *v = cli_next(c);
			s.state = v != NULL && strcmp(v, "all") == 0 ? -1 : -3;
			for (int k = NEIGH_INCOMPLETE; s.state == -3 && v && k <= NEIGH_PERMANENT;
			     k++)
				if (strcasecmp(v, neigh_state_name((uint8_t)k)) == 0)
					s.state = k;
			if (s.state == -3)
				return cli_fail(c, EINVAL, "neigh show: unknown nud state '%s'",
						v ? v : "");
			continue;
		}
		if (strcmp(w, "dev") != 0)
			return cli_fail(c, EINVAL, "neigh show: unknown argument '%s'", w);
		if ((rc = cli_parse_port(c, cli_next(c), &p)) < 0)
			return rc;
		s.port = p;
	}
	if (c->json)
		json_arr(&c->j, NULL);
	neigh_walk(c->r->neigh, show_neigh, &s);
	if (c->json)
		json_end(&c->j);
	return 0;
}

/* As ip neigh flush: a selector is required, `all` or a port. */
static int
neigh_flush_cmd(struct cli *c)
{
	struct router *r = c->r;
	uint16_t p = 0;
	const char *w = cli_next(c);
	if (w != NULL && strcmp(w, "all") == 0 && cli_next(c) == NULL) {
		for (p = 0; p < r->dp.nb_ports; p++)
			neigh_flush(r->neigh, p);
		return 0;
	}
	if (w == NULL || strcmp(w, "dev") != 0)
		return cli_fail(c, EINVAL, "neigh flush: 'all' or 'dev PORT' expected");
	int rc = cli_parse_port(c, cli_next(c), &p);
	if (rc < 0)
		return rc;
	neigh_flush(r->neigh, p);
	return 0;
}

/* neigh add|replace|del ADDR [lladdr MAC] dev PORT [permanent|nud S] */
static int
neigh_change(struct cli *c, bool add)
{
	struct router *r = c->r;
	const char *what = add ? "neigh add" : "neigh del";
	struct fib_prefix a;
	const char *w;
	int rc;
	if ((rc = cli_parse_addr(c, what, cli_next(c), c->family, &a)) < 0)
		return rc;
	uint8_t mac[6];
	bool has_mac = false, has_dev = false;
	uint16_t port = 0;
	while ((w = cli_next(c)) != NULL) {
		if (strcmp(w, "lladdr") == 0) {
			if ((rc = cli_parse_mac(c, cli_next(c), mac)) < 0)
				return rc;
			has_mac = true;
		} else if (strcmp(w, "dev") == 0) {
			if ((rc = cli_parse_port(c, cli_next(c), &port)) < 0)
				return rc;
			has_dev = true;
		} else if (strcmp(w, "permanent") == 0 || strcmp(w, "nud") == 0) {
			if (w[0] == 'n' && cli_next(c) == NULL)
				return cli_fail(c, EINVAL, "%s: nud STATE expected", what);
		} else {
			return cli_fail(c, EINVAL, "%s: unknown argument '%s'", what, w);
		}
	}
	if (!has_dev)
		return cli_fail(c, EINVAL, "%s: 'dev PORT' expected", what);
	struct neigh_key k;
	key_of(&a, port, &k);
	if (!add) {
		if (neigh_del(r->neigh, &k) != 0)
			return cli_fail(c, ENOENT, "%s: no such neighbour", what);
		return 0;
	}
	if (!has_mac)
		return cli_fail(c, EINVAL, "%s: 'lladdr MAC' expected", what);
	/* `ip neigh add` makes permanent entries, as here. */
	rc = neigh_add_permanent(r->neigh, &k, mac);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: neighbour table full", what);
	return 0;
}

int
cli_neigh(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list"))
		return neigh_show(c);
	int rc = cli_may_change(c, "neigh", cmd);
	if (rc < 0)
		return rc;
	if (cli_matches(cmd, "flush"))
		return neigh_flush_cmd(c);
	if (cli_matches(cmd, "add") || cli_matches(cmd, "replace"))
		return neigh_change(c, true);
	if (cli_matches(cmd, "delete"))
		return neigh_change(c, false);
	return cli_fail(c, EINVAL, "neigh: unknown command '%s'", cmd);
}
