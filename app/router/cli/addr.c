/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * addr add|del ADDR/LEN dev PORT | addr show [[dev] PORT] | addr flush:
 * the router's addresses, as `ip addr` shows and changes them.
 */
#include <errno.h>
#include <string.h>

#include "cli_priv.h"

/* The address alone (a host prefix), its family and scope words. */
static void
addr_words(const struct rt_addr *a, char *s, size_t len, const char **fam, const char **scope)
{
	struct fib_prefix h = a->p;
	h.len = h.family == FIB_AF_INET ? 32 : 128;
	cli_fmt_prefix(&h, s, len);
	*fam = a->p.family == FIB_AF_INET ? "inet" : "inet6";
	*scope = rt_prefix_link_local(&a->p) ? "link" : "global";
}

/* One address, as ip monitor prints one. */
static void
addr_event(struct cli *c, const void *obj)
{
	const struct rt_addr *a = obj;
	char s[64];
	const char *fam, *scope;
	addr_words(a, s, sizeof(s), &fam, &scope);
	if (c->json) {
		json_obj(&c->j, NULL);
		json_u64(&c->j, "ifindex", a->port);
		json_str(&c->j, "ifname", c->r->dp.port[a->port].name);
		json_str(&c->j, "family", fam);
		json_str(&c->j, "local", s);
		json_u64(&c->j, "prefixlen", a->p.len);
		json_str(&c->j, "scope", scope);
		json_end(&c->j);
		return;
	}
	rt_buf_printf(c->out, "%u: %s    %s %s/%u scope %s\n", a->port, c->r->dp.port[a->port].name,
		      fam, s, a->p.len, scope);
}

/* addr flush [dev] PORT [scope global|link]: every address of the port
 * (of the family, with -4 or -6), as ip addr flush; `scope` keeps the
 * others. */
static int
addr_flush(struct cli *c)
{
	struct router *r = c->r;
	uint16_t port = 0;
	int rc;
	if (!cli_opt_port(c, &port, &rc))
		return rc < 0 ? rc : cli_fail(c, EINVAL, "addr flush: port expected");
	int scope = -1; /* 0: global, 1: link */
	const char *w = cli_next(c);
	if (w != NULL) {
		const char *v = strcmp(w, "scope") == 0 ? cli_next(c) : NULL;
		if (v == NULL || (strcmp(v, "global") != 0 && strcmp(v, "link") != 0) ||
		    cli_next(c) != NULL)
			return cli_fail(c, EINVAL, "addr flush: 'scope global|link' expected");
		scope = strcmp(v, "link") == 0;
	}
	/* From the end: deleting one moves the others down. */
	for (unsigned int k = r->nb_addrs; k-- > 0;) {
		struct rt_addr a = r->addr[k];
		if (a.port != port || (c->family && a.p.family != c->family) ||
		    (scope >= 0 && rt_prefix_link_local(&a.p) != (scope == 1)))
			continue;
		if ((rc = rt_addr_del(r, port, &a.p)) < 0)
			return cli_fail(c, -rc, "addr flush: %s", strerror(-rc));
		cli_event(r, CLI_EV_ADDR, true, addr_event, &a);
	}
	rt_ra_changed(r, port);
	return 0;
}

/* One port and its addresses, as ip addr show lists them. */
static void
show_port(struct cli *c, uint16_t i)
{
	const struct router *r = c->r;
	const struct rt_port *p = &r->dp.port[i];
	if (c->json) {
		json_obj(&c->j, NULL);
		json_u64(&c->j, "ifindex", i);
		json_str(&c->j, "ifname", p->name);
		json_arr(&c->j, "addr_info");
	} else {
		char flags[64];
		cli_link_flags_text(r, i, flags, sizeof(flags));
		rt_buf_printf(c->out, "%u: %s: <%s> mtu %u state %s\n", i, p->name, flags, p->mtu,
			      rt_link_oper_up(r, i) ? "UP" : "DOWN");
	}
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		const struct rt_addr *a = &r->addr[k];
		if (a->port != i || (c->family && a->p.family != c->family))
			continue;
		char s[64];
		const char *fam, *scope;
		addr_words(a, s, sizeof(s), &fam, &scope);
		if (c->json) {
			json_obj(&c->j, NULL);
			json_str(&c->j, "family", fam);
			json_str(&c->j, "local", s);
			json_u64(&c->j, "prefixlen", a->p.len);
			json_str(&c->j, "scope", scope);
			json_end(&c->j);
		} else {
			rt_buf_printf(c->out, "    %s %s/%u scope %s\n", fam, s, a->p.len, scope);
		}
	}
	if (c->json) {
		json_end(&c->j);
		json_end(&c->j);
	}
}

static int
addr_show(struct cli *c)
{
	int only = -1, rc = 0;
	uint16_t p = 0;
	if (cli_opt_port(c, &p, &rc))
		only = p;
	if (rc < 0)
		return rc;
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "addr show: too many arguments");
	if (c->json)
		json_arr(&c->j, NULL);
	for (uint16_t i = 0; i < c->r->dp.nb_ports; i++)
		if (only < 0 || i == only)
			show_port(c, i);
	if (c->json)
		json_end(&c->j);
	return 0;
}

static int
addr_change(struct cli *c, bool add)
{
	struct router *r = c->r;
	const char *what = add ? "addr add" : "addr del";
	struct fib_prefix p;
	int rc = cli_parse_prefix(c, what, cli_next(c), c->family, &p);
	if (rc < 0)
		return rc;
	const char *dev = cli_next(c);
	if (dev == NULL || strcmp(dev, "dev") != 0)
		return cli_fail(c, EINVAL, "%s: 'dev PORT' expected", what);
	uint16_t port = 0;
	if ((rc = cli_parse_port(c, cli_next(c), &port)) < 0)
		return rc;
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "%s: too many arguments", what);
	rc = add ? rt_addr_add(r, port, &p) : rt_addr_del(r, port, &p);
	if (rc == -EEXIST)
		return cli_fail(c, EEXIST, "%s: address already assigned", what);
	if (rc == -EADDRNOTAVAIL && add)
		return cli_fail(c, EINVAL, "%s: not a unicast address a port can have", what);
	if (rc == -EADDRNOTAVAIL)
		return cli_fail(c, EADDRNOTAVAIL, "%s: address not assigned", what);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: %s", what, strerror(-rc));
	rt_ra_changed(r, port);
	const struct rt_addr a = {.port = port, .p = p};
	cli_event(r, CLI_EV_ADDR, !add, addr_event, &a);
	return 0;
}

int
cli_addr(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list"))
		return addr_show(c);
	int rc = cli_may_change(c, "addr", cmd);
	if (rc < 0)
		return rc;
	if (cli_matches(cmd, "flush"))
		return addr_flush(c);
	if (cli_matches(cmd, "add"))
		return addr_change(c, true);
	if (cli_matches(cmd, "delete"))
		return addr_change(c, false);
	return cli_fail(c, EINVAL, "addr: unknown command '%s'", cmd);
}

/* Addresses in the order they were added, across ports: it decides the
 * source among equals, and which port an address's shared routes name.
 * Not the link-local address each port is given, unless it was deleted. */
void
cli_addr_save(struct cli *c)
{
	const struct router *r = c->r;
	char a[64];
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		const struct rt_addr *ad = &r->addr[k];
		struct fib_prefix ll = rt_port_link_local(r, ad->port);
		if (!rt_prefix_same(&ad->p, &ll))
			rt_buf_printf(c->out, "addr add %s dev %s\n",
				      cli_fmt_prefix(&ad->p, a, sizeof(a)),
				      r->dp.port[ad->port].name);
	}
	for (uint16_t i = 0; i < r->dp.nb_ports; i++) {
		struct fib_prefix ll = rt_port_link_local(r, i);
		bool has_ll = false;
		for (unsigned int k = 0; k < r->nb_addrs && !has_ll; k++)
			has_ll = r->addr[k].port == i && rt_prefix_same(&r->addr[k].p, &ll);
		if (!has_ll)
			rt_buf_printf(c->out, "addr del %s dev %s\n",
				      cli_fmt_prefix(&ll, a, sizeof(a)), r->dp.port[i].name);
	}
}
