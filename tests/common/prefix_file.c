/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prefix_file.h"

int
prefix_parse(const char *s, struct fib_prefix *p)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, slash - s);
	buf[slash - s] = 0;
	char *end;
	long len = strtol(slash + 1, &end, 10);
	memset(p, 0, sizeof(*p));
	if (strchr(buf, ':')) {
		if (inet_pton(AF_INET6, buf, p->addr.v6) != 1 || len < 0 || len > 128)
			return -EINVAL;
		p->family = FIB_AF_INET6;
	} else {
		uint32_t a;
		if (inet_pton(AF_INET, buf, &a) != 1 || len < 0 || len > 32)
			return -EINVAL;
		p->family = FIB_AF_INET;
		p->addr.v4 = ntohl(a);
	}
	p->len = (uint8_t)len;
	return 0;
}

void
prefix_pick(const struct fib_prefix *p, uint64_t r1, uint64_t r2, uint8_t out[16])
{
	if (p->family == FIB_AF_INET) {
		uint32_t host = p->len == 32 ? 0 : (uint32_t)r1 & (0xffffffffu >> p->len);
		uint32_t be = htonl(p->addr.v4 | host);
		memcpy(out, &be, 4);
		return;
	}
	for (int k = 0; k < 16; k++) {
		uint8_t rnd = (uint8_t)((k < 8 ? r1 : r2) >> (8 * (k % 8)));
		int bits = (int)p->len - 8 * k;
		uint8_t keep = bits >= 8 ? 0xff : bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));
		out[k] = (p->addr.v6[k] & keep) | (rnd & ~keep);
	}
}

const char *
prefix_data_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("ROUTER_DATA");
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ROUTER_DATA_DIR, name);
	return path;
}

int
prefix_list_load(const char *path, struct prefix_list *out)
{
	char cmd[4200], line[256];
	size_t plen = strlen(path);
	int gz = plen > 3 && strcmp(path + plen - 3, ".gz") == 0;
	FILE *f;
	if (gz) {
		snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "r");
	}
	if (f == NULL)
		return -errno;
	uint32_t cap = 1 << 16;
	memset(out, 0, sizeof(*out));
	out->p = malloc(sizeof(*out->p) * cap);
	out->asn = malloc(sizeof(*out->asn) * cap);
	int rc = out->p && out->asn ? 0 : -ENOMEM;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *sp = strchr(line, ' ');
		if (sp == NULL)
			continue;
		*sp = 0;
		if (out->n == cap) {
			cap *= 2;
			void *a = realloc(out->p, sizeof(*out->p) * cap);
			void *b = a ? realloc(out->asn, sizeof(*out->asn) * cap) : NULL;
			if (a)
				out->p = a;
			if (!b) {
				rc = -ENOMEM;
				break;
			}
			out->asn = b;
		}
		if (prefix_parse(line, &out->p[out->n]) < 0) {
			rc = -EINVAL;
			break;
		}
		out->asn[out->n++] = (uint32_t)strtoul(sp + 1, NULL, 10);
	}
	int st = gz ? pclose(f) : fclose(f);
	if (rc == 0 && (st != 0 || out->n == 0))
		rc = -EIO;
	if (rc < 0)
		prefix_list_free(out);
	return rc;
}

void
prefix_list_free(struct prefix_list *l)
{
	free(l->p);
	free(l->asn);
	memset(l, 0, sizeof(*l));
}

static const struct prefix_list *sort_list;

static int
cmp_index(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct fib_prefix *p = &sort_list->p[i], *q = &sort_list->p[j];
	int c = memcmp(&p->addr, &q->addr, sizeof(p->addr));
	if (c == 0)
		c = (int)p->len - (int)q->len;
	if (c == 0)
		c = (int)p->family - (int)q->family;
	return c ? c : (i < j ? -1 : i > j);
}

uint32_t
prefix_list_dedup(struct prefix_list *l)
{
	uint32_t *idx = malloc(sizeof(*idx) * l->n);
	uint8_t *dup = calloc(l->n, 1);
	if (idx == NULL || dup == NULL) {
		free(idx);
		free(dup);
		return 0;
	}
	for (uint32_t i = 0; i < l->n; i++)
		idx[i] = i;
	sort_list = l;
	qsort(idx, l->n, sizeof(*idx), cmp_index);
	for (uint32_t k = 1; k < l->n; k++) {
		const struct fib_prefix *p = &l->p[idx[k - 1]], *q = &l->p[idx[k]];
		if (p->family == q->family && p->len == q->len &&
		    memcmp(&p->addr, &q->addr, sizeof(p->addr)) == 0)
			dup[idx[k]] = 1;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (dup[i])
			continue;
		l->p[n] = l->p[i];
		l->asn[n++] = l->asn[i];
	}
	uint32_t dropped = l->n - n;
	l->n = n;
	free(idx);
	free(dup);
	return dropped;
}
