/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's own settings: defaults, then the config file, then options
 * (options win). The config file is `key value` lines; `#` starts a
 * comment. An error names the file, the line and the problem, and the
 * daemon does not start. Format: docs/operations.md.
 */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "conf.h"
#include "control.h"
#include "nexthop.h"
#include "reasm.h"

void
conf_defaults(struct rt_settings *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->socket_path, sizeof(s->socket_path), "/run/router/router.sock");
	s->cli_idle_s = 300;
	s->idle_backoff = true;
	s->idle_sleep_us = 100;
	s->icmp_rate = 1000;
	s->icmp_burst = 50;
	s->icmp_ratelimit_ms = 1000;
	s->nb_mbufs = 8191;
	s->rx_desc = 1024;
	s->tx_desc = 1024;
	s->tx_backlog = 1024;
	s->neigh_max = 1024;
	s->neigh_port_incomplete = 256;
	s->neigh_source_incomplete = 32;
	s->neigh_port_requests = 1000;
	s->neigh_source_requests = 100;
	s->hash_policy = NH_HASH_L4;
	s->link_poll_ms = 10;
	s->reasm_kb = RT_REASM_MEM_DEFAULT >> 10;
	s->control_ports = true;
	s->punt_rate = 10000;
	s->kernel_routes = true;
	s->kernel_default_route = true;
}

static int
set_u32(const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long long x = strtoull(v, &end, 0);
	if (*v == 0 || *v == '-' || *end != 0 || x < min || x > max)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* An on/off setting. */
static const char *
set_bool(const char *v, bool *out)
{
	if (strcmp(v, "on") == 0)
		*out = true;
	else if (strcmp(v, "off") == 0)
		*out = false;
	else
		return "expected on or off";
	return NULL;
}

/* Call item for each comma-separated item of a list setting.
 * @return NULL or the first item's complaint. */
static const char *
each_item(struct rt_settings *s, const char *val,
	  const char *(*item)(struct rt_settings *, const char *))
{
	char buf[256];
	if (strlen(val) >= sizeof(buf))
		return "too long";
	strcpy(buf, val);
	for (char *save, *t = strtok_r(buf, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		const char *why = item(s, t);
		if (why != NULL)
			return why;
	}
	return NULL;
}

/* A protocol of kernel-protocols, by iproute2's name or number. */
static const char *
protocol_item(struct rt_settings *s, const char *t)
{
	uint8_t o;
	uint32_t v;
	if (rt_origin_by_name(t, &o) == 0)
		v = o;
	else if (set_u32(t, 0, 255, &v) < 0)
		return "expected all, or protocols by name or number "
		       "(bird,bgp,ospf,zebra,static,...)";
	s->kernel_protocols[v / 8] |= (uint8_t)(1u << (v % 8));
	return NULL;
}

/* A table of kernel-tables, by id or as main or default. */
static const char *
table_item(struct rt_settings *s, const char *t)
{
	uint32_t v;
	if (strcmp(t, "main") == 0)
		v = FIB_TABLE_MAIN;
	else if (strcmp(t, "default") == 0)
		v = FIB_TABLE_DEFAULT;
	else if (set_u32(t, 1, UINT32_MAX, &v) < 0 || v == 255)
		return "expected all, or tables by id or name (main,default,100,...); "
		       "local is routerd's own";
	if (s->nb_kernel_tables == RT_KERNEL_TABLES_MAX)
		return "at most 16 tables";
	s->kernel_tables[s->nb_kernel_tables++] = v;
	return NULL;
}

/* kernel-protocols and kernel-tables: "all" (every protocol but the
 * kernel's own, every table but local), or a list. */
static const char *
set_protocols(struct rt_settings *s, const char *val)
{
	memset(s->kernel_protocols, 0, sizeof(s->kernel_protocols));
	s->kernel_protocols_set = strcmp(val, "all") != 0;
	return s->kernel_protocols_set ? each_item(s, val, protocol_item) : NULL;
}

static const char *
set_tables(struct rt_settings *s, const char *val)
{
	s->nb_kernel_tables = 0;
	return strcmp(val, "all") != 0 ? each_item(s, val, table_item) : NULL;
}

/* The numeric settings: a name, its range, and where in rt_settings it
 * goes (a uint32_t, or a uint16_t when short_field). */
static const struct num_key {
	const char *name;
	uint32_t min, max;
	size_t off;
	bool short_field;
	const char *unit; /* after the range in a complaint, or "" */
} num_keys[] = {
	{"idle-sleep-us", 1, 1000000, offsetof(struct rt_settings, idle_sleep_us), false, ""},
	{"cli-idle-timeout", 1, 86400, offsetof(struct rt_settings, cli_idle_s), false,
	 " (seconds)"},
	{"icmp-rate", 1, 1000000, offsetof(struct rt_settings, icmp_rate), false, ""},
	{"icmp-burst", 1, 100000, offsetof(struct rt_settings, icmp_burst), false, ""},
	{"icmp-ratelimit", 0, 60000, offsetof(struct rt_settings, icmp_ratelimit_ms), false,
	 " (milliseconds)"},
	{"mbufs", 1023, 1u << 24, offsetof(struct rt_settings, nb_mbufs), false, ""},
	{"rx-desc", 64, 4096, offsetof(struct rt_settings, rx_desc), true, ""},
	{"tx-desc", 64, 4096, offsetof(struct rt_settings, tx_desc), true, ""},
	{"tx-backlog", 0, 65536, offsetof(struct rt_settings, tx_backlog), false, ""},
	{"neigh-max", 16, 1u << 20, offsetof(struct rt_settings, neigh_max), false, ""},
	{"neigh-reachable-ms", 100, 3600000, offsetof(struct rt_settings, neigh_reachable_ms),
	 false, ""},
	{"neigh-gc-stale-ms", 100, 3600000, offsetof(struct rt_settings, neigh_gc_stale_ms), false,
	 ""},
	{"neigh-incomplete-per-port", 1, 1u << 20,
	 offsetof(struct rt_settings, neigh_port_incomplete), false, ""},
	{"neigh-incomplete-per-source", 1, 1u << 20,
	 offsetof(struct rt_settings, neigh_source_incomplete), false, ""},
	{"neigh-requests-per-s", 1, 1000000, offsetof(struct rt_settings, neigh_port_requests),
	 false, ""},
	{"neigh-source-requests-per-s", 1, 1000000,
	 offsetof(struct rt_settings, neigh_source_requests), false, ""},
	{"punt-rate", 1, 10000000, offsetof(struct rt_settings, punt_rate), false, ""},
	{"link-poll-ms", 1, 60000, offsetof(struct rt_settings, link_poll_ms), false, ""},
	{"reasm-memory", RT_REASM_MEM_MIN >> 10, RT_REASM_MEM_MAX >> 10,
	 offsetof(struct rt_settings, reasm_kb), false, " (KiB)"},
};

/* The on/off settings. */
static const struct bool_key {
	const char *name;
	size_t off;
} bool_keys[] = {
	{"idle-backoff", offsetof(struct rt_settings, idle_backoff)},
	{"control-ports", offsetof(struct rt_settings, control_ports)},
	{"kernel-routes", offsetof(struct rt_settings, kernel_routes)},
	{"kernel-default-route", offsetof(struct rt_settings, kernel_default_route)},
};

/* A numeric setting; @return NULL, or its range as the complaint (in a
 * buffer of this function's: settings are read by one thread, at start). */
static const char *
set_num(struct rt_settings *s, const struct num_key *k, const char *val)
{
	static char why[64];
	uint32_t v;
	if (set_u32(val, k->min, k->max, &v) < 0) {
		snprintf(why, sizeof(why), "expected %u..%u%s", k->min, k->max, k->unit);
		return why;
	}
	if (k->short_field)
		*(uint16_t *)((char *)s + k->off) = (uint16_t)v;
	else
		*(uint32_t *)((char *)s + k->off) = v;
	return NULL;
}

/* A path setting into a field of SIZE bytes. */
static const char *
set_path(char *field, size_t size, const char *val)
{
	if (strlen(val) >= size)
		return "path too long";
	strcpy(field, val);
	return NULL;
}

/* Apply one setting; @return NULL or what is wrong. */
static const char *
apply(struct rt_settings *s, const char *key, const char *val)
{
	for (size_t i = 0; i < RTE_DIM(num_keys); i++)
		if (strcmp(key, num_keys[i].name) == 0)
			return set_num(s, &num_keys[i], val);
	for (size_t i = 0; i < RTE_DIM(bool_keys); i++)
		if (strcmp(key, bool_keys[i].name) == 0)
			return set_bool(val, (bool *)((char *)s + bool_keys[i].off));
	if (strcmp(key, "socket") == 0)
		return set_path(s->socket_path, sizeof(s->socket_path), val);
	if (strcmp(key, "socket-group") == 0) {
		if (strlen(val) >= sizeof(s->socket_group))
			return "group name too long";
		if (getgrnam(val) == NULL)
			return "no such group";
		strcpy(s->socket_group, val);
		return NULL;
	}
	if (strcmp(key, "startup") == 0)
		return set_path(s->startup, sizeof(s->startup), val);
	if (strcmp(key, "control-port-prefix") == 0) {
		if (strlen(val) >= sizeof(s->control_port_prefix) || strchr(val, '/') != NULL)
			return "expected an interface name prefix of at most 11 characters";
		strcpy(s->control_port_prefix, val);
		return NULL;
	}
	if (strcmp(key, "kernel-protocols") == 0)
		return set_protocols(s, val);
	if (strcmp(key, "kernel-tables") == 0)
		return set_tables(s, val);
	if (strcmp(key, "hash-policy") == 0) {
		if (strcmp(val, "l3") == 0)
			s->hash_policy = NH_HASH_L3;
		else if (strcmp(val, "l4") == 0)
			s->hash_policy = NH_HASH_L4;
		else
			return "expected l3 or l4";
		return NULL;
	}
	return "unknown setting";
}

int
conf_file(struct rt_settings *s, const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	char line[4352];
	unsigned int n = 0;
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		n++;
		char *hash = strchr(line, '#');
		if (hash != NULL)
			*hash = 0;
		char key[64], val[4224], extra[2];
		int k = sscanf(line, " %63s %4223s %1s", key, val, extra);
		if (k <= 0)
			continue; /* blank */
		const char *why = k == 1   ? "value missing"
				  : k == 3 ? "one value expected"
					   : apply(s, key, val);
		if (why != NULL) {
			fprintf(stderr, "%s:%u: %s: %s\n", path, n, k >= 1 ? key : "", why);
			rc = -EINVAL;
		}
	}
	fclose(f);
	return rc;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [--socket PATH] [--socket-group GROUP]\n"
		"          [--config FILE] [--startup FILE]\n"
		"          [--no-idle-backoff] [--no-control-ports] [--hash-policy l3|l4]\n"
		"          [--set KEY=VALUE]...\n"
		"Every probed ethdev becomes port<N>. The EAL main lcore is the control core;\n"
		"every other lcore is a worker (at least one). See docs/operations.md.\n",
		prog);
}

int
conf_options(struct rt_settings *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"socket-group", required_argument, NULL, 'g'},
		{"config", required_argument, NULL, 'c'},
		{"startup", required_argument, NULL, 'S'},
		{"no-idle-backoff", no_argument, NULL, 'n'},
		{"no-control-ports", no_argument, NULL, 'C'},
		{"hash-policy", required_argument, NULL, 'h'},
		{"set", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	/* The config file first, so that options override it. */
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--config") == 0 && conf_file(s, argv[i + 1]) < 0)
			return -EINVAL;
	int c, idx = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		const char *why = NULL;
		switch (c) {
		case 's':
			why = apply(s, "socket", optarg);
			break;
		case 'g':
			why = apply(s, "socket-group", optarg);
			break;
		case 'c':
			break; /* read above */
		case 'S':
			why = apply(s, "startup", optarg);
			break;
		case 'n':
			s->idle_backoff = false;
			break;
		case 'C':
			s->control_ports = false;
			break;
		case 'h':
			why = apply(s, "hash-policy", optarg);
			break;
		case 'k': { /* --set KEY=VALUE: any config file setting */
			char key[64];
			const char *eq = strchr(optarg, '=');
			if (eq == NULL || (size_t)(eq - optarg) >= sizeof(key)) {
				why = "expected KEY=VALUE";
				break;
			}
			memcpy(key, optarg, (size_t)(eq - optarg));
			key[eq - optarg] = 0;
			why = apply(s, key, eq + 1);
			break;
		}
		default:
			usage(argv[0]);
			return -EINVAL;
		}
		if (why != NULL) {
			fprintf(stderr, "%s: --%s: %s\n", argv[0], opts[idx].name, why);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		usage(argv[0]);
		return -EINVAL;
	}
	/* A source's share is part of its port's. */
	if (s->neigh_source_incomplete > s->neigh_port_incomplete ||
	    s->neigh_source_requests > s->neigh_port_requests) {
		fprintf(stderr,
			"%s: neigh-incomplete-per-source and neigh-source-requests-per-s "
			"must not exceed their port's\n",
			argv[0]);
		return -EINVAL;
	}
	return 0;
}
