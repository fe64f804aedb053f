/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The check of frames read from a control-plane port's TAP
 * (app/router/control/cport_frame.c): valid frames of both families,
 * every truncation, each malformation, and random and mutated frames,
 * each in a heap buffer of exactly its length so that the address
 * sanitizer catches a read past it. FUZZ_SEED=N picks another seed.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cport_frame.h"
#include "../../../bench/xorshift.h"

static const uint8_t frame4[] = {
	0x02, 0, 0,    0,    0, 1,  0x02, 0, 0,  0,  0, 2, 0x08, 0x00,               /* Ethernet */
	0x45, 0, 0,    28,   0, 1,  0x40, 0, 64, 17, 0, 0, 192,  0,    2, 1, 192, 0, /* IPv4 */
	2,    2, 0x9c, 0x40, 0, 53, 0,    8, 0,  0,                                  /* UDP */
};

static uint8_t frame6[14 + 40 + 8];

static void
make_frame6(void)
{
	static const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd};
	memset(frame6, 0, sizeof(frame6));
	memcpy(frame6, eth, 14);
	frame6[14] = 0x60;
	frame6[14 + 5] = 8; /* payload length */
	frame6[14 + 6] = 17;
	frame6[14 + 7] = 64;
	frame6[14 + 8] = 0x20;
	frame6[14 + 24] = 0x20;
}

/* The class of a copy of len bytes of f, in a buffer of exactly len. */
static enum rt_cport_frame
class_of(const uint8_t *f, size_t len, uint16_t mtu)
{
	uint8_t *b = malloc(len ? len : 1);
	assert_non_null(b);
	memcpy(b, f, len);
	enum rt_cport_frame c = rt_cport_frame_class(b, len, mtu);
	free(b);
	return c;
}

static void
test_valid(void **state)
{
	(void)state;
	make_frame6();
	assert_int_equal(class_of(frame4, sizeof(frame4), 1500), RT_CPF_UNICAST);
	assert_int_equal(class_of(frame6, sizeof(frame6), 1500), RT_CPF_UNICAST);
	uint8_t g[sizeof(frame4)];
	memcpy(g, frame4, sizeof(g));
	memcpy(g, "\x01\x00\x5e\x00\x00\x05", 6); /* 224.0.0.5's MAC */
	assert_int_equal(class_of(g, sizeof(g), 1500), RT_CPF_GROUP);
	memset(g, 0xff, 6);
	assert_int_equal(class_of(g, sizeof(g), 1500), RT_CPF_GROUP);
	/* Ethernet padding after the IPv4 packet is fine. */
	uint8_t pad[60] = {0};
	memcpy(pad, frame4, sizeof(frame4));
	assert_int_equal(class_of(pad, sizeof(pad), 1500), RT_CPF_UNICAST);
}

static void
test_truncated(void **state)
{
	(void)state;
	make_frame6();
	for (size_t len = 0; len < sizeof(frame4); len++) {
		enum rt_cport_frame c = class_of(frame4, len, 1500);
		assert_true(c == RT_CPF_SHORT || c == RT_CPF_BAD_IP);
	}
	for (size_t len = 0; len < sizeof(frame6); len++) {
		enum rt_cport_frame c = class_of(frame6, len, 1500);
		assert_true(c == RT_CPF_SHORT || c == RT_CPF_BAD_IP);
	}
}

static void
test_malformed(void **state)
{
	(void)state;
	uint8_t f[sizeof(frame4)];
	/* Longer than the MTU allows (28 bytes of IP into an MTU of 27). */
	assert_int_equal(class_of(frame4, sizeof(frame4), 27), RT_CPF_LONG);
	memcpy(f, frame4, sizeof(f));
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_ETHERTYPE);
	memcpy(f, frame4, sizeof(f));
	f[14] = 0x65; /* IPv6's version in an IPv4 frame */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_BAD_IP);
	memcpy(f, frame4, sizeof(f));
	f[14] = 0x44; /* IHL 4 */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_BAD_IP);
	memcpy(f, frame4, sizeof(f));
	f[14] = 0x4f; /* IHL 15: 60 bytes, more than the frame holds */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_BAD_IP);
	memcpy(f, frame4, sizeof(f));
	f[17] = 29; /* total length past the frame */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_BAD_IP);
	f[17] = 19; /* shorter than its header */
	assert_int_equal(class_of(f, sizeof(f), 1500), RT_CPF_BAD_IP);
	make_frame6();
	uint8_t s[sizeof(frame6)];
	memcpy(s, frame6, sizeof(s));
	s[14 + 5] = 9; /* payload length past the frame */
	assert_int_equal(class_of(s, sizeof(s), 1500), RT_CPF_BAD_IP);
}

/* Random frames, and valid ones with random bytes changed: never a read
 * past the frame (the sanitizer), and what passes holds together. */
static void
test_fuzz(void **state)
{
	(void)state;
	make_frame6();
	const char *seed_env = getenv("FUZZ_SEED");
	uint64_t s = seed_env ? strtoull(seed_env, NULL, 0) | 1 : 0x9e3779b97f4a7c15ull;
	unsigned int passed = 0;
	for (unsigned int i = 0; i < 200000; i++) {
		uint8_t f[1600];
		size_t len;
		if (i % 2) {
			len = xorshift64(&s) % sizeof(f);
			for (size_t k = 0; k < len; k++)
				f[k] = (uint8_t)xorshift64(&s);
			if (len > 13 && i % 4 == 1) /* often an IP ethertype */
				f[12] = xorshift64(&s) & 1 ? 0x08 : 0x86,
				f[13] = f[12] == 0x08 ? 0x00 : 0xdd;
		} else {
			const uint8_t *v = i % 4 ? frame4 : frame6;
			len = i % 4 ? sizeof(frame4) : sizeof(frame6);
			memcpy(f, v, len);
			for (unsigned int k = xorshift64(&s) % 4; k > 0; k--)
				f[xorshift64(&s) % len] = (uint8_t)xorshift64(&s);
			if (xorshift64(&s) % 4 == 0)
				len = xorshift64(&s) % len;
		}
		uint16_t mtu = (uint16_t)(xorshift64(&s) % 4 ? 1500 : xorshift64(&s) % 1600);
		enum rt_cport_frame c = class_of(f, len, mtu);
		assert_true(c <= RT_CPF_BAD_IP);
		if (c == RT_CPF_UNICAST || c == RT_CPF_GROUP) {
			passed++;
			assert_true(len <= 14 + (size_t)mtu);
			bool v4 = f[12] == 0x08 && f[13] == 0x00;
			assert_true(len >= (size_t)(v4 ? 14 + 20 : 14 + 40));
			assert_int_equal(f[14] >> 4, v4 ? 4 : 6);
		}
	}
	print_message("fuzz: %u of 200000 frames passed\n", passed);
	assert_true(passed > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests_name("router_cport", tests, NULL, NULL);
}
