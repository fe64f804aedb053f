/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerctl: the CLI client. It sends iproute2-style command lines to
 * routerd's unix socket and prints the answers.
 *
 *   routerctl [-S SOCKET] [-j] [-s] [-4|-6] [-b FILE|-] COMMAND ...
 *
 * The options are ip's where ip has them (-j, -s, -4, -6, -b); the
 * socket, which ip has no use for, is -S or --socket.
 *
 * With -b the lines of FILE (or standard input) are sent without waiting
 * for each answer: the daemon answers in order, and a full Internet table
 * loads at the speed the daemon applies it, not at one round trip a
 * route. Errors are printed with their line numbers; the exit status is 1
 * if any command failed.
 *
 * `save FILE` writes the configuration to FILE whole or not at all: to a
 * temporary file beside it, synced, then renamed over it, so that a
 * start-up file is never left half written.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/run/router/router.sock"

static int
connect_to(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "routerctl: socket path too long\n");
		return -1;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "routerctl: cannot reach routerd at %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Reads answers: output lines go to stdout; status lines are counted.
 * The buffer grows to hold the longest line: a JSON answer is one line,
 * megabytes long for a full table's routes. */
struct reader {
	int fd;
	char *buf;
	size_t len, cap;
	unsigned long answered, failed;
	FILE *out; /* output lines; NULL: stdout */
};

/* Consume complete lines; @return -1 on a closed connection. */
static int
read_answers(struct reader *rd, const unsigned long *req_line)
{
	if (rd->len == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 65536;
		char *b = realloc(rd->buf, cap);
		if (b == NULL) {
			fprintf(stderr, "routerctl: out of memory for an answer line\n");
			return -1;
		}
		rd->buf = b;
		rd->cap = cap;
	}
	ssize_t n = read(rd->fd, rd->buf + rd->len, rd->cap - rd->len);
	if (n <= 0)
		return -1;
	rd->len += (size_t)n;
	size_t start = 0;
	for (size_t i = 0; i < rd->len; i++) {
		if (rd->buf[i] != '\n')
			continue;
		rd->buf[i] = 0;
		char *line = rd->buf + start;
		start = i + 1;
		if (line[0] != '.') {
			FILE *o = rd->out ? rd->out : stdout;
			fputs(line, o);
			fputc('\n', o);
			continue;
		}
		if (strncmp(line, ".err ", 5) == 0) {
			rd->failed++;
			if (req_line != NULL)
				fprintf(stderr, "line %lu: error: %s\n", req_line[rd->answered],
					line + 5);
			else
				fprintf(stderr, "error: %s\n", line + 5);
		}
		rd->answered++;
	}
	memmove(rd->buf, rd->buf + start, rd->len - start);
	rd->len -= start;
	return 0;
}

static int
write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
batch(int fd, const char *file, const char *prefix)
{
	FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (in == NULL) {
		fprintf(stderr, "routerctl: %s: %s\n", file, strerror(errno));
		return 1;
	}
	struct reader rd = {.fd = fd};
	size_t cap = 1 << 16;
	unsigned long *req_line = malloc(sizeof(*req_line) * cap), sent = 0, lineno = 0;
	char line[4096], out[1 << 16];
	size_t out_len = 0;
	double t0 = now_s(), last = t0;
	bool eof = false;
	while (!eof || rd.answered < sent) {
		/* Send while there is input and the socket takes it; read
		 * answers as they come, so neither side ever blocks the other. */
		struct pollfd pfd = {.fd = fd, .events = POLLIN | (eof ? 0 : POLLOUT)};
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
		if (pfd.revents & (POLLIN | POLLHUP)) {
			if (read_answers(&rd, req_line) < 0)
				break;
		}
		if (!eof && (pfd.revents & POLLOUT)) {
			while (out_len < sizeof(out) - sizeof(line) - 8) {
				if (fgets(line, sizeof(line), in) == NULL) {
					eof = true;
					break;
				}
				lineno++;
				line[strcspn(line, "\r\n")] = 0;
				const char *p = line + strspn(line, " \t");
				if (*p == 0 || *p == '#')
					continue;
				if (sent == cap) {
					cap *= 2;
					req_line = realloc(req_line, sizeof(*req_line) * cap);
				}
				req_line[sent++] = lineno;
				out_len += (size_t)snprintf(out + out_len, sizeof(out) - out_len,
							    "%s%s\n", prefix, p);
			}
			if (out_len && write_all(fd, out, out_len) < 0)
				break;
			out_len = 0;
		}
		double t = now_s();
		if (t - last >= 1.0) {
			fprintf(stderr, "\rroutes: %lu sent, %lu done, %lu failed", sent,
				rd.answered, rd.failed);
			last = t;
		}
	}
	if (now_s() - t0 >= 1.0)
		fprintf(stderr, "\rroutes: %lu sent, %lu done, %lu failed in %.1f s\n", sent,
			rd.answered, rd.failed, now_s() - t0);
	if (in != stdin)
		fclose(in);
	free(req_line);
	free(rd.buf);
	if (rd.answered < sent) {
		fprintf(stderr, "routerctl: connection lost after %lu of %lu commands\n",
			rd.answered, sent);
		return 1;
	}
	return rd.failed ? 1 : 0;
}

/* save FILE: the answer into a temporary file in FILE's directory, then,
 * once routerd said .ok and the data is on disk, renamed over FILE (an
 * existing FILE's mode kept). */
static int
save_file(int fd, const char *path)
{
	char tmp[4096], dir[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "routerctl: save: path too long\n");
		return 2;
	}
	int t = mkstemp(tmp);
	FILE *f = t >= 0 ? fdopen(t, "w") : NULL;
	if (f == NULL) {
		fprintf(stderr, "routerctl: save: %s: %s\n", tmp, strerror(errno));
		if (t >= 0)
			close(t), unlink(tmp);
		return 1;
	}
	struct stat st;
	fchmod(t, stat(path, &st) == 0 ? st.st_mode & 07777 : 0644);
	struct reader rd = {.fd = fd, .out = f};
	int rc = 1;
	if (write_all(fd, "save\n", 5) < 0)
		fprintf(stderr, "routerctl: %s\n", strerror(errno));
	else
		while (rd.answered == 0 && read_answers(&rd, NULL) == 0)
			;
	free(rd.buf);
	if (rd.answered == 0)
		fprintf(stderr, "routerctl: no answer from routerd\n");
	else if (rd.failed == 0 && fflush(f) == 0 && fsync(t) == 0)
		rc = 0;
	else if (rd.failed == 0)
		fprintf(stderr, "routerctl: save: %s: %s\n", tmp, strerror(errno));
	if (fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "routerctl: save: %s: %s\n", tmp, strerror(errno));
		rc = 1;
	}
	if (rc == 0 && rename(tmp, path) < 0) {
		fprintf(stderr, "routerctl: save: %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (rc != 0) {
		unlink(tmp);
		return rc;
	}
	/* The rename itself on disk: the directory synced. */
	strcpy(dir, path);
	int d = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d >= 0) {
		fsync(d);
		close(d);
	}
	return 0;
}

/* The options routerd reads at the start of each line (ip's -j, -s, -4,
 * -6), each once: ip takes -s -s for more detail, which routerd has none
 * of. */
static void
add_opt(char *prefix, size_t size, const char *opt)
{
	char word[8];
	snprintf(word, sizeof(word), "%s ", opt);
	if (strstr(prefix, word) == NULL && strlen(prefix) + strlen(word) < size)
		strcat(prefix, word);
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: routerctl [-S SOCKET] [-j] [-s] [-4|-6] [-b FILE|-] COMMAND ...\n"
		"  -S, --socket SOCKET  routerd's socket (default $ROUTER_SOCKET, else "
		"" DEFAULT_SOCKET ")\n"
		"  -j  JSON   -s  statistics (link show)   -4|-6  one family\n"
		"  -b FILE|-  one command a line, without waiting for each answer\n"
		"commands, as iproute2's:\n"
		"  link show [[dev] PORT]\n"
		"  link set [dev] PORT up|down|mtu N|ra on|off|rdnss ADDR[,ADDR...]|none\n"
		"        |ra-managed on|off|ra-other on|off|ra-lifetime SECONDS\n"
		"  addr add|del ADDR/LEN dev PORT | addr show [[dev] PORT]\n"
		"  addr flush [dev] PORT [scope global|link]\n"
		"  route add|replace|change|del [TYPE] PREFIX [via ADDR] [dev PORT] [nhid ID]\n"
		"        [metric N] [table ID] [proto P] [nexthop via ADDR [dev PORT] [weight "
		"W]]...\n"
		"  route show|flush [table ID|local|all] [[root|match] PREFIX] [dev PORT]\n"
		"        [via ADDR] [proto P] [type TYPE] | route flush cache\n"
		"  route get ADDR [from ADDR] [iif PORT] [dscp N] [ipproto P] [sport N] [dport N]\n"
		"  nexthop add id ID via ADDR dev PORT | group ID[,W]/ID[,W]... | blackhole\n"
		"  nexthop del id ID | nexthop show\n"
		"  rule add|del [priority N] [from P] [to P] [iif PORT] [dscp N|tos T] [ipproto "
		"P]\n"
		"        [sport N[-M]] [dport N[-M]]\n"
		"        table ID|blackhole|unreachable|prohibit|goto PRIORITY\n"
		"  rule show\n"
		"  neigh add ADDR lladdr MAC dev PORT [permanent] | neigh del ADDR dev PORT\n"
		"  neigh show [dev PORT] [nud STATE] | neigh flush dev PORT|all\n"
		"  stats [show|reset]\n"
		"  save [FILE]  (the configuration, as start-up commands; FILE written whole or "
		"not "
		"at all)\n"
		"  monitor [link|address|route|rule|nexthop|neigh|all]...   (-j: a JSON object "
		"a line)\n"
		"  log [show] | log level PATTERN "
		"emerg|alert|crit|err|warning|notice|info|debug\n");
}

struct options {
	const char *sock, *file;
	char prefix[32]; /* the options routerd reads, each with a space */
};

/* @return the index of the command's first word, or -1 - the exit
 * status when there is nothing to run. */
static int
parse_options(int argc, char **argv, struct options *o)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != 0; i++) {
		const char *a = argv[i];
		if ((strcmp(a, "-S") == 0 || strcmp(a, "--socket") == 0) && i + 1 < argc)
			o->sock = argv[++i];
		else if (strncmp(a, "--socket=", 9) == 0)
			o->sock = a + 9;
		else if (strcmp(a, "-b") == 0 && i + 1 < argc)
			o->file = argv[++i];
		else if (strcmp(a, "-j") == 0 || strcmp(a, "-json") == 0)
			add_opt(o->prefix, sizeof(o->prefix), "-j");
		else if (strcmp(a, "-s") == 0 || strcmp(a, "-stats") == 0 ||
			 strcmp(a, "-statistics") == 0)
			add_opt(o->prefix, sizeof(o->prefix), "-s");
		else if (strcmp(a, "-4") == 0 || strcmp(a, "-6") == 0)
			add_opt(o->prefix, sizeof(o->prefix), a);
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return -1;
		} else {
			fprintf(stderr, "routerctl: unknown option '%s'\n", a);
			usage();
			return -1 - 2;
		}
	}
	if (o->file == NULL && i == argc) {
		usage();
		return -1 - 2;
	}
	/* Scripts written when -s named the socket would send the path as a
	 * command to the default socket: say what changed instead. */
	if (i < argc && strchr(argv[i], '/') != NULL) {
		fprintf(stderr,
			"routerctl: '%s' is not a command (the socket option is -S; -s is "
			"statistics, as ip's)\n",
			argv[i]);
		return -1 - 2;
	}
	return i;
}

/* One command, the words argv[first..argc): its answer; for monitor,
 * after its ".ok", routerd's events line by line, until it goes or we
 * are stopped. */
static int
one_command(int fd, const char *prefix, int first, int argc, char **argv)
{
	char line[4096];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s", prefix);
	for (int i = first; i < argc && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", argv[i],
				      i + 1 < argc ? " " : "\n");
	if (n >= sizeof(line)) {
		fprintf(stderr, "routerctl: command too long\n");
		return 2;
	}
	if (write_all(fd, line, n) < 0) {
		fprintf(stderr, "routerctl: %s\n", strerror(errno));
		return 1;
	}
	struct reader rd = {.fd = fd};
	while (rd.answered == 0 && read_answers(&rd, NULL) == 0)
		;
	if (rd.answered == 1 && rd.failed == 0 && strcmp(argv[first], "monitor") == 0) {
		fflush(stdout);
		setvbuf(stdout, NULL, _IOLBF, 0);
		while (read_answers(&rd, NULL) == 0)
			;
	}
	free(rd.buf);
	if (rd.answered == 0) {
		fprintf(stderr, "routerctl: no answer from routerd\n");
		return 1;
	}
	return rd.failed ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct options o = {.sock = getenv("ROUTER_SOCKET") ? getenv("ROUTER_SOCKET")
							    : DEFAULT_SOCKET};
	int first = parse_options(argc, argv, &o);
	if (first < 0)
		return -1 - first;
	int fd = connect_to(o.sock);
	if (fd < 0)
		return 1;
	int rc;
	if (o.file != NULL)
		rc = batch(fd, o.file, o.prefix);
	else if (strcmp(argv[first], "save") == 0 && first + 2 == argc && o.prefix[0] == 0)
		rc = save_file(fd, argv[first + 1]);
	else
		rc = one_command(fd, o.prefix, first, argc, argv);
	close(fd);
	return rc;
}
