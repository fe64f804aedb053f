/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's settings, as conf.c reads them from options and the config
 * file (docs/operations.md lists them). Plain data, read by every plane
 * at start; nothing changes them afterwards.
 */
#ifndef ROUTER_SETTINGS_H
#define ROUTER_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#define RT_KERNEL_TABLES_MAX 16 /* kernel-tables: the most named */

struct rt_settings {
	char socket_path[108];
	char socket_group[64]; /* a group that may read (show, monitor); "" none */
	uint32_t cli_idle_s;   /* a client that sends nothing this long is closed, 300 */
	char startup[4096];
	bool idle_backoff;          /* on by default */
	uint32_t idle_sleep_us;     /* 100 */
	uint32_t icmp_rate;         /* ICMP errors per second, 1000 */
	uint32_t icmp_burst;        /* 50 */
	uint32_t icmp_ratelimit_ms; /* per destination, 1000; 0: none */
	uint32_t nb_mbufs;          /* 8191 */
	uint16_t rx_desc, tx_desc;
	uint32_t tx_backlog;         /* packets held behind a refusing TX queue, 1024 */
	uint32_t neigh_max;          /* 1024 */
	uint32_t neigh_reachable_ms; /* 0: the library default (30 s) */
	uint32_t neigh_gc_stale_ms;  /* 0: the library default (60 s) */
	/* The resolution budget (docs/neigh.md): entries resolving and
	 * multicast requests a second, per port and per source on it. */
	uint32_t neigh_port_incomplete, neigh_source_incomplete; /* 256, 32 */
	uint32_t neigh_port_requests, neigh_source_requests;     /* 1000, 100 */
	uint8_t hash_policy;                                     /* enum nh_hash_policy */
	uint32_t link_poll_ms;                                   /* carrier polled this often, 10 */
	uint32_t reasm_kb; /* fragment data held for reassembly, KiB: 4096 */
	/* Control-plane ports (docs/control-plane.md): a TAP per port, on by
	 * default, named after the port or the prefix and its number; what
	 * is punted to each, at most punt_rate packets a second. */
	bool control_ports;
	char control_port_prefix[12];
	uint32_t punt_rate; /* 10000 */
	/* The kernel route mirror (docs/control-plane.md): on with the
	 * control-plane ports; the protocols it follows, a bit each (when
	 * set; else every one but the kernel's own). */
	bool kernel_routes;
	/* A default route for the router's own packets in the kernel, through
	 * a control-plane port (tap.c, rt_tap_default_route); on. */
	bool kernel_default_route;
	bool kernel_protocols_set;
	uint8_t kernel_protocols[32];
	/* The kernel tables followed, when set (else every one but local). */
	uint8_t nb_kernel_tables;
	uint32_t kernel_tables[RT_KERNEL_TABLES_MAX];
};

#endif
