/* SPDX-License-Identifier: BSD-3-Clause */
/* rule add|del|show, as ip rule's, and their part of save. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "cli_priv.h"

static int
parse_rule(struct cli *c, const char *what, struct fib_rule *ru, bool *has_prio)
{
	memset(ru, 0, sizeof(*ru));
	ru->family = c->family ? c->family : FIB_AF_INET;
	ru->dscp = FIB_DSCP_ANY;
	ru->iif = FIB_IIF_ANY;
	ru->action = FIB_RULE_TABLE;
	ru->table = FIB_TABLE_MAIN;
	*has_prio = false;
	bool has_action = false;
	const char *w;
	int rc = 0;
	while (rc == 0 && (w = cli_next(c)) != NULL) {
		uint32_t v;
		if (strcmp(w, "priority") == 0 || strcmp(w, "pref") == 0 ||
		    strcmp(w, "preference") == 0) {
			rc = cli_parse_u32(c, "priority", cli_next(c), UINT32_MAX, &ru->priority);
			*has_prio = true;
		} else if (strcmp(w, "from") == 0 || strcmp(w, "to") == 0) {
			struct fib_prefix *p = w[0] == 'f' ? &ru->src : &ru->dst;
			rc = cli_parse_prefix(c, what, cli_next(c), c->family, p);
			if (rc == 0 && p->len > 0)
				ru->family = p->family;
		} else if (strcmp(w, "iif") == 0) {
			rc = cli_parse_iif(c, cli_next(c), &ru->iif);
		} else if (strcmp(w, "dscp") == 0) {
			rc = cli_parse_u32(c, "dscp", cli_next(c), 63, &v);
			ru->dscp = (uint8_t)v;
		} else if (strcmp(w, "ipproto") == 0) {
			rc = cli_parse_proto(c, cli_next(c), &ru->ipproto);
		} else if (strcmp(w, "sport") == 0) {
			rc = cli_parse_ports(c, w, cli_next(c), &ru->sport_lo, &ru->sport_hi);
		} else if (strcmp(w, "dport") == 0) {
			rc = cli_parse_ports(c, w, cli_next(c), &ru->dport_lo, &ru->dport_hi);
		} else if (strcmp(w, "table") == 0 || strcmp(w, "lookup") == 0) {
			rc = cli_parse_table(c, cli_next(c), &ru->table);
			has_action = true;
		} else if (strcmp(w, "blackhole") == 0) {
			ru->action = FIB_RULE_BLACKHOLE;
			has_action = true;
		} else if (strcmp(w, "unreachable") == 0) {
			ru->action = FIB_RULE_UNREACHABLE;
			has_action = true;
		} else if (strcmp(w, "prohibit") == 0) {
			ru->action = FIB_RULE_PROHIBIT;
			has_action = true;
		} else if (strcmp(w, "goto") == 0) {
			rc = cli_parse_u32(c, "goto", cli_next(c), UINT32_MAX, &ru->target);
			ru->action = FIB_RULE_GOTO;
			has_action = true;
		} else if (strcmp(w, "tos") == 0 || strcmp(w, "dsfield") == 0) {
			/* ip's older spelling: the whole TOS byte, DSCP << 2;
			 * the ECN bits are not a selector (Linux refuses them
			 * too). */
			rc = cli_parse_u32(c, w, cli_next(c), 255, &v);
			if (rc == 0 && (v & 3) != 0)
				rc = cli_fail(c, EINVAL, "%s: 0x%x has ECN bits set", w, v);
			ru->dscp = (uint8_t)(v >> 2);
		} else {
			rc = cli_fail(c, EINVAL, "%s: unknown argument '%s'", what, w);
		}
	}
	if (rc == 0 && !has_action)
		rc = cli_fail(c, EINVAL,
			      "%s: an action is needed (table ID, blackhole, "
			      "unreachable, prohibit, goto PRIORITY)",
			      what);

	if (rc == 0 && ((ru->src.len && ru->src.family != ru->family) ||
			(ru->dst.len && ru->dst.family != ru->family)))
		rc = cli_fail(c, EINVAL, "%s: from and to must be of one family", what);
	if (rc == 0 && (ru->sport_hi || ru->dport_hi) && ru->ipproto != IPPROTO_TCP &&
	    ru->ipproto != IPPROTO_UDP && ru->ipproto != IPPROTO_SCTP)
		rc = cli_fail(c, EINVAL, "%s: sport and dport need ipproto tcp, udp or sctp", what);
	if (ru->sport_lo == 0 && ru->sport_hi == 0)
		ru->sport_hi = 0xffff; /* any */
	if (ru->dport_lo == 0 && ru->dport_hi == 0)
		ru->dport_hi = 0xffff;
	ru->src.family = ru->dst.family = ru->family;
	return rc;
}

struct prio_scan {
	uint32_t lowest;
	bool any;
};

static int
lowest_prio(const struct fib_rule *ru, void *arg)
{
	struct prio_scan *s = arg;
	if (!s->any || ru->priority < s->lowest) {
		s->lowest = ru->priority;
		s->any = true;
	}
	return 0;
}

struct rule_find {
	const struct fib_rule *want;
	uint32_t priority;
	bool found;
};

static bool
same_prefix(const struct fib_prefix *a, const struct fib_prefix *b)
{
	return a->len == b->len &&
	       (a->len == 0 || memcmp(&a->addr, &b->addr, sizeof(a->addr)) == 0);
}

static int
find_rule(const struct fib_rule *ru, void *arg)
{
	struct rule_find *f = arg;
	const struct fib_rule *w = f->want;
	if (f->found || ru->action != w->action || ru->iif != w->iif || ru->dscp != w->dscp ||
	    ru->ipproto != w->ipproto || ru->sport_lo != w->sport_lo ||
	    ru->sport_hi != w->sport_hi || ru->dport_lo != w->dport_lo ||
	    ru->dport_hi != w->dport_hi || !same_prefix(&ru->src, &w->src) ||
	    !same_prefix(&ru->dst, &w->dst) ||
	    (ru->action == FIB_RULE_TABLE && ru->table != w->table) ||
	    (ru->action == FIB_RULE_GOTO && ru->target != w->target))
		return 0;
	f->priority = ru->priority;
	f->found = true;
	return 1;
}

/* What a rule selects besides its source, as ip rule writes it (and
 * rule add reads it). */
static void
rule_selectors(struct cli *c, const struct fib_rule *ru)
{
	char dst[64], pr[16], sp[16], dp[16];
	const char *sports = cli_ports_fmt(ru->sport_lo, ru->sport_hi, sp, sizeof(sp));
	const char *dports = cli_ports_fmt(ru->dport_lo, ru->dport_hi, dp, sizeof(dp));
	if (ru->dst.len)
		rt_buf_printf(c->out, " to %s", cli_fmt_prefix(&ru->dst, dst, sizeof(dst)));
	if (ru->iif != FIB_IIF_ANY)
		rt_buf_printf(c->out, " iif %s", cli_iif_name(c->r, ru->iif));
	if (ru->dscp != FIB_DSCP_ANY)
		rt_buf_printf(c->out, " dscp %u", ru->dscp);
	if (ru->ipproto)
		rt_buf_printf(c->out, " ipproto %s", cli_proto_name(ru->ipproto, pr, sizeof(pr)));
	if (sports)
		rt_buf_printf(c->out, " sport %s", sports);
	if (dports)
		rt_buf_printf(c->out, " dport %s", dports);
}

struct rule_show {
	struct cli *c;
};

static int
show_rule(const struct fib_rule *ru, void *arg)
{
	struct rule_show *s = arg;
	struct cli *c = s->c;
	char src[64] = "all", dst[64] = "", tb[16], pr[16], sp[16], dp[16];
	const char *sports = cli_ports_fmt(ru->sport_lo, ru->sport_hi, sp, sizeof(sp));
	const char *dports = cli_ports_fmt(ru->dport_lo, ru->dport_hi, dp, sizeof(dp));
	if (ru->src.len)
		cli_fmt_prefix(&ru->src, src, sizeof(src));
	if (ru->dst.len)
		cli_fmt_prefix(&ru->dst, dst, sizeof(dst));
	static const char *const acts[] = {"lookup", "blackhole", "unreachable", "prohibit",
					   "goto"};
	cli_fmt_table(ru->table, tb, sizeof(tb));
	if (c->json) {
		json_obj(&c->j, NULL);
		json_u64(&c->j, "priority", ru->priority);
		json_str(&c->j, "src", src);
		if (dst[0])
			json_str(&c->j, "dst", dst);
		if (ru->iif != FIB_IIF_ANY)
			json_str(&c->j, "iif", cli_iif_name(c->r, ru->iif));
		if (ru->dscp != FIB_DSCP_ANY)
			json_u64(&c->j, "dscp", ru->dscp);
		if (ru->ipproto)
			json_str(&c->j, "ipproto", cli_proto_name(ru->ipproto, pr, sizeof(pr)));
		if (sports)
			json_str(&c->j, "sport", sports);
		if (dports)
			json_str(&c->j, "dport", dports);
		if (ru->action == FIB_RULE_TABLE) {
			json_str(&c->j, "table", tb);
		} else if (ru->action == FIB_RULE_GOTO) {
			json_str(&c->j, "action", "goto");
			json_u64(&c->j, "target", ru->target);
		} else {
			json_str(&c->j, "action", acts[ru->action]);
		}
		json_end(&c->j);
	} else {
		rt_buf_printf(c->out, "%u:\tfrom %s", ru->priority, src);
		rule_selectors(c, ru);
		if (ru->action == FIB_RULE_TABLE)
			rt_buf_printf(c->out, " lookup %s\n", tb);
		else if (ru->action == FIB_RULE_GOTO)
			rt_buf_printf(c->out, " goto %u\n", ru->target);
		else
			rt_buf_printf(c->out, " %s\n", acts[ru->action]);
	}
	return 0;
}

struct rule_save {
	struct cli *c;
	bool kept[2];  /* the default rules (main, default) where a fresh router has them */
	bool print;    /* the second walk: the add lines */
	bool any;      /* a rule was seen before this one... */
	uint32_t last; /* ...of this priority */
};

static void
save_line(struct cli *c, const struct fib_rule *ru, const char *cmd)
{
	static const char *const acts[] = {"table", "blackhole", "unreachable", "prohibit", "goto"};
	char src[64];
	rt_buf_printf(c->out, "%srule %s priority %u", ru->family == FIB_AF_INET6 ? "-6 " : "", cmd,
		      ru->priority);
	if (ru->src.len)
		rt_buf_printf(c->out, " from %s", cli_fmt_prefix(&ru->src, src, sizeof(src)));
	rule_selectors(c, ru);
	rt_buf_printf(c->out, " %s", acts[ru->action]);
	if (ru->action == FIB_RULE_TABLE)
		rt_buf_printf(c->out, " %u", ru->table ? ru->table : FIB_TABLE_MAIN);
	else if (ru->action == FIB_RULE_GOTO)
		rt_buf_printf(c->out, " %u", ru->target);
	rt_buf_printf(c->out, "\n");
}

/* The rules as lines that recreate them on a fresh router, which has the
 * default rules, each alone at its priority. A default rule that is
 * still first among the rules of its priority is where a fresh router
 * has it; any other (deleted, or added back behind others) is deleted
 * first, and then added where it stands. The first walk finds which are
 * kept, the second writes the add lines. */
static int
save_rule(const struct fib_rule *ru, void *arg)
{
	struct rule_save *s = arg;
	bool first = !s->any || s->last != ru->priority;
	s->any = true;
	s->last = ru->priority;
	int d = fib_rule_default(ru);
	if (!s->print) {
		if (d >= 0 && first)
			s->kept[d] = true;
		return 0;
	}
	if (d >= 0 && first && s->kept[d])
		return 0;
	save_line(s->c, ru, "add");
	return 0;
}

static void
save_family(struct cli *c, uint8_t af)
{
	struct rule_save s = {.c = c};
	fib_rule_walk(c->r->fib, af, save_rule, &s);
	struct fib_rule d[2];
	uint32_t nd = fib_rule_defaults(af, d);
	for (uint32_t k = 0; k < nd; k++)
		if (!s.kept[k])
			save_line(c, &d[k], "del");
	s.print = true;
	s.any = false;
	fib_rule_walk(c->r->fib, af, save_rule, &s);
}

void
cli_rule_save(struct cli *c)
{
	save_family(c, FIB_AF_INET);
	save_family(c, FIB_AF_INET6);
}

static void
rule_event(struct cli *c, const void *ru)
{
	struct rule_show s = {.c = c};
	show_rule(ru, &s);
}

int
cli_rule(struct cli *c)
{
	const char *cmd = cli_next(c);
	struct fib *fib = c->r->fib;
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list")) {
		struct rule_show s = {.c = c};
		if (cli_next(c) != NULL)
			return cli_fail(c, EINVAL, "rule show: too many arguments");
		/* Linux's rule 0, "lookup local", listed as ip rule lists it:
		 * the router's own addresses answer before any rule (their
		 * routes live in main, docs/fib.md). Not a rule one can add or
		 * delete, unlike the default main and default rules. */
		if (c->json) {
			json_arr(&c->j, NULL);
			json_obj(&c->j, NULL);
			json_u64(&c->j, "priority", 0);
			json_str(&c->j, "src", "all");
			json_str(&c->j, "table", "local");
			json_end(&c->j);
		} else {
			rt_buf_printf(c->out, "0:\tfrom all lookup local\n");
		}
		/* One family, IPv4 unless -6, as ip rule lists them (and as
		 * rule add takes them): each family has its own main rule,
		 * which would otherwise show twice, alike. */
		fib_rule_walk(fib, c->family ? c->family : FIB_AF_INET, show_rule, &s);
		if (c->json)
			json_end(&c->j);
		return 0;
	}
	bool add = cli_matches(cmd, "add");
	if (!add && !cli_matches(cmd, "delete"))
		return cli_fail(c, EINVAL, "rule: unknown command '%s'", cmd);
	int rc = cli_may_change(c, "rule", cmd);
	if (rc < 0)
		return rc;
	const char *what = add ? "rule add" : "rule del";
	struct fib_rule ru;
	bool has_prio;
	rc = parse_rule(c, what, &ru, &has_prio);
	if (rc < 0)
		return rc;
	if (!has_prio && add) {
		/* As Linux: just before the first rule after local's 0 (the
		 * default main rule: 32765), or 0 if there is none or it is
		 * at 0. */
		struct prio_scan s = {0};
		fib_rule_walk(fib, ru.family, lowest_prio, &s);
		ru.priority = s.any && s.lowest > 0 ? s.lowest - 1 : 0;
	} else if (!has_prio) {
		/* del without a priority: the first rule matching the rest. */
		struct rule_find f = {.want = &ru};
		fib_rule_walk(fib, ru.family, find_rule, &f);
		if (!f.found)
			return cli_fail(c, ENOENT, "%s: no such rule", what);
		ru.priority = f.priority;
	}
	if (add && ru.action == FIB_RULE_GOTO && ru.target <= ru.priority)
		return cli_fail(c, EINVAL, "%s: goto %u is not after the rule's priority %u", what,
				ru.target, ru.priority);
	rc = add ? fib_rule_add(fib, &ru) : fib_rule_del(fib, &ru);
	if (rc == -EEXIST)
		return cli_fail(c, EEXIST, "%s: rule exists (File exists)", what);
	if (rc == -ENOENT)
		return cli_fail(c, ENOENT, "%s: no such rule", what);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: %s", what, strerror(-rc));
	cli_event(c->r, CLI_EV_RULE, !add, rule_event, &ru);
	return 0;
}
