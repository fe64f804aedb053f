/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's log, through rte_log: one log type per part of the daemon, so
 * that an operator turns one up without the others (EAL's
 * --log-level=router.neigh:debug at start, `log level` at run time).
 * Each message names its part: "routerd neigh: ...". Never on the
 * workers' per-packet path.
 */
#ifndef RT_LOG_H
#define RT_LOG_H

#include <rte_log.h>

extern int rt_logtype_main;      /* router.main: start, ports, workers, stop */
extern int rt_logtype_control;   /* router.control: commands and what they change */
extern int rt_logtype_neigh;     /* router.neigh: neighbours resolved, changed, failed */
extern int rt_logtype_exception; /* router.exception: the punt path's slow events */

#define RT_LOG(level, part, fmt, ...)                                                              \
	rte_log(RTE_LOG_##level, rt_logtype_##part, "routerd " #part ": " fmt "\n", ##__VA_ARGS__)

/* A MAC address as ip(8) prints it: lowercase, colons. */
#define RT_MAC_FMT "%02x:%02x:%02x:%02x:%02x:%02x"
#define RT_MAC_BYTES(m) (m)[0], (m)[1], (m)[2], (m)[3], (m)[4], (m)[5]

/* The log types, for `log show`. */
struct rt_logtype {
	const char *name;
	const int *type;
};
extern const struct rt_logtype rt_logtypes[];
extern const unsigned int rt_nb_logtypes;

#endif
