// SPDX-License-Identifier: GPL-2.0
/*
 * Command dispatch: the one table of commands, lookup by exact name or
 * unique prefix, and the usage text each command's --help prints.
 */
#include "cmd.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "schedreplay/kgen.h"
#include "schedreplay/trace.h"

#include "banned.h"

const char *sr_progname = "schedreplay";

static const struct cmd_entry *const commands[] = {
	&cmd_record, &cmd_replay, &cmd_simulate, &cmd_report, &cmd_tui, &cmd_sql, &cmd_export,
	&cmd_info, &cmd_help,
};

#define NCOMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

int cmd_count(void)
{
	return NCOMMANDS;
}

const struct cmd_entry *cmd_at(int i)
{
	return i >= 0 && i < NCOMMANDS ? commands[i] : NULL;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", sr_progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void sr_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void sr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

const struct cmd_entry *cmd_find(const char *name, FILE *err)
{
	const struct cmd_entry *match = NULL;
	size_t len = strlen(name);
	int i, n = 0;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	for (i = 0; i < NCOMMANDS; i++) {
		if (len && !strncmp(commands[i]->name, name, len)) {
			match = commands[i];
			n++;
		}
	}
	if (n == 1)
		return match;
	if (!err)
		return NULL;
	if (n > 1) {
		fprintf(err, "%s: ambiguous command '%s', could be:", sr_progname, name);
		for (i = 0; i < NCOMMANDS; i++)
			if (!strncmp(commands[i]->name, name, len))
				fprintf(err, " %s", commands[i]->name);
		fputc('\n', err);
	} else {
		fprintf(err, "%s: unknown command '%s', expected one of:", sr_progname, name);
		for (i = 0; i < NCOMMANDS; i++)
			fprintf(err, " %s", commands[i]->name);
		fputc('\n', err);
	}
	return NULL;
}

void cmd_usage(const struct cmd_entry *c, FILE *out)
{
	fprintf(out, "usage: %s %s %s\n\n%s\n", sr_progname, c->name, c->synopsis, c->summary);
	if (c->options)
		fprintf(out, "\noptions:\n%s", c->options);
	if (c->examples)
		fprintf(out, "\nexamples:\n%s", c->examples);
}

void cmd_list(FILE *out)
{
	int i;

	fprintf(out, "usage: %s [--version] [--help] COMMAND [ARGS]\n\ncommands:\n", sr_progname);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "   %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nSee '%s help COMMAND' or '%s COMMAND --help' for a command's options.\n",
		sr_progname, sr_progname);
}

int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_usage(c, stdout);
			return 1;
		}
	}
	return 0;
}

int cmd_bad_option(const struct cmd_entry *c, const char *opt)
{
	sr_error("%s: unknown or incomplete option '%s'", c->name, opt);
	cmd_usage(c, stderr);
	return EXIT_USAGE;
}

int cmd_one_trace(const struct cmd_entry *c, int argc, int optind_)
{
	if (argc - optind_ == 1)
		return 0;
	sr_error("%s: expected one TRACE argument, got %d", c->name, argc - optind_);
	cmd_usage(c, stderr);
	return -1;
}

/**
 * cmd_parse_secs() - seconds written as the trace's timestamps are
 * @s:   the text (not necessarily terminated)
 * @len: its length
 * @ns:  the value in nanoseconds
 *
 * SECONDS[.FRACTION] with up to nine fraction digits and nothing else (no
 * sign, exponent, hex or blank), as the TUI's t= filter and go-to and
 * export's --from and --to take them.
 *
 * Return: 0 with @ns, -1 for bad syntax, -2 when it does not fit in 64-bit
 * nanoseconds (above 9223372036.854775807 s).
 */
int cmd_parse_secs(const char *s, size_t len, long long *ns)
{
	const char *end = s + len;
	long long sec = 0, frac = 0;
	int digits = 0, fd;

	for (; s < end && *s >= '0' && *s <= '9'; s++, digits++) {
		if (sec > (LLONG_MAX - (*s - '0')) / 10)
			return -2;
		sec = sec * 10 + (*s - '0');
	}
	if (s < end && *s == '.') {
		for (s++, fd = 0; s < end && *s >= '0' && *s <= '9'; s++, fd++, digits++) {
			if (fd >= 9)
				return -1;
			frac = frac * 10 + (*s - '0');
		}
		for (; fd < 9; fd++)
			frac *= 10;
	}
	if (s != end || !digits)
		return -1;
	if (sec > (LLONG_MAX - frac) / 1000000000LL)
		return -2;
	*ns = sec * 1000000000LL + frac;
	return 0;
}

/**
 * cmd_is_topology_preset() - whether -t names a preset or a topology file
 * @s: the argument
 *
 * Digits and 'x' only is a NODESxCORESxTHREADS preset, which the topology
 * library then checks (so "2x2" is a bad preset, not a missing file).
 *
 * Return: 1 for a preset, 0 for a file name.
 */
int cmd_is_topology_preset(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == 'x'))
			return 0;
	return 1;
}

/**
 * cmd_trace_cpus() - the CPU count of a trace that carries no topology
 * @path:  the trace
 * @opts:  its reader options, or NULL
 * @cause: set on failure
 *
 * The CPUs the trace declares; where it declares none (CTF from perf, ftrace
 * text), the highest CPU number that has an event, plus one, which takes a
 * pass over the trace.
 *
 * Return: the count (at least 1), or a negative SR_E_* with @cause.
 */
int cmd_trace_cpus(const char *path, const struct sr_trace_opts *opts, char **cause)
{
	struct sr_trace *t = NULL;
	struct sr_event ev;
	int ret, max = -1;

	ret = sr_trace_open(path, opts, &t, cause);
	if (ret < 0)
		return ret;
	if (sr_trace_borrow_info(t)->ncpus_declared > 0) {
		max = sr_trace_borrow_info(t)->ncpus_declared - 1;
	} else {
		while ((ret = sr_trace_next(t, &ev, cause)) > 0)
			if (ev.cpu > max)
				max = ev.cpu;
	}
	sr_trace_free(t);
	if (ret < 0)
		return ret;
	return max < 0 ? 1 : max + 1;
}

volatile sig_atomic_t cmd_interrupted;

static void on_signal(int sig)
{
	cmd_interrupted = sig;
}

void cmd_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void cmd_warn_migrated(const char *cmd, const char *path, const char *how)
{
	sr_warn("%s: '%s' was migrated from schema 3 to 4 %s (schedreplay-db(5)): a "
		"schedreplay that reads only schema 3 no longer reads it", cmd, path, how);
}

int cmd_kernel_option(const char *cmd, const char *arg)
{
	struct sr_kgen g;

	if (sr_kgen_parse(arg, SR_KGEN_SRC_OPTION, &g) < 0) {
		sr_error("%s: --kernel takes a kernel release such as 6.12.117 or 6.1, not '%s'",
			 cmd, arg);
		return -1;
	}
	return 0;
}

void cmd_kgen(const char *cmd, const char *who, const char *path, const char *trace_release,
	      const char *meta_release, const char *meta_build, const char *option,
	      struct sr_kgen *out)
{
	struct sr_kgen rec;
	const char *rel = sr_kgen_recording(trace_release, meta_release, meta_build, &rec);

	if (!option) {
		*out = rec;
		return;
	}
	sr_kgen_parse(option, SR_KGEN_SRC_OPTION, out);
	/* a what-if is allowed, but not without saying so */
	if (rec.major && (rec.major != out->major || rec.minor != out->minor))
		sr_warn("%s: --kernel %s is not the kernel that recorded '%s' (%s): %s follow "
			"%d.%d, the trace shows %d.%d", cmd, option, path, rel, who, out->major,
			out->minor, rec.major, rec.minor);
	if (sr_kgen_range(out))
		sr_warn("%s: --kernel %s is %s than any release whose scheduler changes are "
			"modelled (6.1 to 6.18)", cmd, option,
			sr_kgen_range(out) > 0 ? "newer" : "older");
}
