/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command table.  Each src/cmd-*.c exports one struct cmd_entry; help,
 * usage and the man page synopsis all come from the same strings, so they
 * cannot drift apart (tests/t0100-cli-help.sh checks the man pages).
 */
#ifndef SCHEDREPLAY_CMD_H
#define SCHEDREPLAY_CMD_H

#include <signal.h>
#include <stdio.h>

/* exit codes: only main() turns a command's result into one */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* bad input, failed operation */
#define EXIT_USAGE	2	/* bad command line */


struct cmd_entry {
	const char *name;
	const char *synopsis;	/* after "schedreplay NAME ", as in the man page */
	const char *summary;	/* one line */
	const char *options;	/* option lines for --help, may be NULL */
	const char *examples;	/* example lines for --help, may be NULL */
	/* argv[0] is the command name; returns an EXIT_* code */
	int (*exec)(int argc, char **argv);
};

extern const struct cmd_entry cmd_record;
extern const struct cmd_entry cmd_info;
extern const struct cmd_entry cmd_replay;
extern const struct cmd_entry cmd_report;
extern const struct cmd_entry cmd_sql;
extern const struct cmd_entry cmd_export;
extern const struct cmd_entry cmd_help;
extern const struct cmd_entry cmd_tui;
extern const struct cmd_entry cmd_simulate;

/* cmd.c */
extern const char *sr_progname;
const struct cmd_entry *cmd_find(const char *name, FILE *err);
void cmd_usage(const struct cmd_entry *c, FILE *out);
void cmd_list(FILE *out);
int cmd_count(void);
const struct cmd_entry *cmd_at(int i);

/* print "schedreplay: <message>" to stderr (front ends only) */
void sr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Shared option handling for commands: --help prints the command's usage
 * and makes the caller return EXIT_OK.  Returns 1 when handled.
 */
int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv);

/* the usage error of an unknown option: message, usage, EXIT_USAGE */
int cmd_bad_option(const struct cmd_entry *c, const char *opt);
/* 0 when exactly one TRACE argument is left, else a usage error and -1 */
int cmd_one_trace(const struct cmd_entry *c, int argc, int optind_);

struct sr_kgen;
/* 0 when @arg is a kernel release --kernel takes, else the usage error and -1 */
int cmd_kernel_option(const char *cmd, const char *arg);
/*
 * cmd_kgen - the kernel generation command @cmd follows for the trace
 * @path into *@out (schedreplay-replay(1), KERNEL GENERATION): --kernel
 * @option, else the recording's (sr_kgen_recording()); an @option of
 * another major.minor than the recording's, or outside the releases
 * modelled, is followed with a warning that says what @who (the engine,
 * the simulated machine) and the models follow
 */
void cmd_kgen(const char *cmd, const char *who, const char *path, const char *trace_release,
	      const char *meta_release, const char *meta_build, const char *option,
	      struct sr_kgen *out);

/*
 * SIGINT and SIGTERM only set cmd_interrupted (the signal's number): a
 * command that writes a database stops on it and writes nothing.  Installed
 * by cmd_catch_signals(), before the command's temporary file exists.
 */
extern volatile sig_atomic_t cmd_interrupted;
void cmd_catch_signals(void);
/* the line a command prints when it migrated @path from schema 3 (@how: "by the append") */
void cmd_warn_migrated(const char *cmd, const char *path, const char *how);

/* SECONDS[.FRACTION] to ns: 0, -1 for bad syntax, -2 when too large */
int cmd_parse_secs(const char *s, size_t len, long long *ns);

/* 1 when -t's argument is a NODESxCORESxTHREADS preset (digits and 'x'), not a file */
int cmd_is_topology_preset(const char *s);

struct sr_trace_opts;
/* the CPUs of a flat fallback machine: declared, else the highest CPU with events + 1 */
int cmd_trace_cpus(const char *path, const struct sr_trace_opts *opts, char **cause);

#endif
