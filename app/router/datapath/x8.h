/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages' steps eight packets at a time, for processors with AVX-512
 * (DP_X8 is defined only there): each takes eight packets when all eight
 * are the usual case, and otherwise writes nothing and leaves them to
 * the stage's one-at-a-time code, so the result is always that code's.
 */
#ifndef DP_X8_H
#define DP_X8_H

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <stddef.h>
#include <string.h>

#include <rte_ip.h>

#include "dp_inline.h"

#define DP_X8 8 /* packets a step takes at once */

/* Eight 8-byte words, one at byte `off` of each of eight buffers whose
 * addresses are the lanes of `base`. */
#define DP_GATHER8(base, off) _mm512_i64gather_epi64((base), (const void *)(uintptr_t)(off), 1)

/* The data_len of the eight mbufs whose addresses are the lanes of mb. */
static inline __m512i
dp_data_len_x8(__m512i mb)
{
	return _mm512_and_si512(DP_GATHER8(mb, offsetof(struct rte_mbuf, data_len)),
				_mm512_set1_epi64(0xffff));
}

/* dp_frame_fast's template test, less its length test, for the eight
 * frames whose addresses are the lanes of f: a lane's bit is set when its
 * frame's first 16 bytes match the template where it cares (the port's
 * MAC, the ethertype, byte 14 if given). *w1 gets bytes 8-15 of each
 * frame, which the stages read further. */
static inline __mmask8
dp_frame_fast_x8(const struct dp_fast_frame *fast, __m512i f, __m512i *w1)
{
	const __m128i care = _mm_movm_epi8((__mmask16)fast->care);
	const __m512i t_lo = _mm512_set1_epi64(_mm_cvtsi128_si64(fast->tmpl));
	const __m512i t_hi = _mm512_set1_epi64(_mm_extract_epi64(fast->tmpl, 1));
	const __m512i c_lo = _mm512_set1_epi64(_mm_cvtsi128_si64(care));
	const __m512i c_hi = _mm512_set1_epi64(_mm_extract_epi64(care, 1));
	__m512i w0 = DP_GATHER8(f, 0); /* destination MAC, 2 bytes of the source */
	*w1 = DP_GATHER8(f, 8);        /* ethertype at 12, byte 14 */
	__mmask8 good = _mm512_testn_epi64_mask(_mm512_xor_si512(w0, t_lo), c_lo);
	return _mm512_mask_testn_epi64_mask(good, _mm512_xor_si512(*w1, t_hi), c_hi);
}

/*
 * The action step (act4 and act6) for eight packets at once, when each
 * takes its common case: a nexthop whose header is valid (a gateway or
 * on-link destination whose neighbour is resolved and whose port is up;
 * never a group), a TTL or hop limit above 1 (for IPv4 also a checksum
 * that dp_ttl_dec4_fast updates as Linux does) and a frame within the
 * nexthop's MTU. Then the eight are rewritten as dp_send and the TTL
 * update rewrite them, written to out_m and out_port, and true is
 * returned; if any of the eight is not, nothing is written and the caller
 * takes them one by one (which reads each header again: a nexthop may
 * change in between, and either reading is a whole one). ip holds the
 * eight IP headers (IPv4 or IPv6 as v6 says, a constant).
 *
 * Each header is one atomic 16-byte load, tested and written from that
 * same register: two gathered halves could mix an old and a new header.
 * The first is tested alone, so a burst to an ECMP group (whose header is
 * never valid) gives up after one load. Vectors do the rest: the
 * nexthops' frame limits and ports (one gather), the frames' lengths
 * (one), the TTL words (one). The TTL updates and the use stamps stay
 * scalar stores: as scatters, the loads of the header writes that follow
 * would wait for them.
 */
static __rte_always_inline bool
dp_act_x8(struct rt_worker *w, struct rte_mbuf *const *ok, void *const *ip, const uint32_t *nh,
	  struct rte_mbuf **out_m, uint16_t *out_port, bool v6)
{
	static_assert(offsetof(struct nh_dp, frame_max) == offsetof(struct nh_dp, port) + 4,
		      "one 8-byte gather reads port and frame_max");
	const size_t slot = v6 ? offsetof(struct nh_dp, hdr6) : offsetof(struct nh_dp, hdr4);
	const uint8_t *view = (const uint8_t *)w->nh;
	__m128i hdr[DP_X8];
	hdr[0] = nh_hdr_load(view + (size_t)nh[0] * sizeof(struct nh_dp) + slot);
	if (!nh_hdr_valid(hdr[0]))
		return false;
	__m128i all = hdr[0];
	for (unsigned int j = 1; j < DP_X8; j++) {
		hdr[j] = nh_hdr_load(view + (size_t)nh[j] * sizeof(struct nh_dp) + slot);
		all = _mm_and_si128(all, hdr[j]);
	}
	if (!nh_hdr_valid(all))
		return false;
	const __m512i ips = _mm512_loadu_si512(ip);
	const __m512i mb = _mm512_loadu_si512(ok);
	/* port (bits 0-15), mtu, frame_max (bits 32-47), type */
	const __m512i meta = _mm512_i32gather_epi64(
		_mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)nh), 6),
		view + offsetof(struct nh_dp, port), 1);
	static_assert(sizeof(struct nh_dp) == 1 << 6, "the gather's index is nh << 6");
	const __m512i low16 = _mm512_set1_epi64(0xffff);
	__m512i len = dp_data_len_x8(mb);
	__mmask8 good =
		_mm512_cmple_epu64_mask(len, _mm512_and_si512(_mm512_srli_epi64(meta, 32), low16));
	/* The 4-byte word holding the TTL: IPv4 bytes 8-11 (TTL, protocol,
	 * checksum), IPv6 bytes 4-7 (payload length, next header, hop
	 * limit). */
	const __m256i word = _mm512_i64gather_epi32(
		ips,
		(const void *)(uintptr_t)(v6 ? offsetof(struct rte_ipv6_hdr, payload_len)
					     : offsetof(struct rte_ipv4_hdr, time_to_live)),
		1);
	const __m256i ff = _mm256_set1_epi32(0xff);
	const __m256i ttl = v6 ? _mm256_srli_epi32(word, 24) : _mm256_and_si256(word, ff);
	good = _mm256_mask_cmpgt_epu32_mask(good, ttl, _mm256_set1_epi32(1));
	if (!v6) /* dp_ttl_fast4: the checksum's second byte */
		good = _mm256_mask_cmpneq_epu32_mask(good, _mm256_srli_epi32(word, 24), ff);
	if (good != 0xff)
		return false;
	const uint32_t now = (uint32_t)w->st.rounds;
	for (unsigned int j = 0; j < DP_X8; j++) {
		uint8_t *h;
		memcpy(&h, &ip[j], sizeof(h));
		dp_l2_write(h - RTE_ETHER_HDR_LEN, hdr[j]);
		if (v6)
			((struct rte_ipv6_hdr *)h)->hop_limits--;
		else
			dp_ttl_dec4_fast((struct rte_ipv4_hdr *)h);
		w->nh_used[nh[j]] = now;
	}
	_mm512_storeu_si512(out_m, mb);
	_mm_storeu_si128((__m128i *)out_port, _mm512_cvtepi64_epi16(meta));
	return true;
}
#endif

#endif
