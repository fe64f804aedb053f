/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control plane: the control core's state and what the CLI and main
 * may ask of it.
 *
 * Threads. Everything here runs on the control core (the EAL main
 * lcore), the one writer of the router's state: routes, rules, nexthops,
 * neighbours, addresses, links. It writes what the workers read (the
 * datapath's struct rt_dp) only through the libraries' publication rules
 * and datapath.h's setters, and reads the workers' counters through
 * const views. It never calls the CLI: the CLI registers for what it
 * wants to hear (rt_control_hooks) and for its sockets (rt_loop_watch).
 *
 * Errors: int functions return 0 or a negative errno value; the message
 * for the operator is made by the caller, at the edge.
 */
#ifndef ROUTER_CONTROL_H
#define ROUTER_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "datapath.h"
#include "fib.h"
#include "log.h"
#include "neigh.h"
#include "nexthop.h"
#include "settings.h"

#define RT_MAX_ADDRS 256

/* The nexthop id of the special nexthop a rule's unreachable action
 * answers with: not one an operator sees, adds or deletes. */
#define RT_NH_ID_RULE_UNREACHABLE 0xfffffffeu

/* Origin tags of routes, as Linux's "proto" values where they exist. */
#define RT_ORIGIN_KERNEL 2  /* an address's local and connected routes */
#define RT_ORIGIN_BOOT 3    /* added by an operator */
#define RT_ORIGIN_NEIGH 253 /* host routes for resolved neighbours (hidden) */
/* An origin's name (iproute2's and FRR's, origin.c), or NULL for one
 * without; and the origin of a name: 0, or -ENOENT. */
const char *rt_origin_name(uint8_t v);
int rt_origin_by_name(const char *name, uint8_t *v);

struct rt_addr {
	uint16_t port;
	struct fib_prefix p; /* the address, with its prefix length */
};

/*
 * The control core's counters and the libraries' it shows beside them,
 * in the order and under the group and name `stats` shows them
 * (telemetry: the name, prefixed "neigh_" for the neighbour table's). A
 * gauge (how many now) is not subject to `stats reset`. The control
 * core's own are r->ctr[RT_CTR_...]; the others are read from their
 * library, or the worker that sends the control core's packets, by
 * rt_ctl_counters.
 */
#define RT_CTL_COUNTERS(X)                                                                         \
	X(ICMP_SENT, "control", "icmp_sent", false)                                                \
	X(ICMP_RATELIMITED, "control", "icmp_ratelimited", false)                                  \
	X(LOCAL_UNHANDLED, "control", "local_unhandled", false)                                    \
	X(TCP_RESETS, "control", "tcp_resets", false)                                              \
	X(RA_SENT, "control", "ra_sent", false)                                                    \
	X(RS_RECEIVED, "control", "rs_received", false)                                            \
	X(NEIGH_REFUSED, "control", "neigh_refused", false)                                        \
	X(OUT_NO_ROUTE, "control", "out_no_route", false)                                          \
	X(FRAGMENTS, "control", "fragments", false)                                                \
	X(REASM_REQDS, "control", "reasm_reqds", false)                                            \
	X(REASM_OKS, "control", "reasm_oks", false)                                                \
	X(REASM_FAILS, "control", "reasm_fails", false)                                            \
	X(REASM_TIMEOUTS, "control", "reasm_timeouts", false)                                      \
	X(REASM_EVICTED, "control", "reasm_evicted", false)                                        \
	X(REASM_SRC_EVICTED, "control", "reasm_src_evicted", false)                                \
	X(REASM_PENDING, "control", "reasm_pending", true)                                         \
	X(REASM_BYTES, "control", "reasm_bytes", true)                                             \
	X(TX_RING_FULL, "control", "tx_ring_full", false)                                          \
	X(TX_SENT, "control", "tx_sent", false)                                                    \
	X(TX_DROPPED, "control", "tx_dropped", false)                                              \
	X(LOOP_ROUNDS, "control", "wakeups", false)                                                \
	X(LOOP_BELLS, "control", "wakeups_punt", false)                                            \
	X(PEERS, "control", "proto_peers", true)                                                   \
	X(PEERS_LEARNT, "control", "proto_peers_learnt", false)                                    \
	X(PEERS_FORGOTTEN, "control", "proto_peers_forgotten", false)                              \
	X(NEIGH_ENTRIES, "neigh", "entries", true)                                                 \
	X(NEIGH_INCOMPLETE, "neigh", "incomplete", true)                                           \
	X(NEIGH_QUEUE_DROPS, "neigh", "queue_drops", false)                                        \
	X(NEIGH_FAILED, "neigh", "failed", false)                                                  \
	X(NEIGH_TABLE_FULL, "neigh", "table_full", false)                                          \
	X(NEIGH_SOURCES, "neigh", "sources", true)                                                 \
	X(NEIGH_REPLACED, "neigh", "replaced", false)                                              \
	X(NEIGH_RATE_LIMITED, "neigh", "rate_limited", false)                                      \
	X(NEIGH_EVICTED, "neigh", "evicted", false)

#define RT_ENUM(name, group, str, gauge) RT_CTR_##name,
enum rt_ctr { RT_CTL_COUNTERS(RT_ENUM) RT_CTR_COUNT };
#undef RT_ENUM

struct rt_ctr_info {
	const char *group, *name;
	bool gauge;
};
extern const struct rt_ctr_info rt_ctr_info[RT_CTR_COUNT];

/* Router advertisements, per port (ra.c). */
struct rt_ra {
	bool on;
	uint8_t initial_left; /* of the first, closer spaced ones */
	uint64_t next_ms;     /* the next unsolicited one */
	uint64_t last_ms;     /* the last one sent: 3 s apart at least */
	uint64_t answer_ms;   /* one due in answer to solicitations, or 0 */
	/* The operator's options, as radvd's AdvManagedFlag,
	 * AdvOtherConfigFlag and AdvDefaultLifetime (with lifetime_set
	 * clear, the default: rt_ra_lifetime). */
	bool managed, other, lifetime_set;
	uint16_t lifetime_s;
	/* DNS servers to advertise (RFC 8106), the operator's. */
	uint8_t nb_rdnss;
	uint8_t rdnss[3][16];
	/* Prefixes the port lost: advertised with lifetimes 0 in the next
	 * few, so hosts stop using their addresses in them. */
	struct rt_ra_gone {
		struct fib_prefix net;
		uint8_t left; /* advertisements still to carry it; 0: free */
	} gone[8];
};

/* A port's link as its driver reports it (link.c). */
struct rt_link {
	bool carrier; /* the driver (and the kernel, under kif) says the link is up */
	bool lsc;     /* the driver reports changes by interrupt */
	bool full_duplex;
	uint32_t speed;   /* Mb/s; 0 unknown */
	uint64_t changes; /* carrier changes since start */
	uint64_t next_ms; /* when to read it again */
	unsigned int kif; /* ifindex under a socket port (af_packet, af_xdp); 0 none */
};

struct router;

/* What the control core tells whoever registered (the CLI's monitors).
 * Each may be NULL. */
struct rt_control_hooks {
	/* A neighbour entry changed or went: the operator's changes and the
	 * table's own (a MAC becoming usable or not). */
	void (*neigh_changed)(struct router *r, const struct neigh_key *k);
	/* A port's state changed: its carrier (the operator's changes are
	 * the CLI's own). */
	void (*link_changed)(struct router *r, uint16_t port);
};

struct rt_reasm;

/* A file descriptor in the control core's epoll loop (loop.c). */
struct rt_watch {
	int fd;
	void (*ready)(struct router *r, struct rt_watch *w, uint32_t events);
};

/* A port's control-plane port: its Linux TAP (tap.c) and what crosses it
 * (cport.c). */
struct rt_cport_stats {
	uint64_t punted, punt_dropped; /* port -> Linux */
	/* Refused by the punt buckets: the rest's, the routing protocols'. */
	uint64_t punt_limited, punt_limited_proto;
	uint64_t injected, injected_group; /* Linux -> port */
	/* Frames from the TAP refused: too short or a broken IP header,
	 * longer than the port's MTU, neither IPv4 nor IPv6; no mbuf. */
	uint64_t inject_bad, inject_long, inject_ethertype, inject_nombuf;
	uint64_t remade; /* the TAP deleted under routerd, and made again */
};

/* The kernel route mirror (mirror.c): why a route was not followed. */
enum rt_mirror_skip {
	RT_MIRROR_SKIP_IFACE,    /* a path by another interface than a TAP */
	RT_MIRROR_SKIP_ENCAP,    /* an encapsulation (MPLS, seg6...) */
	RT_MIRROR_SKIP_SOURCE,   /* source-specific, or a TOS */
	RT_MIRROR_SKIP_GATEWAY,  /* a gateway on no connected network */
	RT_MIRROR_SKIP_CONFLICT, /* an operator's route holds its place */
	RT_MIRROR_SKIP_NEXTHOP,  /* an unknown or unusable nexthop object */
	RT_MIRROR_SKIP_FULL,     /* no room: nexthops, groups, lookup table */
	RT_MIRROR_SKIP_COUNT,
};

struct rt_mirror_stats {
	uint64_t added, replaced, deleted; /* routes in routerd's FIB */
	uint64_t ignored;                  /* not the mirror's business */
	uint64_t skipped[RT_MIRROR_SKIP_COUNT];
	uint64_t malformed, unknown_attrs; /* messages, attributes */
	uint64_t resyncs, swept;           /* dumps, and the routes they found gone */
	uint64_t dropped; /* datagrams of notifications dropped unread after an overrun */
	uint64_t groups;  /* multipath nexthops shared now (a gauge) */
};

struct rt_cport {
	int fd;
	int ifindex; /* 0: the port has none */
	char name[16];
	struct rt_watch w;
	/* The punt token buckets: the routing protocols' packets
	 * (rt_exc_class_local's proto class) and the rest, so that a flood
	 * at the router's address never takes a BGP session's room. */
	struct {
		uint64_t milli, last_ms;
	} bucket[2];
	struct rt_cport_stats st;
	uint64_t remake_ms; /* deleted under routerd: made again then; 0 not */
};

/*
 * The router. dp is what the workers read (datapath.h); everything after
 * it is the control core's own, read by nobody else.
 */
struct router {
	struct rt_dp dp;
	struct rt_settings conf;
	struct fib *fib;     /* the writer's handle of dp.fib */
	struct nh_table *nh; /* the writer's side of the workers' views */
	struct neigh_table *neigh;
	struct rte_mempool *pool;
	/* Special nexthops, fixed at start (nh_rule_unreachable under the
	 * id RT_NH_ID_RULE_UNREACHABLE, which the CLI keeps to itself). */
	uint32_t nh_local, nh_blackhole, nh_unreachable, nh_prohibit, nh_rule_unreachable;
	unsigned int nb_addrs;
	struct rt_addr addr[RT_MAX_ADDRS]; /* in the order they were added */
	uint32_t *nh_used_seen;            /* the last sum of the workers' stamps, per nexthop */
	uint64_t ctr[RT_CTR_COUNT];
	struct rt_ra ra[RT_MAX_PORTS];
	struct rt_link link[RT_MAX_PORTS];
	struct rt_cport cport[RT_MAX_PORTS];
	struct rt_mirror_stats mirror;
	/* Fragments addressed to the router (reasm.h), and the
	 * identification of its own IPv4 packets and IPv6 fragments. */
	struct rt_reasm *reasm;
	uint32_t ip_id;
	struct rt_control_hooks hooks;
	volatile int stop; /* a signal: the control core winds down */
};

/* The control core's clock for timers (the neighbour table's too), in
 * milliseconds. */
static inline uint64_t
rt_now_ms(void)
{
	return rte_get_tsc_cycles() / (rte_get_tsc_hz() / 1000);
}

/*
 * Start-up (main.c; tables.c also serves tests/common/dp_harness.c).
 */
/* The QSBR variable, the nexthop table with the special nexthops, and
 * the FIB, for r->dp.nb_workers workers and r->conf.hash_policy. */
int rt_tables_create(struct router *r);
/* The neighbour table, reassembly, ICMP limits, the nexthop-use sums and
 * telemetry; after rt_tables_create. */
int rt_control_init(struct router *r);
void rt_control_fini(struct router *r);
/* The control-plane ports (a TAP per port, with the port's MAC, MTU,
 * state and addresses), unless r->conf.control_ports is off; after the
 * ports are set up. @return 0 or a negative errno value. */
int rt_cport_init(struct router *r);
void rt_cport_fini(struct router *r);
/* The kernel route mirror, unless control ports or kernel-routes are
 * off: subscribes, dumps the kernel's tables and installs what it
 * follows; after rt_cport_init. @return 0 or a negative errno value. */
int rt_mirror_init(struct router *r);
void rt_mirror_fini(struct router *r);
/* Is rt a route the kernel mirror installed (Linux's, followed)? Such a
 * route changes only with the kernel's table: the CLI refuses to change
 * or delete it, save leaves it out. */
bool rt_mirror_owns(const struct fib_route *rt);
/* An operator's route rt was deleted: if it held the place of a kernel
 * route the mirror skipped, the kernel's tables are dumped again so that
 * the kernel's route is followed now. */
void rt_mirror_operator_gone(const struct fib_route *rt);
/* Serve until r->stop; then send what must go out before the workers
 * stop (final router advertisements). */
int rt_control_run(struct router *r);

/*
 * The loop (loop.c). It sleeps in epoll_wait until something is ready
 * or due: a file descriptor registered here gets its callback when
 * ready, and each round hook runs once a round, after the events and the
 * timers, and returns when it wants the next round at the latest
 * (rt_now_ms() time; UINT64_MAX: whenever).
 */
/* EPOLLIN and so on; add, change, remove. @return 0 or -errno. */
int rt_loop_watch(struct rt_watch *w, uint32_t events);
int rt_loop_rewatch(struct rt_watch *w, uint32_t events);
void rt_loop_unwatch(struct rt_watch *w);
/* At most RT_LOOP_HOOKS. @return 0 or -ENOSPC. */
#define RT_LOOP_HOOKS 8
int rt_loop_on_round(uint64_t (*fn)(struct router *r, uint64_t now_ms));
/* Wake the loop now, from any thread: async-signal-safe (a signal
 * handler's, after it sets r->stop, as the signal may reach another
 * thread; EAL's interrupt thread's, after a link change). */
void rt_loop_wake(void);

/*
 * Addresses (addr.c).
 */
/* A new gateway nexthop to (port, family, addr): its header now, if
 * the neighbour is resolved already (neigh_glue.c). */
void rt_neigh_publish(struct router *r, uint16_t port, uint8_t family, const uint8_t *addr);
/* Is addr (a host prefix) on a connected network of the port (or
 * link-local)? */
bool rt_addr_on_link(const struct router *r, uint16_t port, const struct fib_prefix *addr);
/* Prefixes equal: family, length and address. */
bool rt_prefix_same(const struct fib_prefix *a, const struct fib_prefix *b);
/* The network of an address: host bits cleared. */
struct fib_prefix rt_prefix_network(const struct fib_prefix *p);
/* The host prefix (/32, /128) of an address in network order (4 or 16
 * bytes by family: FIB_AF_INET, FIB_AF_INET6). */
struct fib_prefix rt_prefix_of_bytes(uint8_t family, const uint8_t *addr);
/* An IPv6 link-local prefix (fe80::/10). */
static inline bool
rt_prefix_link_local(const struct fib_prefix *p)
{
	return p->family == FIB_AF_INET6 && rt_ip6_link_local(p->addr.v6);
}
/* @return 0; -EEXIST; -EADDRNOTAVAIL (not a unicast address a port can
 * have, or for del not assigned); -ENOSPC; or the FIB's error. */
int rt_addr_add(struct router *r, uint16_t port, const struct fib_prefix *p);
int rt_addr_del(struct router *r, uint16_t port, const struct fib_prefix *p);
/* The routes the addresses install (local, connected, broadcast; main
 * table), each (prefix, metric) once, in out[0..max): @return how many
 * there are. Their type is set, their nexthop not. */
unsigned int rt_addr_routes(const struct router *r, struct fib_route *out, unsigned int max);
/* The IPv6 link-local address every port gets from its MAC (modified
 * EUI-64, RFC 4291 2.5.1), as Linux gives every interface. */
struct fib_prefix rt_port_link_local(const struct router *r, uint16_t port);
/* Is a (family, address) ours on any port? addr in network order. */
bool rt_addr_is_local(const struct router *r, uint8_t family, const void *addr);
/* Our address of `family` on port for peer (network order; may be
 * NULL): of the peer's scope (IPv6 link-local only for link-local
 * peers), the longest match; another port's of the right scope before a
 * link-local one for a peer beyond the link; any if the port has none. */
const struct rt_addr *rt_addr_pick(const struct router *r, uint16_t port, uint8_t family,
				   const void *peer);

/*
 * Links (link.c).
 */
/* A port administratively up or down: its routes leave the lookups (or
 * come back), as Linux withdraws a device's routes when it goes down;
 * they stay configured, shown as linkdown. Losing carrier does the same,
 * and flushes the port's learnt neighbours, as Linux does. */
void rt_link_set_up(struct router *r, uint16_t port, bool up);
/* Whether a port is operationally up: administratively up, with carrier. */
static inline bool
rt_link_oper_up(const struct router *r, uint16_t port)
{
	return rt_dp_port_up(&r->dp, port) && rt_dp_port_carrier(&r->dp, port);
}
/* Read every port's link from its driver now and start following it:
 * interrupts where the driver has them, polling every link_poll_ms.
 * After the ports are started. @return 0 or -errno. */
int rt_link_start(struct router *r);
/* A port's MTU (576..9600), enforced by the router through its
 * nexthops. @return 0 or -errno. */
int rt_link_set_mtu(struct router *r, uint16_t port, uint16_t mtu);
/* After ports went down or up, or groups lost members: withdraw from
 * the lookups the routes whose nexthops now lead nowhere, put back those
 * that lead somewhere again; a failure is logged, naming `what`. */
void rt_fib_sync_down(struct router *r, const char *what);

/*
 * Router advertisements (ra.c).
 */
void rt_ra_set(struct router *r, uint16_t port, bool on);
/* The port's addresses or MTU changed: advertise them soon. */
void rt_ra_changed(struct router *r, uint16_t port);
/* The M and O flags a port advertises, and its lifetime as a default
 * router: 0 (not one) or RT_RA_LIFETIME_MIN..RT_RA_LIFETIME_MAX seconds,
 * -1 for the default. */
#define RT_RA_LIFETIME_MIN 600u /* MaxRtrAdvInterval (RFC 4861 6.2.1) */
#define RT_RA_LIFETIME_MAX 9000u
void rt_ra_set_options(struct router *r, uint16_t port, bool managed, bool other,
		       int32_t lifetime_s);
/* The lifetime a port's advertisements give the router, in seconds. */
uint16_t rt_ra_lifetime(const struct router *r, uint16_t port);
/* The DNS servers a port advertises (n <= 3, addresses in network
 * order); 0 for none. */
void rt_ra_set_rdnss(struct router *r, uint16_t port, const uint8_t (*addr)[16], unsigned int n);

/*
 * Counters (counters.c): the values of RT_CTL_COUNTERS, in its order.
 * Safe from another thread (telemetry's): each an aligned 64-bit word.
 */
void rt_ctl_counters(const struct router *r, uint64_t out[RT_CTR_COUNT]);

#endif /* ROUTER_CONTROL_H */
