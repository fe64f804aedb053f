/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nexthop: what the FIB's answers point at.
 *
 * A nexthop is an index (1..FIB_NH_MAX, the value lookups return) to an
 * object that says what to do with a packet: forward it out of a port with
 * a prebuilt Ethernet header, deliver it locally, drop it, answer with an
 * ICMP error, resolve its neighbour first, or pick a member of an ECMP
 * group by flow hash.
 *
 * Threads: every function not marked "reader" is for one writer thread,
 * the control core. Readers (workers) use the inline functions at the end
 * of this header on their own copy of the per-nexthop data: each worker
 * has a private array of cache lines, so no two cores read a line another
 * core writes, except the control core's rare republications. Readers take
 * no lock, do no atomic read-modify-write and touch no reference count.
 *
 * Errors: functions returning int return 0 or a negative errno value.
 */
#ifndef ROUTER_NEXTHOP_H
#define ROUTER_NEXTHOP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef __AVX__
#error "nexthop header publication needs AVX's atomic 16-byte loads and stores"
#endif
#include <immintrin.h>

struct rte_rcu_qsbr;
struct nh_table;

#define NH_INDEX_MAX 0x7fffu /* = FIB_NH_MAX: lookups return 15-bit indices */
#define NH_WORKERS_MAX 64
#define NH_GROUP_MEMBERS_MAX 64
#define NH_GROUP_BUCKETS 256 /* per ECMP group: ample for 64 members' weights */

enum nh_type {
	NH_T_UNUSED,      /* not an index in use */
	NH_T_GATEWAY,     /* forward to a neighbour (a gateway, or a host on a link) */
	NH_T_CONNECTED,   /* on-link prefix without a neighbour yet: resolve first */
	NH_T_LOCAL,       /* for the router itself */
	NH_T_BLACKHOLE,   /* drop silently */
	NH_T_UNREACHABLE, /* drop with ICMP destination unreachable */
	NH_T_PROHIBIT,    /* drop with ICMP administratively prohibited */
	NH_T_GROUP,       /* ECMP: pick a member by flow hash */
};

enum nh_hash_policy {
	NH_HASH_L4, /* addresses, protocol and ports (default, as VPP) */
	NH_HASH_L3, /* addresses only (IPv6: and the flow label) */
};

struct nh_conf {
	uint32_t max_nexthops;     /* 1..NH_INDEX_MAX */
	uint16_t nb_workers;       /* 1..NH_WORKERS_MAX */
	struct rte_rcu_qsbr *qsbr; /* the workers' QSBR variable; NULL: none */
	uint16_t default_mtu;      /* for ports never configured; 0: 1500 */
	uint8_t hash_policy;       /* enum nh_hash_policy; default L4 */
};

/* A nexthop as the control plane describes it. */
struct nh_spec {
	uint32_t id;    /* user id as in `ip nexthop add id N`; 0: implicit */
	uint8_t type;   /* enum nh_type, not GROUP (see nh_group_add) */
	uint8_t family; /* of gw: 2 (IPv4) or 10 (IPv6); 0 without gateway */
	uint16_t port;  /* egress port, for GATEWAY and CONNECTED */
	uint8_t gw[16]; /* IPv4 in the first 4 bytes, network order */
};

struct nh_member {
	uint32_t index;  /* a nexthop index, not a group */
	uint16_t weight; /* 1..255, as Linux */
};

/* What nh_get reports. */
struct nh_info {
	struct nh_spec spec;
	uint32_t index;
	uint16_t mtu;
	bool resolved;       /* the header is valid */
	uint8_t mac[6];      /* the neighbour's, when resolved */
	uint32_t route_refs; /* routes pointing here */
	uint32_t group_refs; /* groups holding this as a member */
	uint16_t nb_members; /* groups: members in m[] */
	struct nh_member m[NH_GROUP_MEMBERS_MAX];
};

/** Create an empty table. @return it, or NULL with errno (EINVAL, ENOMEM). */
struct nh_table *nh_table_create(const struct nh_conf *conf);
/** Free it; readers must be gone. NULL is accepted. */
void nh_table_free(struct nh_table *t);

/**
 * Set a port's MAC address and MTU. Headers of nexthops on the port are
 * rebuilt. @return 0 or -EINVAL.
 */
int nh_port_set(struct nh_table *t, uint16_t port, const uint8_t mac[6], uint16_t mtu);

/**
 * Mark a port (set with nh_port_set) down or up again. While it is down
 * the headers of its nexthops are published invalid, so that a worker
 * tells "gateway, resolved, port up" from one flag; the datapath finds
 * out why a header is invalid on its slow path. The groups' buckets move
 * off its members while it is down (docs/nexthop.md). @return 0 or
 * -EINVAL.
 */
int nh_port_down(struct nh_table *t, uint16_t port, bool down);

/**
 * Whether an index in use leads nowhere while ports are down: a gateway
 * or on-link nexthop whose port is set down, or a group all of whose
 * members are. Routes through such a nexthop are withdrawn from lookups
 * while it is (lib/fib's fib_conf.nh_down). False for anything else.
 */
bool nh_down(const struct nh_table *t, uint32_t index);

/**
 * Add a nexthop. With spec->id 0 the nexthop is implicit: an existing
 * implicit one of the same type, port and gateway is shared (so routes via
 * one gateway share one object). Either way the caller gets a reference
 * (see nh_unref). A new GATEWAY nexthop starts unresolved until
 * nh_neigh_update gives its neighbour's MAC.
 * @return 0 with *index set; -EEXIST for a used id; -EINVAL; -ENOSPC when
 *   no index is left.
 */
int nh_add(struct nh_table *t, const struct nh_spec *spec, uint32_t *index);

/**
 * Add or replace ECMP group `id` (not 0). Members must be non-group
 * nexthops. Replacing keeps resilience: only the buckets of removed
 * members, and the few needed to follow weight changes, move.
 * @return 0 with *index set (the group's); -EINVAL; -ENOENT for an unknown
 *   member; -ENOSPC; -ENOMEM.
 */
int nh_group_set(struct nh_table *t, uint32_t id, const struct nh_member *m, unsigned int n,
		 uint32_t *index);

/**
 * Add an implicit ECMP group (a route's inline `nexthop via ... nexthop
 * via ...`): never shared, the caller gets its one reference, and it goes
 * with it, together with implicit members no longer used.
 * @return as nh_group_set.
 */
int nh_group_add(struct nh_table *t, const struct nh_member *m, unsigned int n, uint32_t *index);

/**
 * nh_group_add, for a route that goes from nexthop `like` (a group, or a
 * plain nexthop as a group of one) to the new group: the new group's
 * buckets start from like's, so the flows move as if like had been
 * changed in place (only those of members that left, and those the new
 * members' shares need). `like` unknown: as nh_group_add.
 * @return as nh_group_set.
 */
int nh_group_add_like(struct nh_table *t, const struct nh_member *m, unsigned int n, uint32_t like,
		      uint32_t *index);

/** Take and drop a route's reference to an index. An implicit nexthop is
 * freed with its last reference. */
void nh_ref(struct nh_table *t, uint32_t index);
void nh_unref(struct nh_table *t, uint32_t index);

/**
 * Delete nexthop `id`. Groups holding it shrink (resiliently). Refused
 * while a route refers to it, or while it is the last member of a group
 * (Linux would delete those routes, or that group and its routes: here
 * nothing goes silently, and what is left can always be written down).
 * @return 0; -ENOENT; -EBUSY.
 */
int nh_del(struct nh_table *t, uint32_t id);

/** The index of nexthop `id`. @return 0 or -ENOENT. */
int nh_lookup_id(const struct nh_table *t, uint32_t id, uint32_t *index);
/** Describe an index in use. @return 0 or -ENOENT. */
int nh_get(const struct nh_table *t, uint32_t index, struct nh_info *out);
/** The MTU the workers hold packets through an index to (its port's);
 * 0 for an index not in use or without a port. */
uint16_t nh_mtu(const struct nh_table *t, uint32_t index);
/** The member of group `index` that a flow with this hash takes, from
 * the bucket table the workers read now (nh_group_member's choice); 0
 * for an empty group or an index that is not a group. */
uint32_t nh_group_pick(const struct nh_table *t, uint32_t index, uint32_t hash);
/** Visit every index in use, in index order; a non-zero return stops. */
int nh_walk(const struct nh_table *t, int (*cb)(const struct nh_info *, void *), void *arg);

/**
 * The neighbour (port, family, addr) resolved to mac, or (mac NULL)
 * became unusable. Every GATEWAY nexthop with that port and gateway gets
 * its headers republished to all workers.
 * @return how many nexthops changed.
 */
unsigned int nh_neigh_update(struct nh_table *t, uint16_t port, uint8_t family,
			     const uint8_t addr[16], const uint8_t mac[6]);

/** Release memory whose QSBR grace period is over; never waits.
 * @return how many releases still wait for theirs. */
uint32_t nh_reclaim(struct nh_table *t);

/*
 * Reader side.
 */

#define NH_HDR_VALID 0x01 /* byte 14 of a header slot */

/* Replaced bucket tables are freed through QSBR. */
struct nh_buckets {
	uint32_t n;        /* NH_GROUP_BUCKETS, or 0 for a group without members */
	uint16_t member[]; /* nexthop index per bucket */
};

/*
 * One worker's view of one nexthop: one cache line. The headers are
 * 16-byte slots (14 bytes of Ethernet header, a flags byte, a spare) that
 * the control core writes and workers read with single aligned 16-byte
 * accesses, which AVX processors perform atomically: a worker sees a whole
 * old or a whole new header, with its valid flag.
 */
struct nh_dp {
	_Alignas(16) uint8_t hdr4[16];    /* IPv4 ethertype */
	_Alignas(16) uint8_t hdr6[16];    /* IPv6 ethertype */
	const struct nh_buckets *buckets; /* groups; RCU-published */
	uint16_t port;
	uint16_t mtu;
	uint16_t frame_max; /* mtu plus the Ethernet header: one compare a packet */
	uint8_t type;       /* enum nh_type */
	uint8_t pad[17];
} __attribute__((aligned(64)));

static_assert(sizeof(struct nh_dp) == 64, "one cache line per worker and nexthop");
static_assert(offsetof(struct nh_dp, hdr4) % 16 == 0 && offsetof(struct nh_dp, hdr6) % 16 == 0,
	      "header slots must be 16-byte aligned for atomic access");

/** Reader: a worker's own array, indexed by nexthop index. Fixed for the
 * table's life. */
const struct nh_dp *nh_worker_view(const struct nh_table *t, unsigned int worker);

/** Reader: atomic 16-byte load of a header slot. */
static inline __m128i
nh_hdr_load(const uint8_t slot[16])
{
	__m128i v;
	/* VMOVDQA, written out so that the compiler cannot split it. */
	__asm__ volatile("vmovdqa %1, %0" : "=x"(v) : "m"(*(const __m128i *)slot));
	return v;
}

/** Reader: whether a loaded header is valid. */
static inline bool
nh_hdr_valid(__m128i hdr)
{
	return (_mm_extract_epi8(hdr, 14) & NH_HDR_VALID) != 0;
}

/** The bucket a flow hash falls in: its high bits scaled to b->n. */
static inline uint32_t
nh_bucket_member(const struct nh_buckets *b, uint32_t hash)
{
	if (b == NULL || b->n == 0)
		return 0;
	return b->member[((uint64_t)hash * b->n) >> 32];
}

/** Reader: the ECMP member for a flow hash (deterministic while the group
 * is unchanged); 0 when the group is empty. */
static inline uint32_t
nh_group_member(const struct nh_dp *g, uint32_t hash)
{
	/* Acquire: the table was filled before it was published. */
	return nh_bucket_member(__atomic_load_n(&g->buckets, __ATOMIC_ACQUIRE), hash);
}

/*
 * Flow hashes of a packet's fields as they sit in its headers (network
 * order: the hash looks at bits, not numbers, and every caller passes the
 * same layout, so the addresses are one 8-byte load and the ports one
 * 4-byte one): CRC32C, one instruction per 8 bytes (SSE4.2, which every
 * AVX processor has; rte_hash_crc uses the same). CRC is linear, so
 * flows that count through a field (ports, numbered hosts) spread over
 * the high bits nh_group_member uses as evenly as the field varies
 * (exactly even shares in tests/unit/nexthop/test_ecmp.c, which a
 * multiply after it would spoil), and it costs fewer instructions than
 * a multiply-xorshift mix.
 */
#define NH_HASH_SEED 0x5bd1e995u

/** Reader: IPv4 flow hash: addresses as in the header, the protocol, and
 * the first 4 bytes of a TCP or UDP header (its ports) or 0. */
static inline uint32_t
nh_hash4(uint32_t src, uint32_t dst, uint8_t proto, uint32_t ports)
{
	uint64_t h = _mm_crc32_u64(NH_HASH_SEED, (uint64_t)dst << 32 | src);
	return (uint32_t)_mm_crc32_u64(h, (uint64_t)proto << 32 | ports);
}

/** Reader: the IPv4 flow hash under a policy. L4 hashes the 5-tuple,
 * except for non-first fragments, which carry no ports and are hashed on
 * addresses, so all of a flow's fragments take one path. */
static inline uint32_t
nh_flow_hash4(enum nh_hash_policy policy, uint32_t src, uint32_t dst, uint8_t proto, uint32_t ports,
	      bool nonfirst_fragment)
{
	if (policy == NH_HASH_L3 || nonfirst_fragment)
		return nh_hash4(src, dst, 0, 0);
	return nh_hash4(src, dst, proto, ports);
}

/** Reader: IPv6 flow hash: addresses and ports as nh_hash4's; the flow
 * label (0 unless the policy is L3) as a number. */
static inline uint32_t
nh_hash6(const uint8_t src[16], const uint8_t dst[16], uint32_t flow_label, uint8_t proto,
	 uint32_t ports)
{
	uint64_t s[2], d[2];
	memcpy(s, src, 16);
	memcpy(d, dst, 16);
	uint64_t h = _mm_crc32_u64(NH_HASH_SEED, s[0]);
	h = _mm_crc32_u64(h, s[1]);
	h = _mm_crc32_u64(h, d[0]);
	h = _mm_crc32_u64(h, d[1]);
	return (uint32_t)_mm_crc32_u64(h, (uint64_t)(proto ^ flow_label) << 32 | ports);
}

/** Reader: the IPv6 flow hash under a policy: L3 hashes the addresses
 * and the flow label, L4 the 5-tuple (non-first fragments as L3). */
static inline uint32_t
nh_flow_hash6(enum nh_hash_policy policy, const uint8_t src[16], const uint8_t dst[16],
	      uint32_t flow_label, uint8_t proto, uint32_t ports, bool nonfirst_fragment)
{
	if (policy == NH_HASH_L3 || nonfirst_fragment)
		return nh_hash6(src, dst, flow_label, 0, 0);
	return nh_hash6(src, dst, 0, proto, ports);
}

/** The table's configured hash policy (nh_conf.hash_policy). */
enum nh_hash_policy nh_hash_policy(const struct nh_table *t);

#endif /* ROUTER_NEXTHOP_H */
