// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay record": capture scheduler events on this machine into a
 * trace.dat that also carries what replay needs (topology, sched domains,
 * HZ, a task snapshot), for the lifetime of a command, for a duration, or
 * until Ctrl-C.  This file is the front end: options, the command's child
 * process, signals, and the order of the steps; record-capture.c does the
 * tracefs work, record-meta.c gathers the metadata and record-write.c writes
 * the file.
 *
 * Signals are never handled asynchronously: SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGCHLD and SIGUSR1 (a failed reader) stay blocked and the main
 * loop takes them with sigtimedwait(), so every exit goes through the same
 * cleanup.  Once tracefs is restored they are unblocked again: a second
 * Ctrl-C while the file is written just ends the process, which leaves
 * nothing behind (the file is written under no name until it is complete).
 */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "record-local.h"
#include "version.h"
#include "banned.h"

#define DEFAULT_OUTPUT		"trace.dat"
#define DEFAULT_BUFFER_KB	8192
#define MIN_BUFFER_KB		64
#define MAX_BUFFER_KB		(4UL << 20)

static const char record_examples[] =
	"   schedreplay record -o trace.dat -- perf bench sched messaging\n"
	"   schedreplay record -d 10 -b 16384 -o idle.dat\n"
	"   schedreplay record -e irq:irq_handler_entry -- make -j8\n";

static const char record_options[] =
	"   -o, --output FILE     write FILE (default: trace.dat); an existing FILE is\n"
	"                         replaced, as trace-cmd record does, once the new one\n"
	"                         is complete\n"
	"   -d, --duration SECS   record for SECS seconds (decimals allowed), then stop\n"
	"   -b, --buffer KB       ring buffer per cpu, in KB, 64 to 4194304 (default 8192,\n"
	"                         less when that would take more than 1/32 of the\n"
	"                         memory, but not under 1024)\n"
	"   -e, --event EVENT     also record EVENT: SYSTEM:EVENT, or SYSTEM for all its\n"
	"                         events; shell globs match; repeatable\n"
	"       --no-probes       do not add the select_rq and setaffinity probe events\n"
	"       --balance-probes  also add kprobe events on the newidle balance and\n"
	"                         load_balance (entry and return)\n"
	"       --input-probes    also add the validation kprobe events rqstat (every\n"
	"                         CPU's load, util, runnable, util_est, nr_running at\n"
	"                         each select_task_rq_fair()) and cfs_pelt (every PELT\n"
	"                         update of a cfs_rq); replay's placements read\n"
	"                         rqstat, nothing reads cfs_pelt\n"
	"       --no-kallsyms     do not copy /proc/kallsyms into the file\n"
	"   -h, --help            show this help\n"
	"\n"
	"Without COMMAND and -d, records until Ctrl-C (SIGINT) or SIGTERM.  Needs root.\n";

static void print_note(const char *msg)
{
	sr_warn("%s", msg);
}

/* ---------------------------------------------------------- options ---- */

struct record_opts {
	const char *output;
	double duration;		/* 0: none */
	size_t buffer_kb;
	char **events;
	int nevents;
	int probes;
	int balance_probes;
	int input_probes;
	int kallsyms;
	char **command;			/* NULL-terminated, or NULL */
};

static size_t default_buffer_kb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long mem_kb, kb;

	if (pages <= 0 || psize <= 0 || ncpus <= 0)
		return DEFAULT_BUFFER_KB;
	mem_kb = (unsigned long long)pages * (unsigned long long)psize / 1024;
	kb = mem_kb / 32 / (unsigned long long)ncpus;
	if (kb > DEFAULT_BUFFER_KB)
		kb = DEFAULT_BUFFER_KB;
	if (kb < 1024)
		kb = 1024;
	return (size_t)kb;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "buffer",	required_argument,	NULL, 'b' },
		{ "event",	required_argument,	NULL, 'e' },
		{ "no-probes",	no_argument,		NULL, 'P' },
		{ "balance-probes", no_argument,	NULL, 'B' },
		{ "input-probes", no_argument,		NULL, 'I' },
		{ "no-kallsyms", no_argument,		NULL, 'K' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	o->output = DEFAULT_OUTPUT;
	o->probes = 1;
	o->kallsyms = 1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:d:b:e:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (!*optarg) {
				sr_error("record: -o needs a file name");
				return -1;
			}
			o->output = optarg;
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->duration) ||
			    o->duration <= 0 || o->duration > 1e9) {
				sr_error("record: invalid duration '%s' (seconds, more than 0)", optarg);
				return -1;
			}
			break;
		case 'b': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || v < MIN_BUFFER_KB || v > MAX_BUFFER_KB) {
				sr_error("record: invalid buffer size '%s' (KB per cpu, %d to %lu)",
					 optarg, MIN_BUFFER_KB, MAX_BUFFER_KB);
				return -1;
			}
			o->buffer_kb = v;
			break;
		}
		case 'e': {
			char **ne = realloc(o->events, (size_t)(o->nevents + 1) * sizeof(*ne));

			if (!ne) {
				sr_error("record: %s", sr_strerror(SR_E_NOMEM));
				return -1;
			}
			o->events = ne;
			o->events[o->nevents++] = optarg;
			break;
		}
		case 'P':
			o->probes = 0;
			break;
		case 'B':
			o->balance_probes = 1;
			break;
		case 'I':
			o->input_probes = 1;
			break;
		case 'K':
			o->kallsyms = 0;
			break;
		case 'h':
			cmd_usage(&cmd_record, stdout);
			return 1;
		default:
			sr_error("record: unknown or incomplete option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	if (o->command && o->duration > 0) {
		sr_error("record: -d and a COMMAND cannot be combined");
		return -1;
	}
	if (!o->buffer_kb)
		o->buffer_kb = default_buffer_kb();
	return 0;
}

/* ---------------------------------------------------------- command ---- */

/*
 * The command's process is forked before anything is opened, so that it
 * inherits no descriptor into tracefs (one left open by a daemon it starts
 * would keep the instance from being removed).  It waits for one byte on
 * @go before it runs the command; an exec failure comes back on @err.
 */
struct child {
	pid_t pid;
	int go;				/* write end */
	int err;			/* read end, close-on-exec in the child */
	int done;
	int status;
};

static int child_fork(struct child *ch, char **command, const sigset_t *mask)
{
	int go[2], er[2];

	memset(ch, 0, sizeof(*ch));
	ch->go = ch->err = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(er, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	ch->pid = fork();
	if (ch->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return -1;
	}
	if (ch->pid == 0) {
		char c = 0;
		ssize_t n;
		int e;

		close(go[1]);
		close(er[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1 || c != 'g')
			_exit(127);
		close(go[0]);
		execvp(command[0], command);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(er[1]);
	ch->go = go[1];
	ch->err = er[0];
	return 0;
}

/* let the command run; 0, or the errno of its exec */
static int child_start(struct child *ch)
{
	char c = 'g';
	int e = 0;
	ssize_t n;

	if (write(ch->go, &c, 1) != 1)
		return errno ? errno : EIO;
	close(ch->go);
	ch->go = -1;
	while ((n = read(ch->err, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ch->err);
	ch->err = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static void child_reap(struct child *ch, int wait)
{
	int status;
	pid_t p;

	if (ch->pid <= 0 || ch->done)
		return;
	do {
		p = waitpid(ch->pid, &status, wait ? 0 : WNOHANG);
	} while (p < 0 && errno == EINTR);
	if (p == ch->pid) {
		ch->done = 1;
		ch->status = status;
	}
}

/* the command's exit status as a shell reports it */
static int child_exit_code(const struct child *ch)
{
	if (WIFEXITED(ch->status))
		return WEXITSTATUS(ch->status);
	if (WIFSIGNALED(ch->status))
		return 128 + WTERMSIG(ch->status);
	return EXIT_FAIL;
}

static void child_release(struct child *ch)
{
	if (ch->go >= 0)
		close(ch->go);	/* a child still waiting exits */
	if (ch->err >= 0)
		close(ch->err);
	ch->go = ch->err = -1;
	if (ch->pid > 0 && !ch->done) {
		struct timespec ts = { 0, 20000000L };
		int i;

		/* it never got its go: it exits at once */
		for (i = 0; i < 50 && !ch->done; i++) {
			child_reap(ch, 0);
			if (!ch->done)
				nanosleep(&ts, NULL);
		}
	}
}

/* ----------------------------------------------------------- output ---- */

/*
 * The output is written without a name (O_TMPFILE) and given one when it is
 * complete, replacing an older file only then.  Where O_TMPFILE does not
 * work, a hidden temporary name is used and renamed.
 */
struct output {
	const char *path;
	char *dir;
	char *tmpname;			/* named fallback, unlinked on failure */
	int fd;
};

static int output_check(struct output *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;

	out->path = path;
	out->fd = -1;
	out->tmpname = NULL;
	if (slash == path)
		out->dir = strdup("/");
	else if (slash)
		out->dir = strndup(path, (size_t)(slash - path));
	else
		out->dir = strdup(".");
	if (!out->dir) {
		sr_error("record: %s", sr_strerror(SR_E_NOMEM));
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		sr_error("cannot write '%s': is a directory", path);
		return -1;
	}
	if (access(out->dir, W_OK | X_OK) < 0) {
		sr_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int output_open(struct output *out)
{
	const char *base = strrchr(out->path, '/');

	base = base ? base + 1 : out->path;
	out->fd = open(out->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (out->fd >= 0)
		return 0;
	if (asprintf(&out->tmpname, "%s/.%s.XXXXXX", out->dir, base) < 0) {
		out->tmpname = NULL;
		errno = ENOMEM;
		return -1;
	}
	out->fd = mkostemp(out->tmpname, O_CLOEXEC);
	if (out->fd < 0) {
		free(out->tmpname);
		out->tmpname = NULL;
		return -1;
	}
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(out->fd, 0644 & ~um);
	}
	return 0;
}

static int output_commit(struct output *out)
{
	char *tmp = NULL, proc[64];
	int ret;

	if (out->tmpname) {
		ret = rename(out->tmpname, out->path);
		if (ret == 0) {
			free(out->tmpname);
			out->tmpname = NULL;
		}
		return ret;
	}
	if (asprintf(&tmp, "%s.schedreplay-%d", out->path, (int)getpid()) < 0)
		return -1;
	unlink(tmp);
	ret = linkat(out->fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH);
	if (ret < 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out->fd);
		ret = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
	}
	if (ret == 0) {
		ret = rename(tmp, out->path);
		if (ret < 0) {
			int e = errno;

			unlink(tmp);
			errno = e;
		}
	}
	free(tmp);
	return ret;
}

static void output_release(struct output *out)
{
	if (out->fd >= 0)
		close(out->fd);
	if (out->tmpname) {
		unlink(out->tmpname);
		free(out->tmpname);
	}
	free(out->dir);
	out->fd = -1;
	out->tmpname = out->dir = NULL;
}

/* ------------------------------------------------------------- meta ---- */

struct marker {
	struct sr_capture *c;
	unsigned long lines;
	int failed;
};

static int mark(void *arg, const char *line)
{
	struct marker *m = arg;
	char buf[1100];

	snprintf(buf, sizeof(buf), "schedreplay: %s", line);
	if (sr_capture_mark(m->c, buf) < 0) {
		m->failed = 1;
		return -1;
	}
	m->lines++;
	return 0;
}

static int write_meta(struct sr_capture *c, const struct sr_lines *facts, size_t buffer_kb,
		      char **cause)
{
	const struct sr_lines *ev = sr_capture_borrow_events(c);
	struct marker m = { .c = c };
	char line[256];
	size_t i;
	int ntasks;

	for (i = 0; i < facts->n && !m.failed; i++)
		mark(&m, facts->v[i]);
	snprintf(line, sizeof(line), "recorder schedreplay %s clock %s buffer_kb %zu", SR_VERSION,
		 sr_capture_clock(c), buffer_kb);
	mark(&m, line);
	for (i = 0; i < ev->n && !m.failed; i++) {
		snprintf(line, sizeof(line), "event %s", ev->v[i]);
		mark(&m, line);
	}
	snprintf(line, sizeof(line), "probes %s", sr_capture_probes(c));
	mark(&m, line);
	snprintf(line, sizeof(line), "balance-probes %s", sr_capture_balance_probes(c) ? "on" : "off");
	mark(&m, line);
	snprintf(line, sizeof(line), "input-probes %s", sr_capture_input_probes(c));
	mark(&m, line);
	ntasks = m.failed ? 0 : sr_meta_tasks(mark, &m);
	snprintf(line, sizeof(line), "meta end tasks %d lines %lu", ntasks < 0 ? 0 : ntasks,
		 m.lines + 1);
	mark(&m, line);
	if (m.failed)
		return sr_cause_set(cause, "cannot write to the instance's trace_marker: %s",
				    strerror(errno)), -SR_E_IO;
	return 0;
}

/* ---------------------------------------------------------- summary ---- */

static uint64_t stat_value(const struct sr_blob *b, const char *key)
{
	const char *s = b->data;
	size_t klen = strlen(key);

	while (s && *s) {
		if (!strncmp(s, key, klen) && s[klen] == ':')
			return strtoull(s + klen + 1, NULL, 10);
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return 0;
}

static void print_summary(const struct sr_tdw *w, const struct sr_tdw_cpu *cpus, double secs,
			  const char *path, uint64_t size)
{
	uint64_t events = 0, lost = 0;
	int cpu;

	for (cpu = 0; cpu < w->ncpus; cpu++) {
		events += cpus[cpu].events;
		lost += stat_value(&w->cpustat[cpu], "overrun") +
			stat_value(&w->cpustat[cpu], "dropped events");
	}
	fprintf(stderr, "%s: recorded %.3f s on %d cpus: %llu events, %llu lost\n", sr_progname,
		secs, w->ncpus, (unsigned long long)events, (unsigned long long)lost);
	fprintf(stderr, "  %4s %12s %10s\n", "cpu", "events", "lost");
	for (cpu = 0; cpu < w->ncpus; cpu++)
		fprintf(stderr, "  %4d %12llu %10llu\n", cpu, (unsigned long long)cpus[cpu].events,
			(unsigned long long)(stat_value(&w->cpustat[cpu], "overrun") +
					     stat_value(&w->cpustat[cpu], "dropped events")));
	fprintf(stderr, "%s: wrote '%s' (%llu bytes)\n", sr_progname, path,
		(unsigned long long)size);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- main ---- */

enum stop_why { STOP_NONE, STOP_SIGNAL, STOP_DURATION, STOP_CHILD, STOP_ERROR };

/*
 * Wait until the command ends, the duration is over, a signal asks to stop
 * or a reader fails.  In COMMAND mode a signal is passed on to the command
 * (unless the terminal sent it to the command's process group already) and
 * the recording goes on until the command ends; a second one stops it.
 */
static enum stop_why wait_for_end(struct sr_capture *c, struct child *ch, double deadline,
				  const sigset_t *set, char **cause)
{
	int signals = 0;

	for (;;) {
		struct timespec ts = { 1, 0 };
		siginfo_t si;
		int sig;

		if (sr_capture_failed(c, cause))
			return STOP_ERROR;
		if (ch->pid > 0) {
			child_reap(ch, 0);
			if (ch->done)
				return STOP_CHILD;
		}
		if (deadline > 0) {
			double left = deadline - now_s();

			if (left <= 0)
				return STOP_DURATION;
			if (left < 1) {
				ts.tv_sec = 0;
				ts.tv_nsec = (long)(left * 1e9) + 1;
			}
		}
		sig = sigtimedwait(set, &si, &ts);
		if (sig < 0)
			continue;	/* timeout, EINTR */
		switch (sig) {
		case SIGCHLD:
		case SIGUSR1:
			break;		/* checked at the top */
		default:
			if (ch->pid <= 0)
				return STOP_SIGNAL;
			child_reap(ch, 0);
			if (ch->done)
				return STOP_CHILD;
			if (++signals > 1) {
				sr_warn("stopping; the command (pid %d) goes on without tracing",
					(int)ch->pid);
				return STOP_SIGNAL;
			}
			if (si.si_code != SI_KERNEL)
				kill(ch->pid, sig);
			break;
		}
	}
}


/* does a /proc/kallsyms text show at least one non-zero address? */
static int kallsyms_has_addresses(const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end) {
		const char *p = s;

		while (p < end && *p == '0')
			p++;
		if (p < end && *p != ' ')
			return 1;
		s = memchr(p, '\n', (size_t)(end - p));
		if (!s)
			break;
		s++;
	}
	return 0;
}

static int record_exec(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct sr_capture_opts co = { 0 };
	struct sr_capture *c = NULL;
	struct sr_lines facts = { 0 };
	struct sr_tdw w = { 0 };
	struct sr_tdw_cpu *cpus = NULL;
	struct output out = { .fd = -1 };
	struct child ch = { .pid = -1, .go = -1, .err = -1 };
	sigset_t set, old;
	enum stop_why why = STOP_NONE;
	char *cause = NULL;
	double start = 0, secs;
	uint64_t size = 0;
	int ret, status = EXIT_OK, exec_err = 0, blocked = 0;

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		free(o.events);
		if (ret < 0)
			cmd_usage(&cmd_record, stderr);
		return ret < 0 ? EXIT_USAGE : EXIT_OK;
	}
	if (geteuid() != 0) {
		sr_error("record needs root: it creates a tracing instance in tracefs");
		free(o.events);
		return EXIT_FAIL;
	}
	if (output_check(&out, o.output) < 0) {
		status = EXIT_FAIL;
		goto out;
	}

	/* from here on, every signal that could end us is taken in wait_for_end() */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	{
		sigset_t pipe_set;

		/* a closed stdout must not kill us before the cleanup */
		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	}
	blocked = 1;
	if (o.command && child_fork(&ch, o.command, &old) < 0) {
		sr_error("record: cannot start a process: %s", strerror(errno));
		status = EXIT_FAIL;
		goto out;
	}

	ret = sr_meta_static(&facts, print_note);
	if (ret < 0)
		goto fail;
	co.buffer_kb = o.buffer_kb;
	co.events = o.events;
	co.nevents = o.nevents;
	co.probes = o.probes;
	co.balance_probes = o.balance_probes;
	co.input_probes = o.input_probes;
	co.tmpdir = out.dir;
	ret = sr_capture_new(&co, print_note, &c, &cause);
	if (!ret)
		ret = sr_capture_on(c, &cause);
	if (!ret)
		ret = write_meta(c, &facts, o.buffer_kb, &cause);
	if (ret < 0)
		goto fail;
	start = now_s();
	if (o.command) {
		exec_err = child_start(&ch);
		if (exec_err) {
			sr_error("cannot run '%s': %s", o.command[0], strerror(exec_err));
			child_reap(&ch, 1);
			status = exec_err == ENOENT ? 127 : 126;
			why = STOP_ERROR;
		}
	} else if (o.duration <= 0) {
		fprintf(stderr, "%s: recording; press Ctrl-C to stop\n", sr_progname);
	}
	if (why == STOP_NONE)
		why = wait_for_end(c, &ch, o.duration > 0 ? start + o.duration : 0, &set, &cause);
	secs = now_s() - start;
	if (why == STOP_ERROR && cause) {
		ret = -SR_E_IO;
		goto fail;
	}

	ret = sr_capture_stop(c, &w, &cause);
	if (ret < 0)
		goto fail;
	ret = sr_capture_cleanup(c, &cause);
	if (ret < 0)
		goto fail;
	if (exec_err)
		goto out;

	/* tracefs is as we found it: a signal may end us now */
	sigprocmask(SIG_SETMASK, &old, NULL);
	{
		sigset_t keep;

		sigemptyset(&keep);
		sigaddset(&keep, SIGPIPE);
		sigaddset(&keep, SIGCHLD);
		sigprocmask(SIG_BLOCK, &keep, NULL);
	}
	blocked = 0;

	if (o.kallsyms) {
		w.kallsyms.data = sr_read_file("/proc/kallsyms", &w.kallsyms.len);
		/*
		 * kptr_restrict hides the addresses: a table of zeros helps no
		 * one.  The first symbols may be 0 legitimately (per-CPU ones:
		 * "0000000000000000 A fixed_percpu_data" on 6.1), so look for
		 * any non-zero address.
		 */
		if (!w.kallsyms.data || !kallsyms_has_addresses(w.kallsyms.data,
								  w.kallsyms.len)) {
			free(w.kallsyms.data);
			w.kallsyms.data = NULL;
			w.kallsyms.len = 0;
		}
	}
	cpus = calloc((size_t)w.ncpus, sizeof(*cpus));
	if (!cpus) {
		ret = -SR_E_NOMEM;
		goto fail;
	}
	if (output_open(&out) < 0) {
		sr_error("cannot write '%s': %s", o.output, strerror(errno));
		status = EXIT_FAIL;
		goto out;
	}
	ret = sr_tdw_write(out.fd, &w, cpus, &size, &cause);
	if (ret < 0) {
		sr_error("cannot write '%s': %s", o.output, cause ? cause : sr_strerror(ret));
		status = EXIT_FAIL;
		goto out;
	}
	if (output_commit(&out) < 0) {
		sr_error("cannot write '%s': %s", o.output, strerror(errno));
		status = EXIT_FAIL;
		goto out;
	}
	print_summary(&w, cpus, secs, o.output, size);
	if (ch.pid > 0) {
		child_reap(&ch, 0);
		if (ch.done)
			status = child_exit_code(&ch);
	}
	goto out;

fail:
	sr_error("record: %s", cause ? cause : sr_strerror(ret));
	status = EXIT_FAIL;
out:
	free(cause);
	cause = NULL;
	if (c && sr_capture_cleanup(c, &cause) < 0) {
		sr_error("record: %s", cause ? cause : "cannot restore tracefs");
		status = EXIT_FAIL;
	}
	free(cause);
	sr_capture_free(c);
	child_release(&ch);
	if (exec_err && status == EXIT_OK)
		status = exec_err == ENOENT ? 127 : 126;
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	output_release(&out);
	sr_tdw_release(&w);
	sr_lines_release(&facts);
	free(cpus);
	free(o.events);
	return status;
}

const struct cmd_entry cmd_record = {
	.name = "record",
	.synopsis = "[-o FILE] [-d SECONDS] [-b KB] [-e EVENT]... [--no-probes] [--balance-probes] [--input-probes] "
		    "[--no-kallsyms] "
		    "[-- COMMAND [ARGS]]",
	.summary = "capture scheduler events on this machine into a trace.dat",
	.options = record_options,
	.examples = record_examples,
	.exec = record_exec,
};
