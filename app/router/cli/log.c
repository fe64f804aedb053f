/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_log.h>

#include "cli_priv.h"

static const char *const log_levels[] = {"emerg",   "alert",  "crit", "err",
					 "warning", "notice", "info", "debug"};

/* log [show] | log level PATTERN LEVEL: routerd's log types (log.h) and
 * their levels, changed at run time as EAL's --log-level does at start
 * (PATTERN a glob such as router.* or any DPDK log type). */
int
cli_log(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show")) {
		if (c->json)
			json_obj(&c->j, NULL);
		for (unsigned int i = 0; i < rt_nb_logtypes; i++) {
			int lv = rte_log_get_level(*rt_logtypes[i].type);
			const char *name = lv >= 1 && lv <= 8 ? log_levels[lv - 1] : "?";
			if (c->json)
				json_str(&c->j, rt_logtypes[i].name, name);
			else
				rt_buf_printf(c->out, "%-18s %s\n", rt_logtypes[i].name, name);
		}
		if (c->json)
			json_end(&c->j);
		return 0;
	}
	if (!cli_matches(cmd, "level"))
		return cli_fail(c, EINVAL, "log: unknown command '%s' (try show, level)", cmd);
	int rc = cli_may_change(c, "log", cmd);
	if (rc < 0)
		return rc;
	const char *pattern = cli_next(c), *level = cli_next(c);
	if (pattern == NULL || level == NULL || cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "usage: log level PATTERN LEVEL");
	for (unsigned int i = 0; i < RTE_DIM(log_levels); i++)
		if (strcmp(level, log_levels[i]) == 0) {
			if (rte_log_set_level_pattern(pattern, i + 1) < 0)
				return cli_fail(c, EINVAL, "log level: cannot set '%s'", pattern);
			RT_LOG(NOTICE, control, "log level %s %s", pattern, level);
			return 0;
		}
	return cli_fail(c, EINVAL, "log level: unknown level '%s' (emerg ... debug)", level);
}
