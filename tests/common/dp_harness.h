/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A router for driving the worker's stages (dp_burst) outside routerd:
 * one worker over the first two ethdev ports (net_null0 and net_null1 do),
 * the special nexthops, an empty FIB, a packet pool and the per-packet
 * metadata field: what routerd's main sets up, without the control core.
 * Used by bench/pipeline_bench and the datapath unit test. Failures exit.
 */
#ifndef DP_HARNESS_H
#define DP_HARNESS_H

#include <stdint.h>

#include "control.h"

/* EAL for a unit test: lcore 0, no hugepages (256 MiB), no PCI, no
 * telemetry, EAL's own log quiet, and nb_null net_null ports (0 to 2).
 * file_prefix keeps tests apart. @return rte_eal_init's. */
int dp_harness_eal(const char *argv0, const char *file_prefix, unsigned int nb_null);

/* Set up *r (zeroed by the caller); each port's TX buffer holds
 * tx_buffer packets. */
void dp_harness_setup(struct router *r, unsigned int tx_buffer);

/* A gateway nexthop of family on port 1 (2001:db8::last or 10.255.0.last),
 * its neighbour resolved to mac. @return its index. */
uint32_t dp_harness_gateway(struct router *r, uint8_t family, uint8_t last, const uint8_t mac[6]);

#endif
