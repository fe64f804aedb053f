/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link show [[dev] PORT] | link set [dev] PORT up|down|mtu N|ra ...: the
 * ports, their state and their router advertisements' settings, as
 * `ip link` shows and sets them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cli_priv.h"

/*
 * A port's counters for link show -s, in ip -s link's layout and JSON
 * keys (stats64): bytes, packets and errors as the device counts them;
 * RX dropped, the packets received on the port that a worker dropped
 * (any reason `stats` lists); RX missed and nombuf, what the device
 * could not receive for want of descriptors or mbufs; TX dropped, what
 * the device's queue would not take. Since routerd started: `stats
 * reset` leaves them alone, as nothing resets ip's counters.
 */
static void
link_stats(struct cli *c, uint16_t port)
{
	const struct rt_dp *dp = &c->r->dp;
	struct rte_eth_stats d;
	if (rte_eth_stats_get(port, &d) != 0)
		memset(&d, 0, sizeof(d));
	struct rt_wstats s;
	rt_dp_stats_sum(dp, &s);
	unsigned long long tx_dropped = 0;
	for (unsigned int w = 0; w < dp->nb_workers; w++)
		tx_dropped += dp->worker[w].tx_dropped[port];
	unsigned long long rx[] = {d.ibytes,          d.ipackets, d.ierrors,
				   s.port_drop[port], d.imissed,  d.rx_nombuf};
	unsigned long long tx[] = {d.obytes, d.opackets, d.oerrors, tx_dropped};
	if (c->json) {
		static const char *const rx_keys[] = {"bytes",   "packets", "errors",
						      "dropped", "missed",  "nombuf"};
		json_obj(&c->j, "stats64");
		json_obj(&c->j, "rx");
		for (unsigned int i = 0; i < RTE_DIM(rx); i++)
			json_u64(&c->j, rx_keys[i], rx[i]);
		json_end(&c->j);
		json_obj(&c->j, "tx");
		for (unsigned int i = 0; i < RTE_DIM(tx); i++)
			json_u64(&c->j, rx_keys[i], tx[i]);
		json_end(&c->j);
		json_end(&c->j);
		return;
	}
	rt_buf_printf(c->out,
		      "    RX:  bytes packets errors dropped  missed  nombuf\n"
		      "    %10llu %7llu %6llu %7llu %7llu %7llu\n"
		      "    TX:  bytes packets errors dropped\n"
		      "    %10llu %7llu %6llu %7llu\n",
		      rx[0], rx[1], rx[2], rx[3], rx[4], rx[5], tx[0], tx[1], tx[2], tx[3]);
}

/* A port's advertised DNS servers, comma-separated; in JSON a list. */
static void
rdnss_list(struct cli *c, uint16_t port, bool json)
{
	const struct rt_ra *ra = &c->r->ra[port];
	if (json)
		json_arr(&c->j, "rdnss");
	for (unsigned int k = 0; k < ra->nb_rdnss; k++) {
		char a[48];
		cli_fmt_addr(FIB_AF_INET6, ra->rdnss[k], a, sizeof(a));
		if (json)
			json_str(&c->j, NULL, a);
		else
			rt_buf_printf(c->out, "%s%s", k ? "," : "", a);
	}
	if (json)
		json_end(&c->j);
}

/* A port's advertisement options that differ from the defaults, each
 * with a space before it, as link set takes them. */
static void
ra_options(struct cli *c, uint16_t port)
{
	const struct rt_ra *ra = &c->r->ra[port];
	if (ra->managed)
		rt_buf_printf(c->out, " ra-managed on");
	if (ra->other)
		rt_buf_printf(c->out, " ra-other on");
	if (ra->lifetime_set)
		rt_buf_printf(c->out, " ra-lifetime %u", ra->lifetime_s);
}

unsigned int
cli_link_flags(const struct router *r, uint16_t port, const char *flags[4])
{
	bool up = rt_dp_port_up(&r->dp, port), carrier = rt_dp_port_carrier(&r->dp, port);
	unsigned int n = 0;
	if (up && !carrier)
		flags[n++] = "NO-CARRIER";
	flags[n++] = "BROADCAST";
	flags[n++] = "MULTICAST";
	if (up)
		flags[n++] = "UP";
	if (up && carrier)
		flags[n++] = "LOWER_UP";
	return n;
}

void
cli_link_flags_text(const struct router *r, uint16_t port, char *buf, size_t len)
{
	const char *f[4];
	unsigned int n = cli_link_flags(r, port, f);
	size_t at = 0;
	buf[0] = 0;
	for (unsigned int k = 0; k < n && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? "," : "", f[k]);
}

/* speed and duplex, as ethtool says them; unknown when the driver
 * does not say. */
static void
speed_text(const struct rt_link *l, char *buf, size_t len)
{
	if (l->speed == 0)
		snprintf(buf, len, "unknown");
	else if (l->speed % 1000 == 0)
		snprintf(buf, len, "%uGb/s", l->speed / 1000);
	else
		snprintf(buf, len, "%uMb/s", l->speed);
}

static void
show_link_json(struct cli *c, uint16_t i, const char *mac)
{
	const struct router *r = c->r;
	const struct rt_port *p = &r->dp.port[i];
	const struct rt_link *l = &r->link[i];
	const struct rt_ra *ra = &r->ra[i];
	const char *flags[4];
	unsigned int nf = cli_link_flags(r, i, flags);
	json_obj(&c->j, NULL);
	json_u64(&c->j, "ifindex", i);
	json_str(&c->j, "ifname", p->name);
	json_arr(&c->j, "flags");
	for (unsigned int k = 0; k < nf; k++)
		json_str(&c->j, NULL, flags[k]);
	json_end(&c->j);
	json_u64(&c->j, "mtu", p->mtu);
	json_str(&c->j, "operstate", rt_link_oper_up(r, i) ? "UP" : "DOWN");
	json_str(&c->j, "address", mac);
	json_u64(&c->j, "speed", l->speed);
	json_str(&c->j, "duplex", l->speed == 0 ? "unknown" : l->full_duplex ? "full" : "half");
	json_u64(&c->j, "carrier_changes", l->changes);
	json_str(&c->j, "driver", p->driver);
	json_bool(&c->j, "ra", ra->on);
	json_bool(&c->j, "ra_managed", ra->managed);
	json_bool(&c->j, "ra_other", ra->other);
	json_u64(&c->j, "ra_lifetime", rt_ra_lifetime(r, i));
	rdnss_list(c, i, true);
	if (r->cport[i].ifindex != 0) /* its control-plane port, a Linux interface */
		json_str(&c->j, "control_port", r->cport[i].name);
}

/* One port, as link show lists it: ip link's flags and state, then the
 * link's speed and duplex, the driver, the router advertisements. */
static void
show_link(struct cli *c, uint16_t i)
{
	const struct router *r = c->r;
	const struct rt_port *p = &r->dp.port[i];
	const struct rt_ra *ra = &r->ra[i];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	if (c->json) {
		show_link_json(c, i, mac);
	} else {
		char flags[64], speed[16];
		cli_link_flags_text(r, i, flags, sizeof(flags));
		speed_text(&r->link[i], speed, sizeof(speed));
		rt_buf_printf(c->out, "%u: %s: <%s> mtu %u state %s speed %s%s driver %s%s", i,
			      p->name, flags, p->mtu, rt_link_oper_up(r, i) ? "UP" : "DOWN", speed,
			      r->link[i].speed == 0    ? ""
			      : r->link[i].full_duplex ? " duplex full"
						       : " duplex half",
			      p->driver, ra->on ? " ra on" : "");
		ra_options(c, i);
		if (ra->nb_rdnss) {
			rt_buf_printf(c->out, " rdnss ");
			rdnss_list(c, i, false);
		}
		rt_buf_printf(c->out, "\n    link/ether %s\n", mac);
		if (r->cport[i].ifindex != 0)
			rt_buf_printf(c->out, "    control-plane %s\n", r->cport[i].name);
	}
	if (c->stats)
		link_stats(c, i);
	if (c->json)
		json_end(&c->j);
}

static void
link_event(struct cli *c, const void *port)
{
	show_link(c, *(const uint16_t *)port);
}

void
cli_link_event(struct router *r, uint16_t port)
{
	cli_event(r, CLI_EV_LINK, false, link_event, &port);
}

/* rdnss ADDR[,ADDR[,ADDR]] | none: the DNS servers router advertisements
 * name (IPv6 unicast addresses, at most 3, as radvd's RDNSS). */
static int
parse_rdnss(struct cli *c, const char *v, uint8_t out[3][16], unsigned int *n)
{
	*n = 0;
	if (v == NULL)
		return cli_fail(c, EINVAL, "rdnss: 'ADDR[,ADDR...]' or 'none' expected");
	if (strcmp(v, "none") == 0)
		return 0;
	char list[256];
	snprintf(list, sizeof(list), "%s", v);
	for (char *save, *t = strtok_r(list, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		struct fib_prefix a;
		int rc = cli_parse_addr(c, "rdnss", t, FIB_AF_INET6, &a);
		if (rc < 0)
			return rc;
		if (*n == 3)
			return cli_fail(c, EINVAL, "rdnss: at most 3 servers");
		if (a.addr.v6[0] == 0xff)
			return cli_fail(c, EINVAL, "rdnss: %s is multicast", t);
		memcpy(out[(*n)++], a.addr.v6, 16);
	}
	return 0;
}

/* WORD on|off, WORD already read: *out set, or -EINVAL and nothing set. */
static int
parse_on_off(struct cli *c, const char *word, bool *out)
{
	const char *v = cli_next(c);
	if (v == NULL || (strcmp(v, "on") != 0 && strcmp(v, "off") != 0))
		return cli_fail(c, EINVAL, "link set: '%s on|off' expected", word);
	*out = strcmp(v, "on") == 0;
	return 0;
}

/* What link set asks for, read whole before anything is applied. */
struct link_set {
	bool up, ra, managed, other, set_rdnss;
	int32_t lifetime;
	uint8_t rdnss[3][16];
	unsigned int nb_rdnss;
	uint32_t mtu;
};

static int
parse_ra_lifetime(struct cli *c, int32_t *lifetime)
{
	uint32_t s = 0;
	int rc = cli_parse_u32(c, "ra-lifetime", cli_next(c), RT_RA_LIFETIME_MAX, &s);
	if (rc < 0)
		return rc;
	if (s != 0 && s < RT_RA_LIFETIME_MIN)
		return cli_fail(c, EINVAL,
				"ra-lifetime: 0 (not a default router) or %u..%u seconds",
				RT_RA_LIFETIME_MIN, RT_RA_LIFETIME_MAX);
	*lifetime = (int32_t)s;
	return 0;
}

static int
parse_link_set(struct cli *c, struct link_set *a)
{
	const char *w;
	int rc = 0;
	while (rc == 0 && (w = cli_next(c)) != NULL) {
		if (strcmp(w, "up") == 0 || strcmp(w, "down") == 0) {
			a->up = strcmp(w, "up") == 0;
		} else if (strcmp(w, "ra") == 0) {
			rc = parse_on_off(c, w, &a->ra);
		} else if (strcmp(w, "ra-managed") == 0) {
			rc = parse_on_off(c, w, &a->managed);
		} else if (strcmp(w, "ra-other") == 0) {
			rc = parse_on_off(c, w, &a->other);
		} else if (strcmp(w, "ra-lifetime") == 0) {
			rc = parse_ra_lifetime(c, &a->lifetime);
		} else if (strcmp(w, "rdnss") == 0) {
			rc = parse_rdnss(c, cli_next(c), a->rdnss, &a->nb_rdnss);
			a->set_rdnss = true;
		} else if (strcmp(w, "mtu") == 0) {
			rc = cli_parse_u32(c, "mtu", cli_next(c), 9600, &a->mtu);
			if (rc == 0 && a->mtu < 576)
				rc = cli_fail(c, EINVAL, "mtu: %u is below 576", a->mtu);
		} else {
			rc = cli_fail(c, EINVAL, "link set: unknown argument '%s'", w);
		}
	}
	return rc;
}

static int
link_set(struct cli *c)
{
	struct router *r = c->r;
	uint16_t port = 0;
	int rc;
	if (!cli_opt_port(c, &port, &rc))
		return rc < 0 ? rc : cli_fail(c, EINVAL, "link set: port expected");
	const struct rt_ra *ra = &r->ra[port];
	struct link_set a = {.up = rt_dp_port_up(&r->dp, port),
			     .ra = ra->on,
			     .managed = ra->managed,
			     .other = ra->other,
			     .lifetime = ra->lifetime_set ? ra->lifetime_s : -1,
			     .mtu = r->dp.port[port].mtu};
	if ((rc = parse_link_set(c, &a)) < 0)
		return rc;
	if ((rc = rt_link_set_mtu(r, port, (uint16_t)a.mtu)) < 0)
		return cli_fail(c, -rc, "link set: %s", strerror(-rc));
	rt_link_set_up(r, port, a.up);
	if (a.set_rdnss)
		rt_ra_set_rdnss(r, port, a.rdnss, a.nb_rdnss);
	rt_ra_set_options(r, port, a.managed, a.other, a.lifetime);
	rt_ra_set(r, port, a.ra);
	cli_event(r, CLI_EV_LINK, false, link_event, &port);
	return 0;
}

int
cli_link(struct cli *c)
{
	const char *cmd = cli_next(c);
	int rc = 0;
	if (cmd != NULL && cli_matches(cmd, "set"))
		return (rc = cli_may_change(c, "link", cmd)) < 0 ? rc : link_set(c);
	if (cmd != NULL && !cli_matches(cmd, "show") && !cli_matches(cmd, "list"))
		return cli_fail(c, EINVAL, "link: unknown command '%s'", cmd);
	uint16_t only = 0;
	bool one = cmd != NULL && cli_opt_port(c, &only, &rc);
	if (rc < 0)
		return rc;
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "link show: too many arguments");
	if (c->json)
		json_arr(&c->j, NULL);
	for (uint16_t i = 0; i < c->r->dp.nb_ports; i++)
		if (!one || i == only)
			show_link(c, i);
	if (c->json)
		json_end(&c->j);
	return 0;
}

void
cli_link_save_mtu(struct cli *c)
{
	const struct rt_dp *dp = &c->r->dp;
	for (uint16_t i = 0; i < dp->nb_ports; i++)
		rt_buf_printf(c->out, "link set %s mtu %u\n", dp->port[i].name, dp->port[i].mtu);
}

void
cli_link_save_state(struct cli *c)
{
	const struct router *r = c->r;
	for (uint16_t i = 0; i < r->dp.nb_ports; i++) {
		const char *name = r->dp.port[i].name;
		const struct rt_ra *ra = &r->ra[i];
		if (ra->nb_rdnss) {
			rt_buf_printf(c->out, "link set %s rdnss ", name);
			rdnss_list(c, i, false);
			rt_buf_printf(c->out, "\n");
		}
		if (ra->managed || ra->other || ra->lifetime_set) {
			rt_buf_printf(c->out, "link set %s", name);
			ra_options(c, i);
			rt_buf_printf(c->out, "\n");
		}
		if (ra->on)
			rt_buf_printf(c->out, "link set %s ra on\n", name);
		if (!rt_dp_port_up(&r->dp, i))
			rt_buf_printf(c->out, "link set %s down\n", name);
	}
}
