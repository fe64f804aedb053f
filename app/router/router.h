/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's shared state. One struct router, set up by main.c, read by
 * every thread; the control core (the EAL main lcore) is its only writer
 * after start-up, except for each worker's own counters.
 */
#ifndef ROUTER_ROUTER_H
#define ROUTER_ROUTER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fib.h"
#include "log.h"
#include "neigh.h"
#include "nexthop.h"
#include "reasm.h"

#define RT_MAX_PORTS 16
#define RT_MAX_WORKERS 8
/* The control core's and neighbour table's counters (rt_ctl_counters). */
#define RT_CTL_COUNTERS 19
/* Packets a worker takes from a queue at once, and the largest burst the
 * stages handle. Random destinations miss the caches at the first FIB
 * level, and everything after the lookup waits for it: the more lookups
 * a burst issues together, the more misses overlap (a core keeps 16 or
 * more in flight). 64 against 32, same run (bench/pipeline_bench, full
 * tables): IPv4 37-39 -> 29-34 cycles a packet, IPv6 61-66 -> 42-43
 * (docs/performance.md). 128 gained little more and lost on the 4,096-
 * destination IPv6 set. -DRT_BURST=N overrides it, for such comparisons. */
#ifndef RT_BURST
#define RT_BURST 64
#endif
#define RT_MAX_ADDRS 256

/* Why a worker dropped a packet. Each has a per-worker counter. */
#define RT_DROP_REASONS(X)                                                                         \
	X(NOT_FOR_US, "not_for_us")                                                                \
	X(ETHERTYPE, "unsupported_ethertype")                                                      \
	X(TRUNCATED, "truncated")                                                                  \
	X(VERSION, "bad_ip_version")                                                               \
	X(IHL, "bad_ihl")                                                                          \
	X(CHECKSUM, "bad_checksum")                                                                \
	X(LENGTH, "bad_length")                                                                    \
	X(MARTIAN_SRC, "martian_source")                                                           \
	X(MARTIAN_DST, "martian_destination")                                                      \
	X(MULTICAST, "multicast_not_routed")                                                       \
	X(BLACKHOLE, "blackhole")                                                                  \
	X(EXC_FULL, "exception_ring_full")                                                         \
	X(TX_FULL, "tx_full")                                                                      \
	X(PORT_DOWN, "port_down")                                                                  \
	X(L2_GROUP, "link_layer_group")

/* Why a worker handed a packet to the control core. */
#define RT_PUNT_REASONS(X)                                                                         \
	X(ARP, "arp")                                                                              \
	X(LOCAL, "local")                                                                          \
	X(RESOLVE, "resolve_gateway")                                                              \
	X(CONNECTED, "resolve_connected")                                                          \
	X(NO_ROUTE, "no_route")                                                                    \
	X(UNREACHABLE, "unreachable")                                                              \
	X(PROHIBIT, "prohibit")                                                                    \
	X(TTL, "ttl_exceeded")                                                                     \
	X(TOO_BIG, "too_big")                                                                      \
	X(FRAGMENT, "fragment")                                                                    \
	X(BEYOND_SCOPE, "beyond_scope")

#define RT_ENUM(name, str) RT_DROP_##name,
enum rt_drop { RT_DROP_REASONS(RT_ENUM) RT_DROP_COUNT };
#undef RT_ENUM
#define RT_ENUM(name, str) RT_PUNT_##name,
enum rt_punt { RT_PUNT_REASONS(RT_ENUM) RT_PUNT_COUNT };
#undef RT_ENUM

extern const char *const rt_drop_names[RT_DROP_COUNT];
extern const char *const rt_punt_names[RT_PUNT_COUNT];

/* A worker's counters: written by that worker only, on its own lines,
 * read (racily, which is fine for counters) by the control core. */
struct rt_wstats {
	uint64_t rx, fwd, punt_total, drop_total;
	/* Rounds of the worker loop (counted as each begins), those that
	 * found packets, and the TSC
	 * cycles those took (each from the end of the round before).
	 * rx / busy_rounds is the mean burst (VPP's "vectors per call"):
	 * near the RX burst size the worker is saturated, well below it the
	 * worker waits for work. busy_cycles / rx is what a packet costs,
	 * drivers included, whatever the offered load (what testpmd's
	 * --record-core-cycles reports, bar this loop's own few cycles). */
	uint64_t rounds, busy_rounds, busy_cycles;
	uint64_t port_rx[RT_MAX_PORTS], port_tx[RT_MAX_PORTS];
	uint64_t port_drop[RT_MAX_PORTS]; /* of the packets received on each port */
	uint64_t punt[RT_PUNT_COUNT];
	uint64_t drop[RT_DROP_COUNT];
} __rte_cache_aligned;

struct rt_worker {
	unsigned int id; /* 0..nb_workers-1: QSBR thread id, queue index */
	unsigned int lcore;
	struct rte_ring *exc;   /* to the control core */
	const struct nh_dp *nh; /* this worker's nexthop lines */
	struct rte_eth_dev_tx_buffer *txb[RT_MAX_PORTS];
	uint64_t tx_dropped[RT_MAX_PORTS]; /* written by the TX buffer callback */
	/* Per nexthop index, the low 32 bits of st.rounds (the worker loop's
	 * round, from 1) when this worker last sent a packet through it: the control core reads them to learn which
	 * neighbours are in use (NUD needs it, and workers never touch
	 * neighbour state). A plain store a packet: a counter's
	 * load-add-store would chain through memory when packets share a
	 * nexthop, about five cycles a packet. */
	uint32_t *nh_used;
	uint16_t rx_port; /* the port of the burst in hand: dp_punt's m->port */
	struct rt_wstats st;
} __rte_cache_aligned;

struct rt_port {
	uint16_t id;
	uint16_t mtu;
	struct rte_ether_addr mac;
	/* The NIC checks received IPv4 header checksums (RX offload, as the
	 * 82599 does): a packet it marks good is not summed again. */
	bool rx_ip_csum;
	char name[16]; /* port<N> */
	char driver[32];
};

/* The nexthop id of the special nexthop a rule's unreachable action
 * answers with: not one an operator sees, adds or deletes. */
#define RT_NH_ID_RULE_UNREACHABLE 0xfffffffeu

struct rt_addr {
	uint16_t port;
	struct fib_prefix p; /* the address, with its prefix length */
};

/* What main.c reads from options and the config file. */
struct rt_settings {
	char socket_path[108];
	char startup[4096];
	bool idle_backoff;          /* on by default */
	uint32_t idle_sleep_us;     /* 100 */
	uint32_t icmp_rate;         /* ICMP errors per second, 1000 */
	uint32_t icmp_burst;        /* 50 */
	uint32_t icmp_ratelimit_ms; /* per destination, 1000; 0: none */
	uint32_t nb_mbufs;          /* 8191 */
	uint16_t rx_desc, tx_desc;
	uint32_t neigh_max;          /* 1024 */
	uint32_t neigh_reachable_ms; /* 0: the library default (30 s) */
	uint32_t neigh_gc_stale_ms;  /* 0: the library default (60 s) */
	uint8_t hash_policy;         /* enum nh_hash_policy */
};

struct router {
	struct rt_settings conf;
	struct fib *fib;
	const struct fib_table *main; /* FIB_TABLE_MAIN, for the workers */
	struct nh_table *nh;
	struct neigh_table *neigh;
	struct rte_rcu_qsbr *qsbr;
	struct rte_mempool *pool;
	uint16_t nb_ports;
	/* Bit N set while portN is administratively down (rt_port_up); ports
	 * start up. The workers send only with valid headers, which
	 * lib/nexthop withdraws while a port is down (nh_port_down); they
	 * read this word only to tell why a header is invalid. */
	uint32_t ports_down;
	struct rt_port port[RT_MAX_PORTS];
	unsigned int nb_workers;
	struct rt_worker worker[RT_MAX_WORKERS];
	/* Packets the control core sends: worker 0 transmits them on its
	 * own TX queues, so no device needs a queue for the control core
	 * (net_af_packet spreads received packets over all its queue pairs,
	 * and every RX queue must be polled). Port in m->port. */
	struct rte_ring *ctl_tx;
	uint64_t ctl_tx_dropped;
	/* Special nexthops, fixed at start (nh_rule_unreachable under the
	 * id RT_NH_ID_RULE_UNREACHABLE, which the CLI keeps to itself). */
	uint32_t nh_local, nh_blackhole, nh_unreachable, nh_prohibit, nh_rule_unreachable;
	unsigned int nb_addrs;
	struct rt_addr addr[RT_MAX_ADDRS];
	uint32_t *nh_used_seen; /* the control core's last sum, per nexthop */
	/* Control core counters. */
	uint64_t icmp_sent, icmp_ratelimited, exc_unhandled, neigh_refused;
	uint64_t tcp_resets;           /* local.c: closed TCP ports */
	uint64_t ra_sent, rs_received; /* ra.c */
	/* Router advertisements, per port (ra.c; control core only). */
	struct rt_ra {
		bool on;
		uint8_t initial_left; /* of the first, closer spaced ones */
		uint64_t next_ms;     /* the next unsolicited one */
		uint64_t last_ms;     /* the last one sent: 3 s apart at least */
		uint64_t answer_ms;   /* one due in answer to solicitations, or 0 */
		/* The operator's options, as radvd's AdvManagedFlag,
		 * AdvOtherConfigFlag and AdvDefaultLifetime (with
		 * lifetime_set clear, the default: rt_ra_lifetime). */
		bool managed, other, lifetime_set;
		uint16_t lifetime_s;
		/* DNS servers to advertise (RFC 8106), the operator's. */
		uint8_t nb_rdnss;
		uint8_t rdnss[3][16];
		/* Prefixes the port lost: advertised with lifetimes 0 in the
		 * next few, so hosts stop using their addresses in them. */
		struct rt_ra_gone {
			struct fib_prefix net;
			uint8_t left; /* advertisements still to carry it; 0: free */
		} gone[8];
	} ra[RT_MAX_PORTS];
	uint64_t out_no_route; /* own packets with no usable route */
	uint64_t fragments;    /* fragments sent for packets too big (frag.c) */
	/* Fragments addressed to the router (reasm.h), and the
	 * identification of its own IPv4 packets and IPv6 fragments. */
	struct rt_reasm *reasm;
	uint32_t ip_id;
	/* stats reset: what to subtract (workers own their counters). */
	struct rt_wstats base;
	uint64_t base_ctl[RT_CTL_COUNTERS]; /* in rt_ctl_counters' order */
	/* The devices' own counters at the last reset (rte_eth_stats). */
	struct rt_dev_counters {
		uint64_t missed, nombuf, rx_errors, tx_errors;
	} base_dev[RT_MAX_PORTS];
	volatile int stop; /* a signal: the control core winds down */
	volatile int quit; /* then the workers stop (main sets it) */
};

/* An IPv6 link-local address (fe80::/10, RFC 4291 2.5.6), in network
 * order: scoped to its link, never routed. */
static inline bool
rt_ip6_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* The same for a prefix of either family. */
static inline bool
rt_prefix_link_local(const struct fib_prefix *p)
{
	return p->family == FIB_AF_INET6 && rt_ip6_link_local(p->addr.v6);
}

static inline bool
rt_port_up(const struct router *r, uint16_t port)
{
	return (r->ports_down >> port & 1) == 0;
}

/* Origin tags of routes, as Linux's "proto" values where they exist. */
#define RT_ORIGIN_KERNEL 2  /* an address's local and connected routes */
#define RT_ORIGIN_BOOT 3    /* added by an operator */
#define RT_ORIGIN_NEIGH 253 /* host routes for resolved neighbours (hidden) */

/* Per-packet metadata a worker leaves for the control core. */
struct rt_meta {
	uint32_t nh;    /* the nexthop the lookup chose */
	uint8_t reason; /* enum rt_punt */
	/* 1: a packet the router built (rt_output), waiting for its
	 * neighbour: not forwarded, so no TTL to decrement and no ICMP error
	 * about it if the neighbour fails. */
	uint8_t own;
	uint8_t pad[2];
};
extern int rt_meta_offset;
static inline struct rt_meta *
rt_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, rt_meta_offset, struct rt_meta *);
}

/* The control core's clock for timers (the neighbour table's too), in
 * milliseconds. */
static inline uint64_t
rt_now_ms(void)
{
	return rte_get_tsc_cycles() / (rte_get_tsc_hz() / 1000);
}

/* The nexthop (or group) index the workers would choose for a packet
 * from src to dst with flow's selectors (its iif FIB_IIF_LOCAL: the
 * router's own): the main table, then the rules when there are any.
 * IPv4 in host order, IPv6 in network order. Control core. */
static inline uint32_t
rt_route4(const struct router *r, uint32_t src, uint32_t dst, const struct fib_flow *flow)
{
	uint32_t nh = fib_lookup4(r->main, dst);
	return fib_rules_active(r->fib, FIB_AF_INET) ? fib_rule_route4(r->fib, src, dst, flow, nh)
						     : nh;
}

static inline uint32_t
rt_route6(const struct router *r, const uint8_t src[16], const uint8_t dst[16],
	  const struct fib_flow *flow)
{
	uint32_t nh = fib_lookup6(r->main, dst);
	return fib_rules_active(r->fib, FIB_AF_INET6) ? fib_rule_route6(r->fib, src, dst, flow, nh)
						      : nh;
}

/* tables.c: register the rt_meta mbuf field (once, before any packet). */
int rt_meta_register(void);
/* tables.c: r->qsbr, r->nh with the special nexthops, r->fib and
 * r->main, for r->nb_workers workers and r->conf.hash_policy. */
int rt_tables_create(struct router *r);

/* worker.c */
int rt_worker_main(void *arg);

/* control.c */
int rt_control_run(struct router *r);
/* Tell the neighbour table which gateways traffic used since last time. */
void rt_neigh_touch_used(struct router *r, uint64_t now_ms);
/* Transmit one packet on a port from the control core (through worker 0). */
void rt_ctl_tx(struct router *r, uint16_t port, struct rte_mbuf *m);

/* exception.c: handle a packet a worker punted. Takes ownership. */
void rt_exception(struct router *r, struct rte_mbuf *m);
/* Expire pending reassemblies: ICMP time exceeded to their senders. */
void rt_reasm_timer(struct router *r, uint64_t now_ms);
/* Neighbour table callbacks. */
extern const struct neigh_ops rt_neigh_ops;

/* output.c: send m, an IP packet the router built (Ethernet header
 * space first, its ethertype set), by the route to its destination; in
 * is the port of the packet it answers (for IPv6 link-local
 * destinations). Takes ownership. */
void rt_output(struct router *r, struct rte_mbuf *m, uint16_t in);
/* Fill in the Ethernet addresses and transmit on port. */
void rt_l2_send(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6]);

/* frag.c: cut m (a frame holding an IPv4 packet, DF clear) into
 * fragments of at most mtu bytes of IP, new frames in out[0..max) with
 * m's Ethernet header and port, headers summed. m is left to the caller.
 * @return the number of fragments; -EINVAL for a packet that may not or
 * cannot be cut (DF set, multi-segment, lengths wrong), -ENOBUFS when
 * mbufs or max run out (none is left allocated). */
int rt_fragment4(struct router *r, const struct rte_mbuf *m, unsigned int mtu,
		 struct rte_mbuf **out, unsigned int max);
/* The same for an IPv6 packet of the router's own (no extension header)
 * at most mtu bytes of IP a fragment, each with a Fragment header of
 * identification id. -EINVAL for lengths wrong or an MTU below 1280. */
int rt_fragment6(struct router *r, const struct rte_mbuf *m, unsigned int mtu, uint32_t id,
		 struct rte_mbuf **out, unsigned int max);

/* The one's complement sum of the len bytes at off in m, whatever its
 * segments (a reassembled datagram is a chain), plus phdr (a pseudo-
 * header's sum, or 0), folded: 0xffff when the message's checksum
 * verifies; its complement is the checksum to write. 0 when m holds fewer
 * bytes. For ICMP (icmp.c) and UDP and TCP (local.c) alike. */
static inline uint16_t
rt_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t phdr)
{
	uint16_t raw;
	if (rte_raw_cksum_mbuf(m, off, len, &raw) != 0)
		return 0;
	uint32_t sum = (uint32_t)raw + phdr;
	return (uint16_t)((sum & 0xffff) + (sum >> 16));
}

/* icmp.c */
void rt_icmp_init(struct router *r);
/* Send an ICMP or ICMPv6 error about packet m (IP header at its data),
 * received on port `in`; frees m. */
void rt_icmp_error(struct router *r, struct rte_mbuf *m, uint16_t in, uint8_t type, uint8_t code,
		   uint32_t info);
/* Answer an echo request addressed to us; frees m. */
void rt_icmp_echo(struct router *r, struct rte_mbuf *m, uint16_t in);

/* local.c: answer m, addressed to one of our unicast addresses and to
 * nothing the router serves, as Linux's stack answers a closed port or
 * an unknown protocol (ICMP port or protocol unreachable, TCP reset);
 * m's IP header is at its data, after Ethernet, the datagram whole.
 * @return true when m was answered (and freed); false for the caller to
 * drop it (not for us, nothing to answer, or checksum wrong). */
bool rt_local_closed4(struct router *r, struct rte_mbuf *m, uint16_t in);
bool rt_local_closed6(struct router *r, struct rte_mbuf *m, uint16_t in);

/* ra.c: router advertisements on the ports that have them on. */
void rt_ra_set(struct router *r, uint16_t port, bool on);
void rt_ra_rs_in(struct router *r, struct rte_mbuf *m, uint16_t in);
void rt_ra_timer(struct router *r, uint64_t now_ms);
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
/* The port no longer has an address in the IPv6 prefix p. */
void rt_ra_prefix_gone(struct router *r, uint16_t port, const struct fib_prefix *p);
/* Stopping: a last advertisement (lifetime 0) on every port that sends
 * them, so hosts stop using the router now, not in 30 minutes. */
void rt_ra_shutdown(struct router *r);

/* addr.c */
/* Prefixes equal: family, length and address. */
bool rt_prefix_same(const struct fib_prefix *a, const struct fib_prefix *b);
/* The network of an address: host bits cleared. */
struct fib_prefix rt_prefix_network(const struct fib_prefix *p);
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

/* control.c: `monitor`, as ip monitor. Clients that asked for a kind
 * of change get a line for each; rt_monitoring says whether any did
 * (so nothing is formatted for no one). text: whole lines, as the show
 * commands print them; deleted prefixes each with "Deleted ". */
enum rt_event {
	RT_EV_LINK = 1,
	RT_EV_ADDR = 2,
	RT_EV_ROUTE = 4,
	RT_EV_RULE = 8,
	RT_EV_NEXTHOP = 16,
	RT_EV_NEIGH = 32,
};
bool rt_monitoring(unsigned int kind);
void rt_monitor(unsigned int kind, bool deleted, const char *text);

/* cli.c: run one command line; output goes to out (a growable string). */
struct rt_buf {
	char *s;
	size_t len, cap;
};
void rt_buf_printf(struct rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run one line; leading "-j", "-4", "-6" flags are understood. On error
 * returns -errno with a one-line message in err and nothing applied. */
int rt_cli_exec(struct router *r, const char *line, struct rt_buf *out, char *err, size_t errlen);

/* telemetry.c */
void rt_telemetry_init(struct router *r);
/* Sum of the workers' counters. */
void rt_stats_sum(const struct router *r, struct rt_wstats *sum);
/* The control core's counters and the neighbour table's, in the order
 * and under the group and name `stats` shows them (telemetry: the name,
 * prefixed "neigh_" for the neighbour table's). A gauge (entries now) is
 * not subject to `stats reset`. */
struct rt_ctl_counter {
	const char *group, *name;
	uint64_t value;
	bool gauge;
};
void rt_ctl_counters(const struct router *r, struct rt_ctl_counter out[RT_CTL_COUNTERS]);

#endif /* ROUTER_ROUTER_H */
