/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh: the neighbour table (ARP for IPv4, ND for IPv6) and its NUD state
 * machine, plus packet codecs for ARP and ND.
 *
 * Threads: the control core only. The datapath never reads, locks or
 * writes neighbour state; it sees only the nexthop headers that the
 * `changed` callback makes the control core republish. Timers run from a
 * clock the caller passes in (milliseconds), so tests use a fake one.
 *
 * The table knows nothing about routes. Packets waiting for resolution
 * are opaque pointers: the table queues them, hands them back when the
 * neighbour resolves (`send`) or fails (`failed`), and gives up those it
 * drops (`drop`).
 *
 * Errors: functions returning int return 0 or a negative errno value.
 */
#ifndef ROUTER_NEIGH_H
#define ROUTER_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct neigh_table;

#define NEIGH_AF_INET 2
#define NEIGH_AF_INET6 10
#define NEIGH_QUEUE_MAX 16
/* Ports 0..NEIGH_PORTS_MAX-1 each have their own resolution budget. */
#define NEIGH_PORTS_MAX 64

enum neigh_state {
	NEIGH_NONE,
	NEIGH_INCOMPLETE,
	NEIGH_REACHABLE,
	NEIGH_STALE,
	NEIGH_DELAY,
	NEIGH_PROBE,
	NEIGH_FAILED,
	NEIGH_PERMANENT,
};

/* A neighbour's identity. Build it only with neigh_key(): the same
 * function on insert and on lookup, so the two can never disagree. */
struct neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t pad;
	uint8_t addr[16]; /* IPv4: 4 bytes then zeros; network order */
};

/** The key of (port, family, address); addr holds 4 or 16 bytes. */
struct neigh_key neigh_key(uint16_t port, uint8_t family, const void *addr);

/*
 * Defaults are Linux's (SEMANTICS.md) where Linux has the setting; 0 in a
 * field picks the default.
 *
 * The resolution budget is Linux's answer plus fairness (docs/neigh.md):
 * Linux bounds the table, not who fills it. Here each port may have
 * port_incomplete entries resolving, of which one source (the sender of
 * the packets that asked; the router itself is one) may hold
 * source_incomplete. A source asking for more replaces its own oldest
 * resolution, so a host spraying unresolvable addresses only ever spoils
 * its own. Multicast requests are rate-limited per port and per source.
 */
struct neigh_conf {
	uint32_t max_entries;       /* 1024: the hard limit (gc_thresh3) */
	uint32_t port_incomplete;   /* 256: entries resolving on a port */
	uint32_t source_incomplete; /* 32: of those, asked for by one source */
	uint32_t port_requests;     /* 1000: multicast requests a second on a port */
	uint32_t source_requests;   /* 100: of those, for one source */
	uint32_t base_reachable_ms; /* 30000, randomised to 0.5-1.5x */
	uint32_t retrans_ms;        /* 1000 */
	uint32_t delay_probe_ms;    /* 5000 */
	uint32_t ucast_probes;      /* 3 */
	uint32_t mcast_probes;      /* 3 */
	uint32_t gc_stale_ms;       /* 60000: unused STALE and FAILED entries go */
	uint32_t queue_len;         /* 3, at most NEIGH_QUEUE_MAX */
	uint64_t seed;              /* for the reachable-time randomisation */
};

struct neigh_ops {
	/* Send a request (ARP request or neighbour solicitation): multicast
	 * (broadcast) when mac is NULL, else unicast to mac. */
	void (*probe)(void *ctx, const struct neigh_key *k, const uint8_t *mac);
	/* The neighbour's MAC is now mac, or (NULL) it must not be used. */
	void (*changed)(void *ctx, const struct neigh_key *k, const uint8_t *mac);
	/* The neighbour resolved: transmit these queued packets to mac. */
	void (*send)(void *ctx, const struct neigh_key *k, const uint8_t *mac, void **pkts,
		     unsigned int n);
	/* Resolution failed: these queued packets are the caller's again
	 * (for ICMP host unreachable). */
	void (*failed)(void *ctx, const struct neigh_key *k, void **pkts, unsigned int n);
	/* A queued packet was dropped (queue overflow, entry removed). */
	void (*drop)(void *ctx, void *pkt);
};

struct neigh_stats {
	uint32_t entries;
	uint32_t incomplete;
	uint32_t sources;     /* sources with resolutions pending */
	uint64_t queue_drops; /* oldest queued packet dropped on overflow */
	uint64_t failed;      /* resolutions that ended FAILED */
	uint64_t table_full;  /* new neighbours refused: no entry to be had */
	uint64_t evicted;     /* STALE or FAILED entries evicted for room */
	uint64_t collected;   /* entries removed by garbage collection */
	uint64_t replaced;    /* resolutions replaced by a newer one (per port below) */
	uint64_t rate_limited;
};

/* A port's share of the above. */
struct neigh_port_stats {
	uint32_t incomplete;   /* resolving now */
	uint64_t requests;     /* multicast requests sent (ARP request, NS) */
	uint64_t probes;       /* unicast probes sent to known neighbours */
	uint64_t rate_limited; /* requests not sent: the port's or source's rate */
	uint64_t replaced;     /* resolutions replaced by a newer one */
	uint64_t refused;      /* new resolutions refused (no entry, no source record) */
};

struct neigh_info {
	struct neigh_key key;
	uint8_t state;     /* enum neigh_state */
	uint8_t mac[6];    /* valid unless INCOMPLETE or FAILED */
	uint8_t probes;    /* sent in the current INCOMPLETE or PROBE phase */
	uint8_t queued;    /* packets waiting */
	uint64_t deadline; /* next timer, or 0 */
};

/** @return a table, or NULL with errno (EINVAL, ENOMEM). */
struct neigh_table *neigh_create(const struct neigh_conf *conf, const struct neigh_ops *ops,
				 void *ctx);
/** Free a table; queued packets go to ops->drop. NULL is accepted. */
void neigh_free(struct neigh_table *t);

/**
 * A packet from src needs neighbour k. src is the packet's source
 * address, of k's family (4 or 16 bytes), or NULL for the router's own
 * packets: the budget it is charged to. If k is usable (REACHABLE, STALE,
 * DELAY, PROBE, PERMANENT), *mac is set and 0 returned; a STALE entry
 * starts its delay before probing. Otherwise the packet is queued (the
 * oldest queued packet is dropped if the queue is full) and resolution
 * starts or goes on: -EAGAIN. A new resolution beyond src's or the port's
 * budget replaces the oldest of src's (or the port's). When no entry can
 * be had, the packet is not taken: -ENOSPC, and the caller drops it.
 * Constant time whatever the table's size.
 */
int neigh_resolve(struct neigh_table *t, const struct neigh_key *k, const void *src, void *pkt,
		  uint64_t now, uint8_t mac[6]);

/** Start loading what neigh_resolve(k) will read first (k's hash
 * bucket), so that a caller with a burst of packets overlaps their cache
 * misses: the table of a large segment does not fit in the caches. */
void neigh_prefetch(const struct neigh_table *t, const struct neigh_key *k);

/** Traffic to k was forwarded recently (the caller learns it from the
 * datapath's counters): a REACHABLE entry may then go to DELAY instead of
 * STALE, a STALE one starts its delay. Creates nothing. */
void neigh_touch(struct neigh_table *t, const struct neigh_key *k, uint64_t now);

/* Flags of a confirmation, as in an ND advertisement. ARP replies are
 * solicited with override. */
#define NEIGH_F_SOLICITED 0x1
#define NEIGH_F_OVERRIDE 0x2
#define NEIGH_F_ROUTER 0x4

/**
 * A reply or advertisement from k with link-layer address mac (RFC 4861
 * 7.2.5). Updates existing entries only (an unsolicited one for an
 * unknown neighbour is ignored): -ENOENT then.
 */
int neigh_confirm(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6],
		  unsigned int flags, uint64_t now);

/**
 * A request or solicitation from k, aimed at us, carrying k's MAC: k is
 * created or updated as STALE when the MAC is new (RFC 4861 7.2.3, RFC
 * 826). @return 0, or -ENOSPC when no entry can be had.
 */
int neigh_learn(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6],
		uint64_t now);

/** Add or replace a PERMANENT entry. @return 0, -ENOSPC. */
int neigh_add_permanent(struct neigh_table *t, const struct neigh_key *k, const uint8_t mac[6]);
/** Remove an entry, PERMANENT ones included. @return 0 or -ENOENT. */
int neigh_del(struct neigh_table *t, const struct neigh_key *k);
/** Remove every entry of a port except PERMANENT ones. @return how many. */
unsigned int neigh_flush(struct neigh_table *t, uint16_t port);

/** Run the timers due at `now`, in the order they were due. Costs the
 * timers due, not the table's size. @return the time of the next one
 * (0: none). */
uint64_t neigh_timer(struct neigh_table *t, uint64_t now);

/** @return 0 with *out filled, or -ENOENT. */
int neigh_get(const struct neigh_table *t, const struct neigh_key *k, struct neigh_info *out);
/** Visit every entry; a non-zero return stops. */
int neigh_walk(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *),
	       void *arg);
void neigh_get_stats(const struct neigh_table *t, struct neigh_stats *st);
/** A port's counters. @return 0, or -EINVAL for a port beyond NEIGH_PORTS_MAX. */
int neigh_get_port_stats(const struct neigh_table *t, uint16_t port, struct neigh_port_stats *st);
/** Bytes the table holds, fixed at creation: memory stays bounded. */
size_t neigh_memory(const struct neigh_table *t);
const char *neigh_state_name(uint8_t state);

/*
 * Codecs: build and parse ARP and ND frames (Ethernet header included).
 * They read and write only the buffer given and never past len.
 */

#define NEIGH_ARP_REQUEST 1
#define NEIGH_ARP_REPLY 2

struct neigh_arp {
	uint16_t op;
	uint8_t sha[6];
	uint8_t spa[4];
	uint8_t tha[6];
	uint8_t tpa[4];
};

/** Build an ARP frame (request: broadcast, tha zero). @return its length
 * (42) or -ENOSPC if len is too small. */
int neigh_arp_build(uint8_t *buf, size_t len, const struct neigh_arp *m, const uint8_t dst[6]);
/** Parse an ARP frame for IPv4 over Ethernet. @return 0 or -EINVAL. */
int neigh_arp_parse(const uint8_t *buf, size_t len, struct neigh_arp *m);
/** True for gratuitous ARP (sender and target address equal). */
bool neigh_arp_gratuitous(const struct neigh_arp *m);

#define NEIGH_ND_NS 135
#define NEIGH_ND_NA 136

struct neigh_nd {
	uint8_t type;    /* NEIGH_ND_NS or NEIGH_ND_NA */
	uint8_t flags;   /* NA: NEIGH_F_* */
	uint8_t src[16]; /* IPv6 source */
	uint8_t dst[16]; /* IPv6 destination */
	uint8_t target[16];
	bool has_lladdr; /* source (NS) or target (NA) link-layer option */
	uint8_t lladdr[6];
	uint8_t eth_src[6];
	uint8_t eth_dst[6];
};

/** The solicited-node multicast address of target (ff02::1:ffXX:XXXX)
 * and its MAC (33:33:ff:XX:XX:XX). */
void neigh_solicited_node(const uint8_t target[16], uint8_t addr[16], uint8_t mac[6]);

/**
 * Build an NS or NA frame from m (eth_src, src, target, lladdr; NA also
 * dst, eth_dst and flags; an NS with dst all-zero goes to the target's
 * solicited-node address). @return its length or -ENOSPC.
 */
int neigh_nd_build(uint8_t *buf, size_t len, const struct neigh_nd *m);
/** Parse an NS or NA frame, checking RFC 4861 7.1.1/7.1.2 (hop limit 255,
 * code 0, lengths, options, checksum). @return 0 or -EINVAL. */
int neigh_nd_parse(const uint8_t *buf, size_t len, struct neigh_nd *m);

/*
 * Router discovery (RFC 4861 section 4.1, 4.2, 6): what a router reads
 * (solicitations) and sends (advertisements).
 */
#define NEIGH_ND_RS 133
#define NEIGH_ND_RA 134
#define NEIGH_RA_PREFIXES_MAX 16
#define NEIGH_RA_RDNSS_MAX 3

struct neigh_rs {
	uint8_t src[16]; /* the unspecified address: a host without one yet */
	uint8_t eth_src[6];
	bool has_lladdr; /* a source link-layer option (never from ::) */
	uint8_t lladdr[6];
};

/** Parse a router solicitation, checking RFC 4861 6.1.1 (hop limit 255,
 * code 0, length, options, checksum; no source link-layer option from
 * the unspecified address). @return 0 or -EINVAL. */
int neigh_rs_parse(const uint8_t *buf, size_t len, struct neigh_rs *m);

struct neigh_ra_prefix {
	uint8_t addr[16];
	uint8_t len;
	bool autonomous; /* the A flag: hosts may form addresses in it (a /64) */
	uint32_t valid_s, preferred_s;
};

struct neigh_ra {
	uint8_t eth_src[6], eth_dst[6];
	uint8_t src[16]; /* the router's link-local address on the link */
	uint8_t dst[16];
	uint8_t cur_hop_limit;
	/* The M and O flags (RFC 4861 4.2): addresses, or only other
	 * configuration (DNS and the like), from DHCPv6. */
	bool managed, other;
	uint16_t lifetime_s; /* as a default router; 0: not one (a last RA) */
	uint32_t mtu;        /* 0: no MTU option */
	unsigned int nb_prefixes;
	struct neigh_ra_prefix prefix[NEIGH_RA_PREFIXES_MAX];
	/* DNS servers (RFC 8106 recursive DNS server option), if any. */
	unsigned int nb_rdnss;
	uint8_t rdnss[NEIGH_RA_RDNSS_MAX][16];
	uint32_t rdnss_lifetime_s;
};

/** Build a router advertisement frame: the source link-layer option (the
 * Ethernet source), the MTU option, a prefix information option (on-link)
 * for each prefix, and a recursive DNS server option for the DNS servers.
 * @return its length, -ENOSPC or -EINVAL. */
int neigh_ra_build(uint8_t *buf, size_t len, const struct neigh_ra *m);

#endif /* ROUTER_NEIGH_H */
