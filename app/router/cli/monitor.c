/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `monitor [OBJECT...]`, as ip monitor: after its ".ok", the connection
 * is a stream of a line for each change of the objects named (link,
 * address, route, rule, nexthop, neigh; all without any), printed as the
 * show commands print them, until the client goes. With -j each change
 * is one JSON object on a line of its own:
 *   {"kind":"route","deleted":false,"data":{...}}
 * where data is the object as `-j ... show` lists it (iproute2 has no
 * JSON monitor; software that drives the router wants one). What the
 * client sends afterwards is ignored; one whose unread events pass
 * CLI_OUT_MAX is closed.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static const struct {
	const char *name, *tag;
	unsigned int kind;
} kinds[] = {{"link", "[LINK]", CLI_EV_LINK},          {"address", "[ADDR]", CLI_EV_ADDR},
	     {"route", "[ROUTE]", CLI_EV_ROUTE},       {"rule", "[RULE]", CLI_EV_RULE},
	     {"nexthop", "[NEXTHOP]", CLI_EV_NEXTHOP}, {"neigh", "[NEIGH]", CLI_EV_NEIGH}};

static unsigned int
kind_index(unsigned int kind)
{
	unsigned int k = 0;
	while (k + 1 < RTE_DIM(kinds) && kinds[k].kind != kind)
		k++;
	return k;
}

/* Which of text and JSON monitors watch kind: bit 0 text, bit 1 JSON. */
static unsigned int
watchers(unsigned int kind)
{
	unsigned int w = 0;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		const struct client *c = cli_clients[i];
		if (c != NULL && (c->monitor & kind) && !c->dead)
			w |= c->monitor_json ? 2 : 1;
	}
	return w;
}

bool
cli_monitoring(unsigned int kind)
{
	return watchers(kind) != 0;
}

/* text: whole lines, as the show commands print them. As ip monitor: the
 * object tagged when a client watches several kinds, deleted ones with
 * "Deleted "; a continuation line (indented) belongs to the line before
 * and gets neither. */
static void
send_text(struct client *c, unsigned int kind, bool deleted, const char *text)
{
	const char *tag = kinds[kind_index(kind)].tag;
	bool tagged = (c->monitor & (c->monitor - 1)) != 0;
	for (const char *l = text; *l != 0;) {
		const char *nl = strchr(l, '\n');
		int n = nl ? (int)(nl - l) : (int)strlen(l);
		bool cont = l[0] == ' ' || l[0] == '\t';
		rt_buf_printf(&c->out, "%s%s%s%.*s\n", tagged && !cont ? tag : "",
			      tagged && !cont ? " " : "", deleted && !cont ? "Deleted " : "", n, l);
		l += n + (nl != NULL);
	}
}

/* What show prints about obj, in text or as a monitor's JSON line. */
static char *
format(struct router *r, unsigned int kind, bool deleted, bool json,
       void (*show)(struct cli *, const void *), const void *obj)
{
	struct rt_buf b = {0};
	char err[8];
	struct cli e = {.r = r, .out = &b, .err = err, .errlen = sizeof(err), .json = json};
	json_init(&e.j, &b);
	if (json) {
		json_obj(&e.j, NULL);
		json_str(&e.j, "kind", kinds[kind_index(kind)].name);
		json_bool(&e.j, "deleted", deleted);
		json_key(&e.j, "data");
	}
	show(&e, obj);
	if (json)
		json_end(&e.j);
	return b.s;
}

void
cli_event(struct router *r, unsigned int kind, bool deleted,
	  void (*show)(struct cli *, const void *), const void *obj)
{
	unsigned int w = watchers(kind);
	if (w == 0)
		return;
	char *text = (w & 1) ? format(r, kind, deleted, false, show, obj) : NULL;
	char *json = (w & 2) ? format(r, kind, deleted, true, show, obj) : NULL;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		struct client *c = cli_clients[i];
		if (c == NULL || !(c->monitor & kind) || c->dead)
			continue;
		if (c->monitor_json && json != NULL)
			rt_buf_printf(&c->out, "%s", json);
		else if (!c->monitor_json && text != NULL)
			send_text(c, kind, deleted, text);
		if (c->out.len - c->out_sent > CLI_OUT_MAX)
			c->dead = true; /* a monitor that does not read */
	}
	free(text);
	free(json);
}

void
cli_monitor_start(struct client *c, char *args, bool json)
{
	unsigned int want = 0;
	for (char *save, *w = strtok_r(args, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		unsigned int k = strcmp(w, "all") == 0 ? ~0u : 0;
		for (unsigned int i = 0; i < RTE_DIM(kinds) && k == 0; i++)
			if (strncmp(w, kinds[i].name, strlen(w)) == 0 ||
			    (strcmp(w, "neighbour") == 0 && kinds[i].kind == CLI_EV_NEIGH) ||
			    (strcmp(w, "addr") == 0 && kinds[i].kind == CLI_EV_ADDR))
				k = kinds[i].kind;
		if (k == 0) {
			rt_buf_printf(&c->out,
				      ".err monitor: unknown object '%s' (link, address, "
				      "route, rule, nexthop, neigh, all)\n",
				      w);
			return;
		}
		want |= k;
	}
	c->monitor = want ? want : ~0u;
	c->monitor_json = json;
	rt_buf_printf(&c->out, ".ok\n");
}
