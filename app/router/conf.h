/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROUTER_CONF_H
#define ROUTER_CONF_H

#include "settings.h"

void conf_defaults(struct rt_settings *s);
/* Read a config file; errors are printed as FILE:LINE: problem.
 * @return 0 or -errno. */
int conf_file(struct rt_settings *s, const char *path);
/* The daemon's options (after EAL's); reads --config first.
 * @return 0 or -EINVAL with the problem printed. */
int conf_options(struct rt_settings *s, int argc, char **argv);

#endif
