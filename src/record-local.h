/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder behind "schedreplay record", in three parts that know
 * nothing of each other; src/cmd-record.c drives them:
 *
 *   record-capture.c  tracefs: our own tracing instance, its events, the
 *                     select_rq kprobes, one raw page reader per CPU, and
 *                     the cleanup that leaves tracefs as it was found
 *   record-meta.c     the facts replay needs beyond the tracepoints
 *                     (topology, sched domains, HZ, tasks), as the
 *                     "schedreplay: ..." lines written to trace_marker
 *   record-write.c    the trace.dat version 6 writer
 *
 * Errors are returned as -SR_E_* with a caller-freed cause, as elsewhere
 * below the command line; only cmd-record.c prints.
 */
#ifndef SCHEDREPLAY_RECORD_LOCAL_H
#define SCHEDREPLAY_RECORD_LOCAL_H

#include <stddef.h>
#include <stdint.h>

/* -------------------------------------------------------------- btf ---- */

/* one member of a struct in the kernel's BTF */
struct sr_btf_field {
	unsigned offset;		/* bytes from the start of the struct */
	unsigned size;			/* of an integer or pointer member; 0: absent or neither */
	int ptr;			/* a pointer (size 8) */
};

/**
 * sr_btf_member - offsets of members of a struct, from a BTF file
 * @path:    e.g. /sys/kernel/btf/vmlinux
 * @sname:   the struct ("task_struct")
 * @members: the member names, @n of them, or paths through embedded
 *           structs ("se.avg.load_avg"); @out gets one field each
 *
 * Return: 0 when the struct was found (members not found have size 0),
 * -1 when the file cannot be read, is not BTF of this byte order, is
 * damaged, or has no such struct.
 */
int sr_btf_member(const char *path, const char *sname, const char *const *members,
		  struct sr_btf_field *out, size_t n);

/* ------------------------------------------------------------ lines ---- */

/* a growing list of owned strings */
struct sr_lines {
	char **v;
	size_t n, cap;
};

/**
 * sr_lines_add - append a formatted line
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_lines_add(struct sr_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sr_lines_release(struct sr_lines *l);

/* ----------------------------------------------------------- writer ---- */

/* one file copied from tracefs or /proc, with the name it had there */
struct sr_blob {
	char *name;
	char *data;
	size_t len;
};

struct sr_tdw_system {
	char *name;
	struct sr_blob *events;		/* the events' "format" files */
	size_t n;
};

/*
 * Everything a trace.dat v6 file holds.  The texts were read from tracefs
 * before the instance went away; the CPU data are whole ring-buffer pages
 * (page_size bytes each, as trace_pipe_raw returns them) in cpu_fd[cpu].
 */
struct sr_tdw {
	int ncpus;
	int page_size;			/* the ring buffer's sub-buffer size */
	int kernel_long;		/* size of the kernel's long: 4 or 8 */
	struct sr_blob header_page, header_event;
	struct sr_blob *ftrace;		/* events/ftrace/NAME/format */
	size_t nftrace;
	struct sr_tdw_system *systems;
	size_t nsystems;
	struct sr_blob kallsyms, printk, cmdlines;
	char *trace_clock;		/* the trace_clock file: "[local] global ..." */
	char *uname;			/* "sysname nodename release machine" */
	struct sr_blob *cpustat;	/* per cpu: "CPU: N\n" + per_cpu/cpuN/stats */
	int *cpu_fd;			/* per cpu, -1 when the cpu has no data */
};

/* what the writer saw in the pages it copied, per cpu */
struct sr_tdw_cpu {
	uint64_t events;
	uint64_t pages;
	uint64_t missed;		/* events the pages say were lost */
	uint64_t missed_unknown;	/* pages that lost events without a count */
	uint64_t bad_pages;		/* pages whose header did not make sense */
};

/**
 * sr_tdw_write - write a trace.dat version 6 file
 * @fd: the output, empty, open for writing at offset 0
 * @w: what to write
 * @cpus: per cpu counters filled while copying (w->ncpus entries)
 * @size: the size of the file written
 * @cause: reason of a failure, caller-freed
 *
 * The events land in the file's top buffer, so every tool that reads
 * trace.dat finds them without a buffer name.
 *
 * Return: 0, or -SR_E_IO / -SR_E_NOMEM / -SR_E_USAGE.
 */
int sr_tdw_write(int fd, const struct sr_tdw *w, struct sr_tdw_cpu *cpus, uint64_t *size,
		 char **cause);

/* free what @w owns (not the cpu files: they belong to the capture) */
void sr_tdw_release(struct sr_tdw *w);

/* ---------------------------------------------------------- capture ---- */

/* what the user asked for */
struct sr_capture_opts {
	size_t buffer_kb;		/* per cpu */
	char **events;			/* -e SYSTEM:EVENT, SYSTEM or globs */
	int nevents;
	int probes;			/* try the select_rq kprobes */
	int balance_probes;		/* add the newidle/load_balance kprobes */
	int input_probes;		/* add the rqstat/cfs_pelt kprobes */
	const char *tmpdir;		/* where the per-cpu page files go */
};

struct sr_capture;

/* a message for the user that is not an error (cmd-record.c prints it) */
typedef void (*sr_capture_note_fn)(const char *msg);

/**
 * sr_capture_new - prepare everything, trace nothing yet
 * @o: options
 * @note: called for each warning (skipped events, stale instance, probes)
 * @out: the capture, to free with sr_capture_free() on every path
 * @cause: reason of a failure, caller-freed
 *
 * Mounts tracefs when needed, takes the recorder lock, removes a stale
 * instance, creates the "schedreplay" instance with tracing off, sets its
 * buffers, adds the probes, enables the events in the instance only and
 * starts one reader thread per cpu.  On failure *@out is still set (or
 * NULL) and sr_capture_free() undoes what was done.
 *
 * The calling thread must block SIGUSR1: a reader that fails sends it
 * SIGUSR1 (then sr_capture_failed() says why).  The readers use SIGUSR2,
 * with a handler of their own, to leave a blocked read at the end.
 *
 * Return: 0, or -SR_E_*.
 */
int sr_capture_new(const struct sr_capture_opts *o, sr_capture_note_fn note,
		   struct sr_capture **out, char **cause);

/**
 * sr_capture_on - turn tracing on in the instance
 * Return: 0, or -SR_E_IO.
 */
int sr_capture_on(struct sr_capture *c, char **cause);

/**
 * sr_capture_mark - write one line to the instance's trace_marker
 * Return: 0, or -SR_E_IO.
 */
int sr_capture_mark(struct sr_capture *c, const char *line);

/**
 * sr_capture_failed - a reader thread failed (full disk...)
 * Return: 0 while all is well; otherwise -SR_E_* and *@cause set once.
 */
int sr_capture_failed(struct sr_capture *c, char **cause);

/**
 * sr_capture_stop - stop tracing, drain the buffers, fill @w
 * @c: the capture
 * @w: receives the formats, headers, stats and the per-cpu page files
 *     (still owned by @c)
 *
 * Reads everything the file needs from tracefs, so that the instance can
 * go before the (long) write.
 *
 * Return: 0, or -SR_E_*.
 */
int sr_capture_stop(struct sr_capture *c, struct sr_tdw *w, char **cause);

/**
 * sr_capture_cleanup - remove the instance and our probes, unmount
 * Safe to call more than once and after any failure.
 * Return: 0, or -SR_E_IO when something could not be removed (*@cause
 * says what, and how to remove it by hand).
 */
int sr_capture_cleanup(struct sr_capture *c, char **cause);

/* the events that are enabled, as "system:event" */
const struct sr_lines *sr_capture_borrow_events(struct sr_capture *c);
/* the probes in use: 0 none, else a line saying which */
const char *sr_capture_probes(struct sr_capture *c);
/* 1 when the balance probes (--balance-probes) are in use */
int sr_capture_balance_probes(struct sr_capture *c);
/* the input probes in use (--input-probes): "rqstat cfs_pelt", one, or "off" */
const char *sr_capture_input_probes(struct sr_capture *c);
/* the instance's trace_clock (selected), e.g. "local" */
const char *sr_capture_clock(struct sr_capture *c);

/* cleanup (if not done), close the page files, free; NULL is fine */
void sr_capture_free(struct sr_capture *c);

/* ------------------------------------------------------------- meta ---- */

/**
 * sr_meta_static - the facts of the machine, as metadata lines
 * @out: lines without the "schedreplay: " prefix ("kernel 6.1.0 hz 250")
 * @note: for warnings (debugfs could not be mounted...)
 *
 * Mounts debugfs for the sched domains when it is not mounted and
 * unmounts it again.
 *
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_meta_static(struct sr_lines *out, sr_capture_note_fn note);

/**
 * sr_meta_tasks - one "task ..." line per thread in /proc
 * @emit: called per line; a negative return stops the walk
 * Return: the number of tasks, or the negative value @emit returned.
 */
int sr_meta_tasks(int (*emit)(void *arg, const char *line), void *arg);

/* file helpers shared by the three parts */

/**
 * sr_read_file - read a whole file (tracefs and /proc files have no size)
 * Return: a NUL-terminated caller-freed buffer, NULL with errno set.
 */
char *sr_read_file(const char *path, size_t *len);

/**
 * sr_tmpfile - an unlinked temporary file in @dir (O_TMPFILE, or created
 * and unlinked at once), so that nothing is left behind even after SIGKILL
 * Return: a close-on-exec descriptor, or -1 with errno set.
 */
int sr_tmpfile(const char *dir);

/* write all of @buf, retrying short writes and EINTR; 0 or -1 with errno */
int sr_write_all(int fd, const void *buf, size_t len);

#endif
