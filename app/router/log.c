/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_common.h>

#include "log.h"

/* Notices and above by default: what an operator wants in a journal
 * (start, ports, stop, failures); info and debug on request. */
RTE_LOG_REGISTER(rt_logtype_main, router.main, INFO);
RTE_LOG_REGISTER(rt_logtype_control, router.control, NOTICE);
RTE_LOG_REGISTER(rt_logtype_neigh, router.neigh, NOTICE);
RTE_LOG_REGISTER(rt_logtype_exception, router.exception, NOTICE);

const struct rt_logtype rt_logtypes[] = {
	{"router.main", &rt_logtype_main},
	{"router.control", &rt_logtype_control},
	{"router.neigh", &rt_logtype_neigh},
	{"router.exception", &rt_logtype_exception},
};
const unsigned int rt_nb_logtypes = RTE_DIM(rt_logtypes);
