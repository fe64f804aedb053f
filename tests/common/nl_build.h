/* SPDX-License-Identifier: BSD-3-Clause */
/* rtnetlink messages built as the kernel builds them, for the tests of
 * the route mirror's decoder (test_nl_route.c) and the fuzzer that feeds
 * the mirror (tests/fuzz/ctl_fuzz.c). */
#ifndef TESTS_NL_BUILD_H
#define TESTS_NL_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

struct nl_build {
	uint8_t b[8192] __attribute__((aligned(4)));
	size_t len;
};

/* A message of type with its fixed header hdr (an rtmsg, an nhmsg...). */
static inline void
nl_build_start(struct nl_build *m, uint16_t type, const void *hdr, size_t hlen)
{
	memset(m->b, 0, NLMSG_HDRLEN + NLMSG_ALIGN(hlen));
	struct nlmsghdr h = {.nlmsg_type = type};
	memcpy(m->b, &h, sizeof(h));
	memcpy(m->b + NLMSG_HDRLEN, hdr, hlen);
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(hlen);
}

/* An attribute after the rest (dropped if the buffer is full). */
static inline void
nl_build_attr(struct nl_build *m, uint16_t type, const void *data, size_t len)
{
	uint16_t alen = (uint16_t)(4 + len);
	if (m->len + NLMSG_ALIGN(alen) > sizeof(m->b))
		return;
	memcpy(m->b + m->len, &alen, 2);
	memcpy(m->b + m->len + 2, &type, 2);
	if (len > 0)
		memcpy(m->b + m->len + 4, data, len);
	memset(m->b + m->len + alen, 0, NLMSG_ALIGN(alen) - alen);
	m->len += NLMSG_ALIGN(alen);
}

/* The message, its nlmsg_len set to what it holds. */
static inline struct nlmsghdr *
nl_build_done(struct nl_build *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;
	h->nlmsg_len = (uint32_t)m->len;
	return h;
}

#endif
