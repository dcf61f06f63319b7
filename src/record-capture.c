// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs side of "schedreplay record", through libtracefs only: a
 * tracing instance of our own ("schedreplay"), the sched events enabled in
 * it and nowhere else, the select_rq and setaffinity kprobes where the kernel
 * has kprobe events (else the setaffinity probe as a uprobe on the C
 * library where it has uprobe events), and one thread per cpu that copies the instance's raw ring-buffer
 * pages (trace_pipe_raw, spliced through a pipe by libtracefs) unparsed into
 * an unlinked temporary file.
 *
 * Leaving tracefs as it was found is the point of most of this file:
 *   - nothing outside the instance is written, except the probes;
 *   - a lock (flock on tracefs's instances directory, released by the
 *     kernel even on SIGKILL) tells a stale instance, left by a killed
 *     recorder, from one a running recorder uses; a stale one is removed,
 *     with its probes (the instance is created before the probes and
 *     removed after them, so a leftover probe always comes with a leftover
 *     instance);
 *   - every file descriptor into the instance is close-on-exec and closed
 *     before the instance is removed (an open file makes rmdir fail);
 *   - tracefs is mounted only when it is not, and unmounted again.
 */
#include "record-local.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "schedreplay/error.h"
#include "banned.h"

#define INSTANCE	"schedreplay"
#define PROBE_GROUP	"schedreplay"
#define TRACEFS_PATH	"/sys/kernel/tracing"
#define BUFFER_PERCENT	"10"
#define POLL_NS		50000000L	/* reader poll interval without buffer_percent */

/* the default events; the first two are required */
static const char *const default_events[] = {
	"sched_switch", "sched_wakeup", "sched_waking", "sched_wakeup_new",
	"sched_migrate_task", "sched_process_fork", "sched_process_exit",
	"sched_process_free",
};
#define NREQUIRED 2

/*
 * The select_rq probes (a contract with replay, schedreplay-record(1)):
 * select_task_rq_fair(struct task_struct *p, int prev_cpu, int wake_flags).
 */
#if defined(__x86_64__)
#define PROBE_ARGS	"prev_cpu=%si:s32 wake_flags=%dx:x32"
#define PROBE_PID	" pid=p->pid flips=p->wakee_flips"	/* BTF arguments, 6.6+ */
#define PROBE_PELT	" load=p->se.avg.load_avg util=p->se.avg.util_avg" \
			" runnable=p->se.avg.runnable_avg"
/* prev_cpu's cpu_load(): the root cfs_rq of the task's runqueue (FAIR_GROUP_SCHED) */
#define PROBE_PREV	" prevload=p->se.cfs_rq->rq->cfs.avg.load_avg"
#endif
#define PROBE_FUNC	"select_task_rq_fair"
#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
/*
 * The setaffinity probe: sched_setaffinity(pid_t pid, const struct cpumask
 * *in_mask) as asked (pid 0: the caller), the mask's first word (CPUs 0-63).
 * Optional: without it, replay knows only single-CPU affinity from names
 * and the task snapshot.
 */
#if defined(__x86_64__)
#define AFFINITY_ARGS	"pid=%di:s32 mask=+0(%si):x64"
#endif
#define AFFINITY_FUNC	"sched_setaffinity"
/*
 * A kernel without kprobe events (CONFIG_KPROBES off) may still have
 * uprobe events: the setaffinity probe is then a uprobe on the C library's
 * sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask),
 * the same event with the same fields, for the programs that set their
 * affinity through the library this recorder runs with (taskset(1) of
 * util-linux, Python's os.sched_setaffinity(), ...).  A statically linked
 * program (busybox's taskset), a direct syscall, pthread_setaffinity_np()
 * or a container's own C library shows nowhere: the metadata says "probes
 * off affinity uprobe" and replay keeps inferring the masks it does not see.
 */
#if defined(__x86_64__)
#define AFFINITY_UARGS	"pid=%di:s32 mask=+0(%dx):x64"
#endif
/*
 * The optional balance probes (--balance-probes, schedreplay-record(1)):
 * the newidle balance, newidle_balance(struct rq *this_rq, struct rq_flags *)
 * (sched_balance_newidle from 6.10, and in Debian's 6.1.192), and
 * load_balance(int this_cpu, struct rq *this_rq, struct sched_domain *sd,
 * enum cpu_idle_type idle, int *continue_balancing) (sched_balance_rq from
 * 6.10), entry and return.  The struct fields are read at offsets from the
 * kernel's BTF, so the same definitions work before and after 6.6.
 */
/*
 * The optional input probes (--input-probes, schedreplay-record(1)), for
 * validating the engine's per-CPU state (replay's placements read rqstat,
 * nothing reads cfs_pelt):
 * rqstat at select_task_rq_fair()'s entry, every CPU's root cfs_rq
 * averages, nr_running and ttwu_pending as the slow path reads them (rq(i)
 * is &runqueues + __per_cpu_offset[i], per_cpu_ptr()'s sum; both symbols
 * must be in kallsyms, CONFIG_KALLSYMS_ALL), and cfs_pelt at every PELT
 * update of a cfs_rq, __update_load_avg_cfs_rq(u64 now, struct cfs_rq *)
 * (kernel/sched/pelt.c, global from 5.x to 6.18).
 */
#define NPROBES		9
#define BAL_FIRST	3		/* the balance probes are probe[3..6] */
#define IN_FIRST	7		/* the input probes are probe[7..8] */
#define RQSTAT_FUNC	"select_task_rq_fair"
#define CFS_PELT_FUNC	"__update_load_avg_cfs_rq"
/* the kernel's limits: MAX_TRACE_ARGS fields, WRITE_BUFSIZE bytes a definition */
#define RQSTAT_MAX_FIELDS 128
#define RQSTAT_ARGS_MAX	4000

struct reader {
	struct sr_capture *c;
	int cpu;
	int raw_fd;			/* per_cpu/cpuN/trace_pipe_raw */
	int out_fd;			/* unlinked temporary file */
	struct tracefs_cpu *tcpu;
	pthread_t thread;
	int running;
	int err;			/* errno of the failure */
	const char *what;		/* what failed */
};

struct sr_capture {
	sr_capture_note_fn note;
	char tracing_dir[256];
	int mounted_tracefs;
	int lock_fd;
	struct tracefs_instance *inst;
	int ncpus;
	int page_size;
	int kernel_long;
	int blocking;			/* readers wait for buffer_percent */
	struct reader *r;
	int marker_fd;
	struct sr_lines events;		/* "system:event", enabled */
	struct tracefs_dynevent *probe[NPROBES];
	int own_probe[NPROBES];
	int probe_pid;
	int balance;			/* the balance probes were added */
	char input[64];			/* the input probes in use: "rqstat cfs_pelt", "off" */
	char probes[160];
	char clock[64];
	pthread_t main;
	atomic_int stopping;
	atomic_int failed;
	int fail_reported;
	int cleaned;
};

static void note(struct sr_capture *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct sr_capture *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!c->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->note(msg);
}

/* -------------------------------------------------------- tracefs dir ---- */

/*
 * libtracefs mounts tracefs (or debugfs) by itself the first time it looks
 * for it; find or mount it first, so that we know whether to unmount it,
 * and tell libtracefs where it is.
 */
static int find_tracefs(struct sr_capture *c, char **cause)
{
	char *m = sr_read_file("/proc/self/mounts", NULL), *line, *save = NULL;
	struct stat st;

	for (line = m ? strtok_r(m, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], fs[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, fs) == 3 && !strcmp(fs, "tracefs")) {
			snprintf(c->tracing_dir, sizeof(c->tracing_dir), "%s", mnt);
			break;
		}
	}
	free(m);
	if (!c->tracing_dir[0]) {
		if (stat(TRACEFS_PATH, &st) < 0 || mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL))
			return sr_cause_set(cause, "tracefs is not mounted and cannot be mounted on "
					    "%s: %s", TRACEFS_PATH, strerror(errno)),
			       -SR_E_UNSUPPORTED;
		c->mounted_tracefs = 1;
		snprintf(c->tracing_dir, sizeof(c->tracing_dir), "%s", TRACEFS_PATH);
	}
	if (tracefs_set_tracing_dir(c->tracing_dir) < 0)
		return -SR_E_NOMEM;
	return 0;
}

static char *tpath(struct sr_capture *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* a path under the tracing dir (static buffer per call site is not enough) */
static char *tpath(struct sr_capture *c, const char *fmt, ...)
{
	char rel[256], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (asprintf(&p, "%s/%s", c->tracing_dir, rel) < 0)
		return NULL;
	return p;
}

/*
 * no_kprobes - 1 (and a note saying what is recorded without) when the
 * kernel has no kprobe_events file, else 0
 */
static int no_kprobes(struct sr_capture *c, const char *without)
{
	char *kp = tpath(c, "kprobe_events");
	struct stat st;
	int none = !kp || stat(kp, &st) < 0;

	free(kp);
	if (none)
		note(c, "this kernel has no kprobe events: recording without %s", without);
	return none;
}

/* the kprobe syntax takes BTF arguments (6.6+): its README shows field access */
static int kprobes_take_btf(void)
{
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	int btf = readme && strstr(readme, "<argname>[->field");

	free(readme);
	return btf;
}

/* --------------------------------------------------------------- lock ---- */

static int take_lock(struct sr_capture *c, char **cause)
{
	char *dir = tpath(c, "instances");

	if (!dir)
		return -SR_E_NOMEM;
	c->lock_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->lock_fd < 0) {
		sr_cause_set(cause, "cannot open '%s': %s (this kernel has no tracing instances)",
			     dir, strerror(errno));
		free(dir);
		return -SR_E_UNSUPPORTED;
	}
	free(dir);
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			return sr_cause_set(cause, "another 'schedreplay record' is running on this "
					    "machine"), -SR_E_USAGE;
		return sr_cause_set(cause, "cannot lock the tracing instances: %s",
				    strerror(errno)), -SR_E_IO;
	}
	return 0;
}

/* ------------------------------------------------------------- probes ---- */

static const char *const probe_name[NPROBES] = {
	"select_rq", "select_rq_ret", "setaffinity",
	"newidle", "newidle_ret", "balance_rq", "balance_rq_ret",
	"rqstat", "cfs_pelt",
};
/* the setaffinity probe (2) may be a uprobe (AFFINITY_UARGS) */
static const enum tracefs_dynevent_type probe_type[NPROBES] = {
	TRACEFS_DYNEVENT_KPROBE, TRACEFS_DYNEVENT_KRETPROBE, TRACEFS_DYNEVENT_KPROBE,
	TRACEFS_DYNEVENT_KPROBE, TRACEFS_DYNEVENT_KRETPROBE,
	TRACEFS_DYNEVENT_KPROBE, TRACEFS_DYNEVENT_KRETPROBE,
	TRACEFS_DYNEVENT_KPROBE, TRACEFS_DYNEVENT_KPROBE,
};

/*
 * Our probe @i if it exists (allocated), else NULL.  Not through
 * tracefs_dynevent_get(): libtracefs 1.6.4's frees a list entry twice
 * (abort) when it searches among several dynamic events of which some have
 * another type.  So list them all and keep the one we want.
 */
static struct tracefs_dynevent *probe_get(int i)
{
	struct tracefs_dynevent **all, *found = NULL;
	int k, n;

	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE |
				       TRACEFS_DYNEVENT_UPROBE, PROBE_GROUP);
	for (n = 0; all && all[n]; n++)
		;
	for (k = 0; k < n && !found; k++) {
		char *sys = NULL, *ev = NULL;
		int type = tracefs_dynevent_info(all[k], &sys, &ev, NULL, NULL, NULL);

		if (((int)probe_type[i] == type || (i == 2 && type == TRACEFS_DYNEVENT_UPROBE)) &&
		    sys && ev && !strcmp(sys, PROBE_GROUP) &&
		    !strcmp(ev, probe_name[i])) {
			found = all[k];
			all[k] = all[n - 1];
			all[n - 1] = NULL;
		}
		free(sys);
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	return found;
}

/* remove the probes of a killed recorder (only called with a stale instance) */
static void remove_stale_probes(struct sr_capture *c)
{
	int i;

	for (i = 0; i < NPROBES; i++) {
		struct tracefs_dynevent *d = probe_get(i);

		if (!d)
			continue;
		if (tracefs_dynevent_destroy(d, true) < 0)
			note(c, "cannot remove the stale probe event %s/%s: %s", PROBE_GROUP,
			     probe_name[i], strerror(errno));
		tracefs_dynevent_free(d);
	}
}

static int destroy_probes(struct sr_capture *c, char **cause)
{
	int i, ret = 0;

	for (i = NPROBES - 1; i >= 0; i--) {
		if (!c->probe[i])
			continue;
		if (c->own_probe[i] && tracefs_dynevent_destroy(c->probe[i], false) < 0 && !ret) {
			sr_cause_set(cause, "cannot remove the probe event %s/%s: %s; remove it with: "
				     "echo '-:%s/%s' >> %s/kprobe_events", PROBE_GROUP, probe_name[i],
				     strerror(errno), PROBE_GROUP, probe_name[i], c->tracing_dir);
			ret = -SR_E_IO;
		}
		tracefs_dynevent_free(c->probe[i]);
		c->probe[i] = NULL;
		c->own_probe[i] = 0;
	}
	return ret;
}

#ifdef AFFINITY_ARGS
/* the optional setaffinity probe: a failure is a note, not the end of the probes */
static void add_affinity_probe(struct sr_capture *c)
{
	struct tracefs_dynevent *d;

	if (c->probe[2])
		return;		/* defined by hand: use it, leave it (see add_probes) */
	d = tracefs_kprobe_alloc(PROBE_GROUP, probe_name[2], AFFINITY_FUNC, AFFINITY_ARGS);
	if (d && tracefs_dynevent_create(d) == 0) {
		c->probe[2] = d;
		c->own_probe[2] = 1;
		return;
	}
	tracefs_dynevent_free(d);
	note(c, "cannot add a kprobe on %s (%s): recording without the setaffinity probe "
	     "(affinity masks set during the recording)", AFFINITY_FUNC,
	     strerror(errno ? errno : EINVAL));
}
#endif

#ifdef AFFINITY_UARGS
struct seg_find {
	uintptr_t base, addr;
	unsigned long long off;
	int found;
};

/* the PT_LOAD segment of the object loaded at f->base that holds f->addr */
static int seg_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seg_find *f = data;
	uintptr_t a = f->addr - (uintptr_t)info->dlpi_addr;
	int i;

	(void)size;
	if ((uintptr_t)info->dlpi_addr != f->base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && a >= ph->p_vaddr && a < ph->p_vaddr + ph->p_memsz) {
			f->off = (unsigned long long)(a - ph->p_vaddr + ph->p_offset);
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

/*
 * The file and file offset of the C library's sched_setaffinity(), as this
 * process has it mapped (a uprobe's place).  Return: 0, or -1 when the
 * symbol is not in a shared object (a static build).
 */
static int libc_setaffinity(char *path, size_t len, unsigned long long *off)
{
	int (*fn)(pid_t, size_t, const cpu_set_t *) = sched_setaffinity;
	struct seg_find f = { 0 };
	Dl_info info;

	if (!dladdr((void *)(uintptr_t)fn, &info) || !info.dli_fname || info.dli_fname[0] != '/')
		return -1;
	f.base = (uintptr_t)info.dli_fbase;
	f.addr = (uintptr_t)fn;
	/* dli_fbase is the object's load base; dl_iterate_phdr() gives its segments */
	dl_iterate_phdr(seg_of, &f);
	if (!f.found || strlen(info.dli_fname) >= len)
		return -1;
	snprintf(path, len, "%s", info.dli_fname);
	*off = f.off;
	return 0;
}

/* the setaffinity probe as a uprobe, without kprobe events; a failure is a note */
static void add_affinity_uprobe(struct sr_capture *c)
{
	struct tracefs_dynevent *d;
	char path[PATH_MAX], *up = tpath(c, "uprobe_events");
	unsigned long long off;
	struct stat st;
	int none = !up || stat(up, &st) < 0;

	free(up);
	c->probe[2] = probe_get(2);
	if (c->probe[2] || none)
		return;		/* defined by hand: used as it is; no uprobe events: none */
	if (libc_setaffinity(path, sizeof(path), &off)) {
		note(c, "cannot find sched_setaffinity in a shared C library: recording without "
		     "the setaffinity probe");
		return;
	}
	d = tracefs_uprobe_alloc(PROBE_GROUP, probe_name[2], path, off, AFFINITY_UARGS);
	if (d && tracefs_dynevent_create(d) == 0) {
		c->probe[2] = d;
		c->own_probe[2] = 1;
		return;
	}
	tracefs_dynevent_free(d);
	note(c, "cannot add a uprobe on %s:0x%llx (%s): recording without the setaffinity probe",
	     path, off, strerror(errno ? errno : EINVAL));
}
#endif

#ifdef PROBE_ARGS
#define PROBE_ARGS_MAX 384
/*
 * Kernels whose kprobes take no BTF arguments (before 6.6): the fields of
 * PROBE_PID, PROBE_PELT and PROBE_PREV at offsets read from the kernel's
 * own BTF (CONFIG_DEBUG_INFO_BTF).  buf[0]: all the kernel has, buf[1]:
 * without prevload, buf[2]: pid and flips only.  Return: 0, or -1 without
 * BTF or without task_struct->pid.
 */
static int probe_offsets(char buf[3][PROBE_ARGS_MAX])
{
	static const char *const mem[] = { "pid", "wakee_flips", "se.avg.load_avg",
					   "se.avg.util_avg", "se.avg.runnable_avg", "se.cfs_rq" };
	static const char *const name[] = { "pid", "flips", "load", "util", "runnable" };
	static const char *const rq_mem[] = { "cfs.avg.load_avg" };
	static const char *const cfs_mem[] = { "rq" };
	struct sr_btf_field f[6], rq_load, cfs_rq;
	size_t o, j;

	if (sr_btf_member(BTF_VMLINUX, "task_struct", mem, f, 6) || f[0].size != 4)
		return -1;
	o = (size_t)snprintf(buf[0], PROBE_ARGS_MAX, "%s", PROBE_ARGS);
	for (j = 0; j < 5 && o < PROBE_ARGS_MAX; j++) {
		if (j == 2)
			memcpy(buf[2], buf[0], o + 1);
		if ((f[j].size == 4 || f[j].size == 8) && !f[j].ptr)
			o += (size_t)snprintf(buf[0] + o, PROBE_ARGS_MAX - o, " %s=+0x%x(%%di):%s%u",
					      name[j], f[j].offset, j == 0 ? "s" : "u",
					      f[j].size * 8);
	}
	if (o >= PROBE_ARGS_MAX)
		return -1;
	memcpy(buf[1], buf[0], o + 1);
	/* prevload: p->se.cfs_rq->rq->cfs.avg.load_avg, two pointers deep */
	if (f[5].ptr && !sr_btf_member(BTF_VMLINUX, "cfs_rq", cfs_mem, &cfs_rq, 1) && cfs_rq.ptr &&
	    !sr_btf_member(BTF_VMLINUX, "rq", rq_mem, &rq_load, 1) && rq_load.size == 8 &&
	    !rq_load.ptr)
		snprintf(buf[0] + o, PROBE_ARGS_MAX - o, " prevload=+0x%x(+0x%x(+0x%x(%%di))):u64",
			 rq_load.offset, cfs_rq.offset, f[5].offset);
	return 0;
}
#endif

/* add the select_rq probes where the kernel can; say once why not */
static void add_probes(struct sr_capture *c)
{
#ifdef PROBE_ARGS
	/* the richest definition first, then with less where the kernel refuses */
	const char *args[2][4] = {
		{ PROBE_ARGS PROBE_PID PROBE_PELT PROBE_PREV, PROBE_ARGS PROBE_PID PROBE_PELT,
		  PROBE_ARGS PROBE_PID, PROBE_ARGS },
		{ "cpu=$retval:s32", NULL, NULL, NULL },
	};
	char offargs[3][PROBE_ARGS_MAX];
	int i, k, btf;

	if (no_kprobes(c, "the select_rq probes (wake flags and the kernel's own cpu choice)")) {
#ifdef AFFINITY_UARGS
		add_affinity_uprobe(c);
#endif
		snprintf(c->probes, sizeof(c->probes), "off%s",
			 c->probe[2] ? " affinity uprobe" : "");
		return;
	}
	/*
	 * Try the pid field only where the README shows BTF field access
	 * (6.6+): a definition the kernel refuses leaves a line in error_log.
	 */
	btf = kprobes_take_btf();
	if (!btf && !probe_offsets(offargs)) {
		for (k = 0; k < 3; k++)
			args[0][k] = offargs[k];
		btf = 1;
	}
#ifdef AFFINITY_ARGS
	/*
	 * A hand-made setaffinity probe is used as it is (like the others).
	 */
	c->probe[2] = probe_get(2);
#endif
	for (i = 0; i < 2; i++) {
		c->probe[i] = probe_get(i);
		if (c->probe[i]) {
			/* defined by hand (schedreplay-record(1)): use it, leave it */
			if (i == 0) {
				char *fmt = NULL;

				tracefs_dynevent_info(c->probe[i], NULL, NULL, NULL, NULL, &fmt);
				c->probe_pid = fmt && strstr(fmt, "pid=");
				free(fmt);
			}
			continue;
		}
		for (k = i == 0 && !btf ? 3 : 0; k < 4 && args[i][k] && !c->probe[i]; k++) {
			struct tracefs_dynevent *d;

			d = i == 0 ? tracefs_kprobe_alloc(PROBE_GROUP, probe_name[i], PROBE_FUNC,
							  args[i][k])
				   : tracefs_kretprobe_alloc(PROBE_GROUP, probe_name[i], PROBE_FUNC,
							     args[i][k], 0);
			if (d && tracefs_dynevent_create(d) == 0) {
				c->probe[i] = d;
				c->own_probe[i] = 1;
				if (i == 0)
					c->probe_pid = k < 3;
			} else {
				tracefs_dynevent_free(d);
			}
		}
		if (!c->probe[i]) {
			char *dummy = NULL;

			note(c, "cannot add a kprobe on %s (%s): recording without the select_rq "
			     "probes", PROBE_FUNC, strerror(errno ? errno : EINVAL));
			destroy_probes(c, &dummy);
			free(dummy);
			snprintf(c->probes, sizeof(c->probes), "off");
			return;
		}
	}
	add_affinity_probe(c);
	snprintf(c->probes, sizeof(c->probes), "on pid %d affinity %d", c->probe_pid,
		 c->probe[2] != NULL);
#else
	snprintf(c->probes, sizeof(c->probes), "off");
	note(c, "the select_rq probes are supported on x86_64 only: recording without them");
#endif
}

#if defined(__x86_64__)
#define BAL_ARGS_MAX 256
/*
 * The balance probes' definitions: def[0..3] for newidle, newidle_ret,
 * balance_rq, balance_rq_ret.  The fields behind a pointer come from the
 * kernel's BTF; without it, the newidle probe has no fields (its cpu is the
 * event's) and balance_rq no level.
 */
static void balance_args(char def[4][BAL_ARGS_MAX])
{
	static const char *const rq_mem[] = { "cpu", "avg_idle", "sd" };
	static const char *const sd_mem[] = { "max_newidle_lb_cost", "level", "newidle_ratio",
					      "parent" };
	struct sr_btf_field rq[3], sd[4];
	int have_rq = !sr_btf_member(BTF_VMLINUX, "rq", rq_mem, rq, 3);
	int have_sd = !sr_btf_member(BTF_VMLINUX, "sched_domain", sd_mem, sd, 4);
	size_t o = 0;

	def[0][0] = 0;
	if (have_rq && rq[0].size == 4 && !rq[0].ptr)
		o += (size_t)snprintf(def[0] + o, BAL_ARGS_MAX - o, "cpu=+0x%x(%%di):s32 ",
				      rq[0].offset);
	if (have_rq && rq[1].size == 8 && !rq[1].ptr)
		o += (size_t)snprintf(def[0] + o, BAL_ARGS_MAX - o, "avg_idle=+0x%x(%%di):u64 ",
				      rq[1].offset);
	if (have_rq && have_sd && rq[2].ptr && sd[0].size == 8 && !sd[0].ptr)
		o += (size_t)snprintf(def[0] + o, BAL_ARGS_MAX - o,
				      "cost=+0x%x(+0x%x(%%di)):u64 ", sd[0].offset, rq[2].offset);
	/*
	 * NI_RANDOM's odds (sched_balance_newidle() of v6.19 and the stable
	 * kernels with "Proportional newidle balance", Debian 6.1.192 and
	 * 6.12.117): sd->newidle_ratio of the lowest domain and of its
	 * parent, where the kernel has the member
	 */
	if (have_rq && have_sd && rq[2].ptr && sd[2].size == 4 && !sd[2].ptr) {
		o += (size_t)snprintf(def[0] + o, BAL_ARGS_MAX - o,
				      "ratio=+0x%x(+0x%x(%%di)):u32 ", sd[2].offset, rq[2].offset);
		if (sd[3].ptr)
			o += (size_t)snprintf(def[0] + o, BAL_ARGS_MAX - o,
					      "pratio=+0x%x(+0x%x(+0x%x(%%di))):u32 ",
					      sd[2].offset, sd[3].offset, rq[2].offset);
	}
	if (o)
		def[0][o - 1] = 0;
	snprintf(def[1], BAL_ARGS_MAX, "ret=$retval:s32");
	if (have_sd && sd[1].size == 4 && !sd[1].ptr)
		snprintf(def[2], BAL_ARGS_MAX, "cpu=%%di:s32 idle=%%cx:s32 level=+0x%x(%%dx):s32",
			 sd[1].offset);
	else
		snprintf(def[2], BAL_ARGS_MAX, "cpu=%%di:s32 idle=%%cx:s32");
	snprintf(def[3], BAL_ARGS_MAX, "moved=$retval:s32");
}

/* remove the balance probes this recorder added (after a partial failure) */
static void destroy_balance_probes(struct sr_capture *c)
{
	int i;

	for (i = IN_FIRST - 1; i >= BAL_FIRST; i--) {
		if (!c->probe[i])
			continue;
		if (c->own_probe[i] && tracefs_dynevent_destroy(c->probe[i], false) < 0)
			note(c, "cannot remove the probe event %s/%s: %s; remove it with: "
			     "echo '-:%s/%s' >> %s/kprobe_events", PROBE_GROUP, probe_name[i],
			     strerror(errno), PROBE_GROUP, probe_name[i], c->tracing_dir);
		tracefs_dynevent_free(c->probe[i]);
		c->probe[i] = NULL;
		c->own_probe[i] = 0;
	}
}
#endif

/*
 * --balance-probes: the newidle balance and load_balance, entry and
 * return, on whichever name the kernel has (sched_balance_newidle and
 * sched_balance_rq from 6.10; Debian's 6.1.192 has the first, not the
 * second).  All four or none: a note says why none.
 */
static void add_balance_probes(struct sr_capture *c)
{
#if defined(__x86_64__)
	static const char *const func[2][2] = {
		{ "sched_balance_newidle", "newidle_balance" },
		{ "sched_balance_rq", "load_balance" },
	};
	char def[4][BAL_ARGS_MAX];
	const char *used[2] = { NULL, NULL };
	int i, k;

	if (no_kprobes(c, "the balance probes"))
		return;
	balance_args(def);
	for (i = BAL_FIRST; i < IN_FIRST; i++) {
		int f = (i - BAL_FIRST) / 2, ret = probe_type[i] == TRACEFS_DYNEVENT_KRETPROBE;

		c->probe[i] = probe_get(i);
		if (c->probe[i])
			continue;	/* defined by hand: use it, leave it */
		for (k = 0; k < 2 && !c->probe[i]; k++) {
			struct tracefs_dynevent *d;

			if (used[f] && strcmp(used[f], func[f][k]))
				continue;	/* the return probe goes where the entry went */
			d = ret ? tracefs_kretprobe_alloc(PROBE_GROUP, probe_name[i], func[f][k],
							  def[i - BAL_FIRST], 0)
				: tracefs_kprobe_alloc(PROBE_GROUP, probe_name[i], func[f][k],
						       def[i - BAL_FIRST][0] ? def[i - BAL_FIRST]
									     : NULL);
			if (d && tracefs_dynevent_create(d) == 0) {
				c->probe[i] = d;
				c->own_probe[i] = 1;
				used[f] = func[f][k];
			} else {
				tracefs_dynevent_free(d);
			}
		}
		if (!c->probe[i]) {
			note(c, "cannot add a kprobe on %s or %s (%s): recording without the "
			     "balance probes", func[f][0], func[f][1], strerror(errno ? errno : EINVAL));
			destroy_balance_probes(c);
			return;
		}
	}
	c->balance = 1;
#else
	note(c, "the balance probes are supported on x86_64 only: recording without them");
#endif
}

#if defined(__x86_64__)
/*
 * The address of @sym in /proc/kallsyms (a data symbol: listed only with
 * CONFIG_KALLSYMS_ALL, and as 0 where kptr_restrict hides addresses).
 * Return: 0 and *@addr, or -1 when the symbol is not there.
 */
static int kallsyms_addr(const char *text, const char *sym, unsigned long long *addr)
{
	size_t n = strlen(sym);
	const char *l, *name;

	/* "ADDR T NAME[\t[module]]" a line; no sscanf(): it takes strlen() of the rest */
	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;
		unsigned long long a = strtoull(l, &end, 16);

		if (end == l || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		if (!strncmp(name, sym, n) && (name[n] == '\n' || name[n] == '\t' || !name[n]) && a) {
			*addr = a;
			return 0;
		}
	}
	return -1;
}

/*
 * rqstat's definition: for every CPU i the six members of rq(i) at
 * +ADDR(@__per_cpu_offset+8i), ADDR being &runqueues plus the member's
 * offset in struct rq (from the BTF; 6.1's util_est is a struct whose
 * .enqueued the slow path reads), and, where the kernel has SIS_UTIL's
 * hint (6.0+), the nr_idle_scan of the CPU's sd_llc_shared, a per-CPU
 * pointer (select_idle_cpu() reads the target's).  Return: 0, or -1 with
 * *@why set.
 */
static int rqstat_args(int ncpus, char *buf, size_t size, const char **why)
{
	static const char *const mem[] = { "cfs.avg.load_avg", "cfs.avg.util_avg",
					   "cfs.avg.runnable_avg", "cfs.avg.util_est",
					   "nr_running", "ttwu_pending" };
	static const char *const name[] = { "load", "util", "run", "ue", "nr", "ttwu" };
	static const char *const ue_old[] = { "cfs.avg.util_est.enqueued" };
	static const char *const sds_mem[] = { "nr_idle_scan" };
	struct sr_btf_field f[6], scan;
	unsigned long long rq = 0, sds = 0;
	char *ks;
	size_t o = 0;
	int i, j, have, nf;

	if (sr_btf_member(BTF_VMLINUX, "rq", mem, f, 6)) {
		*why = "no struct rq in " BTF_VMLINUX;
		return -1;
	}
	if (!f[3].size && sr_btf_member(BTF_VMLINUX, "rq", ue_old, &f[3], 1))
		f[3].size = 0;
	for (j = 0; j < 6; j++)
		if (f[j].ptr || (f[j].size != 4 && f[j].size != 8)) {
			*why = "struct rq lacks a member it reads";
			return -1;
		}
	ks = sr_read_file("/proc/kallsyms", NULL);
	have = ks && !kallsyms_addr(ks, "runqueues", &rq) &&
	       !kallsyms_addr(ks, "__per_cpu_offset", &sds);
	sds = 0;
	if (have && (sr_btf_member(BTF_VMLINUX, "sched_domain_shared", sds_mem, &scan, 1) ||
		     scan.size != 4 || kallsyms_addr(ks, "sd_llc_shared", &sds)))
		sds = 0;
	free(ks);
	if (!have) {
		*why = "/proc/kallsyms lists no runqueues or __per_cpu_offset "
		       "(CONFIG_KALLSYMS_ALL, kptr_restrict)";
		return -1;
	}
	nf = sds ? 7 : 6;
	if (ncpus * nf > RQSTAT_MAX_FIELDS) {
		*why = "more CPUs than the 128 fields of a probe event hold";
		return -1;
	}
	/* kstrtol() reads an offset: a signed decimal */
	for (i = 0; i < ncpus && o < size; i++) {
		for (j = 0; j < 6 && o < size; j++)
			o += (size_t)snprintf(buf + o, size - o, "%sc%d%s=%+lld(@__per_cpu_offset+%d):u%u",
					      o ? " " : "", i, name[j],
					      (long long)(rq + f[j].offset), 8 * i, f[j].size * 8);
		if (sds && o < size)
			o += (size_t)snprintf(buf + o, size - o,
					      " c%dscan=+%u(%+lld(@__per_cpu_offset+%d)):s32", i,
					      scan.offset, (long long)sds, 8 * i);
	}
	if (o >= size) {
		*why = "its definition is longer than the kernel takes";
		return -1;
	}
	return 0;
}

/*
 * cfs_pelt's definitions: def[0] with BTF arguments (6.6+), def[1] at
 * offsets from the BTF.  Return: the number of definitions (0: none).
 */
#define IN_ARGS_MAX 384
static int cfs_pelt_args(int btf, char def[2][IN_ARGS_MAX])
{
	static const char *const cfs_mem[] = { "rq", "avg.last_update_time", "avg.load_avg",
					       "avg.util_avg", "avg.runnable_avg" };
	static const char *const rq_mem[] = { "cpu" };
	struct sr_btf_field f[5], cpu;
	int n = 0, j;

	if (btf)
		snprintf(def[n++], IN_ARGS_MAX, "now=now:u64 cfs=cfs_rq:x64 rq=cfs_rq->rq:x64 "
			 "cpu=cfs_rq->rq->cpu:s32 lut=cfs_rq->avg.last_update_time:u64 "
			 "load=cfs_rq->avg.load_avg:u64 util=cfs_rq->avg.util_avg:u64 "
			 "runnable=cfs_rq->avg.runnable_avg:u64");
	if (sr_btf_member(BTF_VMLINUX, "cfs_rq", cfs_mem, f, 5) ||
	    sr_btf_member(BTF_VMLINUX, "rq", rq_mem, &cpu, 1) || !f[0].ptr || cpu.size != 4)
		return n;
	for (j = 1; j < 5; j++)
		if (f[j].size != 8 || f[j].ptr)
			return n;
	snprintf(def[n++], IN_ARGS_MAX, "now=%%di:u64 cfs=%%si:x64 rq=+0x%x(%%si):x64 "
		 "cpu=+0x%x(+0x%x(%%si)):s32 lut=+0x%x(%%si):u64 load=+0x%x(%%si):u64 "
		 "util=+0x%x(%%si):u64 runnable=+0x%x(%%si):u64", f[0].offset, cpu.offset,
		 f[0].offset, f[1].offset, f[2].offset, f[3].offset, f[4].offset);
	return n;
}
#endif

/*
 * --input-probes: rqstat and cfs_pelt, each where the kernel can (one
 * note says why not); hand-made ones of these names are used as they are
 * and left in place
 */
static void add_input_probes(struct sr_capture *c)
{
#if defined(__x86_64__)
	static char rq_args[RQSTAT_ARGS_MAX];
	char def[2][IN_ARGS_MAX];
	const char *why = NULL;
	struct tracefs_dynevent *d;
	int i, k, n, btf;

	snprintf(c->input, sizeof(c->input), "off");
	if (no_kprobes(c, "the input probes"))
		return;
	btf = kprobes_take_btf();
	for (i = IN_FIRST; i < NPROBES; i++) {
		c->probe[i] = probe_get(i);
		if (c->probe[i])
			continue;	/* defined by hand: use it, leave it */
		if (i == IN_FIRST) {
			if (rqstat_args(c->ncpus, rq_args, sizeof(rq_args), &why) < 0) {
				note(c, "cannot define the rqstat probe: %s; recording without it",
				     why);
				continue;
			}
			d = tracefs_kprobe_alloc(PROBE_GROUP, probe_name[i], RQSTAT_FUNC, rq_args);
			if (d && tracefs_dynevent_create(d) == 0) {
				c->probe[i] = d;
				c->own_probe[i] = 1;
				continue;
			}
			tracefs_dynevent_free(d);
			note(c, "cannot add a kprobe on %s (%s): recording without the rqstat probe",
			     RQSTAT_FUNC, strerror(errno ? errno : EINVAL));
			continue;
		}
		n = cfs_pelt_args(btf, def);
		for (k = 0; k < n && !c->probe[i]; k++) {
			d = tracefs_kprobe_alloc(PROBE_GROUP, probe_name[i], CFS_PELT_FUNC, def[k]);
			if (d && tracefs_dynevent_create(d) == 0) {
				c->probe[i] = d;
				c->own_probe[i] = 1;
			} else {
				tracefs_dynevent_free(d);
			}
		}
		if (!c->probe[i])
			note(c, "cannot add a kprobe on %s (%s): recording without the cfs_pelt probe",
			     CFS_PELT_FUNC, n ? strerror(errno ? errno : EINVAL)
					      : "no struct cfs_rq members in " BTF_VMLINUX);
	}
	snprintf(c->input, sizeof(c->input), "%s%s%s", c->probe[IN_FIRST] ? "rqstat" : "",
		 c->probe[IN_FIRST] && c->probe[IN_FIRST + 1] ? " " : "",
		 c->probe[IN_FIRST + 1] ? "cfs_pelt" : "");
	if (!c->input[0])
		snprintf(c->input, sizeof(c->input), "off");
#else
	snprintf(c->input, sizeof(c->input), "off");
	note(c, "the input probes are supported on x86_64 only: recording without them");
#endif
}

/* ------------------------------------------------------------- events ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int have_event(const struct sr_lines *l, const char *sys, const char *ev)
{
	size_t i, n = strlen(sys);

	for (i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], sys, n) && l->v[i][n] == ':' && !strcmp(l->v[i] + n + 1, ev))
			return 1;
	return 0;
}

static int enable_one(struct sr_capture *c, const char *sys, const char *ev, char **cause)
{
	if (have_event(&c->events, sys, ev))
		return 0;
	if (tracefs_event_file_write(c->inst, sys, ev, "enable", "1") < 0)
		return sr_cause_set(cause, "cannot enable %s:%s in the tracing instance: %s", sys,
				    ev, strerror(errno)), -SR_E_IO;
	return sr_lines_add(&c->events, "%s:%s", sys, ev);
}

/* -e SYSTEM:EVENT, SYSTEM/EVENT or SYSTEM, with shell globs */
static int enable_spec(struct sr_capture *c, const char *spec, char **cause)
{
	char sys_pat[128], ev_pat[128], **systems, **events;
	const char *sep = strpbrk(spec, ":/");
	int s, e, found = 0, ret = 0;

	if (sep) {
		snprintf(sys_pat, sizeof(sys_pat), "%.*s", (int)(sep - spec), spec);
		snprintf(ev_pat, sizeof(ev_pat), "%s", *sep && sep[1] ? sep + 1 : "*");
	} else {
		snprintf(sys_pat, sizeof(sys_pat), "%s", spec);
		snprintf(ev_pat, sizeof(ev_pat), "*");
	}
	systems = tracefs_event_systems(c->tracing_dir);
	for (s = 0; systems && systems[s] && !ret; s++) {
		if (fnmatch(sys_pat, systems[s], 0) || !strcmp(systems[s], "ftrace"))
			continue;
		events = tracefs_system_events(c->tracing_dir, systems[s]);
		for (e = 0; events && events[e] && !ret; e++) {
			if (fnmatch(ev_pat, events[e], 0) ||
			    !tracefs_event_file_exists(c->inst, systems[s], events[e], "enable"))
				continue;
			found++;
			ret = enable_one(c, systems[s], events[e], cause);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	if (!ret && !found)
		return sr_cause_set(cause, "no event on this kernel matches '-e %s'", spec),
		       -SR_E_USAGE;
	return ret;
}

static int enable_events(struct sr_capture *c, const struct sr_capture_opts *o, char **cause)
{
	char missing[256] = "";
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]) && !ret; i++) {
		if (!tracefs_event_file_exists(c->inst, "sched", default_events[i], "enable")) {
			if (i < NREQUIRED)
				return sr_cause_set(cause, "this kernel has no sched:%s event",
						    default_events[i]), -SR_E_UNSUPPORTED;
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? ", " : "", default_events[i]);
			continue;
		}
		ret = enable_one(c, "sched", default_events[i], cause);
	}
	if (missing[0])
		note(c, "events this kernel does not have, recorded without them: %s", missing);
	for (i = 0; i < (size_t)o->nevents && !ret; i++)
		ret = enable_spec(c, o->events[i], cause);
	return ret;
}

static int enable_probes(struct sr_capture *c, char **cause)
{
	int i, ret = 0;

	for (i = 0; i < NPROBES && !ret; i++)
		if (c->probe[i])
			ret = enable_one(c, PROBE_GROUP, probe_name[i], cause);
	return ret;
}

/* ------------------------------------------------------------ readers ---- */

int sr_tmpfile(const char *dir)
{
	char *name = NULL;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (asprintf(&name, "%s/.schedreplay-XXXXXX", dir) < 0)
		return -1;
	fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

static void reader_fail(struct reader *r, const char *what, int err)
{
	struct sr_capture *c = r->c;
	int zero = 0;

	r->what = what;
	r->err = err ? err : EIO;
	if (atomic_compare_exchange_strong(&c->failed, &zero, r->cpu + 1))
		pthread_kill(c->main, SIGUSR1);
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct sr_capture *c = r->c;
	char *buf = malloc((size_t)c->page_size);
	sigset_t all;
	int n;

	sigfillset(&all);
	sigdelset(&all, SIGUSR2);	/* the nudge out of a blocked splice */
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	if (!buf) {
		reader_fail(r, "allocate", ENOMEM);
		return NULL;
	}
	while (!atomic_load(&c->stopping)) {
		n = tracefs_cpu_buffered_read(r->tcpu, buf, !c->blocking);
		if (n > 0) {
			if (sr_write_all(r->out_fd, buf, (size_t)n) < 0) {
				reader_fail(r, "write", errno);
				break;
			}
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR && errno != 0) {
			reader_fail(r, "read", errno);
			break;
		}
		if (!c->blocking)
			nap();
	}
	/* tracing is off: what is left, full pages and the partial last one */
	while (!r->err && (n = tracefs_cpu_flush(r->tcpu, buf)) > 0)
		if (sr_write_all(r->out_fd, buf, (size_t)n) < 0)
			reader_fail(r, "write", errno);
	free(buf);
	return NULL;
}

static void nudge(int sig)
{
	(void)sig;
}

static int start_readers(struct sr_capture *c, const char *tmpdir, char **cause)
{
	struct sigaction sa;
	int cpu;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nudge;		/* no SA_RESTART: interrupts splice */
	sigaction(SIGUSR2, &sa, NULL);
	c->r = calloc((size_t)c->ncpus, sizeof(*c->r));
	if (!c->r)
		return -SR_E_NOMEM;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		c->r[cpu].raw_fd = c->r[cpu].out_fd = -1;
		c->r[cpu].c = c;
		c->r[cpu].cpu = cpu;
	}
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct reader *r = &c->r[cpu];
		char path[64];
		int e;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		r->raw_fd = tracefs_instance_file_open(c->inst, path, O_RDONLY | O_CLOEXEC);
		if (r->raw_fd < 0)
			continue;	/* an offline cpu: no data */
		r->out_fd = sr_tmpfile(tmpdir);
		if (r->out_fd < 0)
			return sr_cause_set(cause, "cannot create a temporary file in '%s': %s",
					    tmpdir, strerror(errno)), -SR_E_IO;
		r->tcpu = tracefs_cpu_alloc_fd(r->raw_fd, c->page_size, false);
		if (!r->tcpu)
			return -SR_E_NOMEM;
		e = pthread_create(&r->thread, NULL, reader_main, r);
		if (e)
			return sr_cause_set(cause, "cannot start a reader thread: %s", strerror(e)),
			       -SR_E_NOMEM;
		r->running = 1;
	}
	return 0;
}

static void stop_readers(struct sr_capture *c)
{
	int cpu;

	atomic_store(&c->stopping, 1);
	for (cpu = 0; c->r && cpu < c->ncpus; cpu++)
		if (c->r[cpu].running)
			tracefs_cpu_stop(c->r[cpu].tcpu);
	for (cpu = 0; c->r && cpu < c->ncpus; cpu++) {
		struct reader *r = &c->r[cpu];
		struct timespec ts;
		int tries;

		if (!r->running)
			continue;
		/*
		 * Kernels before 6.1 cannot wake a reader blocked in the kernel
		 * from user space; a signal does.
		 */
		for (tries = 0; tries < 50; tries++) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			if (pthread_timedjoin_np(r->thread, NULL, &ts) == 0)
				break;
			pthread_kill(r->thread, SIGUSR2);
		}
		if (tries == 50)
			pthread_join(r->thread, NULL);
		r->running = 0;
	}
}

static void close_readers(struct sr_capture *c)
{
	int cpu;

	for (cpu = 0; c->r && cpu < c->ncpus; cpu++) {
		struct reader *r = &c->r[cpu];

		if (r->tcpu) {
			tracefs_cpu_free_fd(r->tcpu);
			r->tcpu = NULL;
		}
		if (r->raw_fd >= 0) {
			close(r->raw_fd);
			r->raw_fd = -1;
		}
	}
}

/* ------------------------------------------------------------ the rest ---- */

static int count_cpus(struct sr_capture *c)
{
	char *dir = tracefs_instance_get_file(c->inst, "per_cpu");
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "cpu", 3) && atoi(de->d_name + 3) >= n)
			n = atoi(de->d_name + 3) + 1;
	if (d)
		closedir(d);
	return n;
}

/* sub-buffer size and the kernel's long, from the instance's header_page */
static int page_geometry(struct sr_capture *c, char **cause)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int len = 0, ret = 0;

	if (!tep)
		return -SR_E_NOMEM;
	buf = tracefs_instance_file_read(c->inst, "events/header_page", &len);
	if (!buf)
		buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!buf || tep_parse_header_page(tep, buf, (unsigned long)len, sizeof(long)) < 0) {
		sr_cause_set(cause, "cannot read the ring buffer's page header (events/header_page)");
		ret = -SR_E_UNSUPPORTED;
	} else {
		c->page_size = tep_get_sub_buffer_size(tep);
		c->kernel_long = tep_get_header_page_size(tep);
		if (c->page_size <= 0)
			c->page_size = getpagesize();
		if (c->kernel_long != 4 && c->kernel_long != 8)
			c->kernel_long = (int)sizeof(long);
	}
	free(buf);
	tep_free(tep);
	return ret;
}

static void selected_clock(const char *file, char *buf, size_t len)
{
	const char *open = file ? strchr(file, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;

	if (open && close && (size_t)(close - open - 1) < len)
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(buf, len, "local");
}

int sr_capture_new(const struct sr_capture_opts *o, sr_capture_note_fn notefn,
		   struct sr_capture **out, char **cause)
{
	struct sr_capture *c = calloc(1, sizeof(*c));
	char *clock;
	int ret;

	*out = c;
	if (!c)
		return -SR_E_NOMEM;
	c->note = notefn;
	c->lock_fd = c->marker_fd = -1;
	c->main = pthread_self();
	/* libtracefs's warnings go through libtraceevent's printer: keep them quiet */
	tracefs_set_loglevel(TEP_LOG_NONE);
	ret = find_tracefs(c, cause);
	if (!ret)
		ret = take_lock(c, cause);
	if (ret)
		return ret;

	if (tracefs_instance_exists(INSTANCE)) {
		struct tracefs_instance *stale = tracefs_instance_alloc(NULL, INSTANCE);

		note(c, "removing the tracing instance '%s' left by a recorder that was killed",
		     INSTANCE);
		if (!stale)
			return -SR_E_NOMEM;
		tracefs_trace_off(stale);
		tracefs_instance_file_write(stale, "events/enable", "0");
		remove_stale_probes(c);
		if (tracefs_instance_destroy(stale) < 0) {
			char *dir = tracefs_instance_get_dir(stale);

			sr_cause_set(cause, "cannot remove the stale tracing instance: %s (is "
				     "something reading it?); remove it with: rmdir %s",
				     strerror(errno), dir ? dir : INSTANCE);
			tracefs_put_tracing_file(dir);
			tracefs_instance_free(stale);
			return -SR_E_IO;
		}
		tracefs_instance_free(stale);
	}

	c->inst = tracefs_instance_create(INSTANCE);
	if (!c->inst)
		return sr_cause_set(cause, "cannot create the tracing instance '%s': %s", INSTANCE,
				    strerror(errno)), -SR_E_IO;
	if (!tracefs_instance_is_new(c->inst)) {
		/* not ours: never remove it */
		tracefs_instance_free(c->inst);
		c->inst = NULL;
		return sr_cause_set(cause, "the tracing instance '%s' appeared while starting",
				    INSTANCE), -SR_E_IO;
	}
	if (tracefs_trace_off(c->inst) < 0)
		return sr_cause_set(cause, "cannot stop tracing in the new instance: %s",
				    strerror(errno)), -SR_E_IO;
	if (tracefs_instance_set_buffer_size(c->inst, o->buffer_kb, -1) < 0)
		return sr_cause_set(cause, "cannot allocate %zu KB of ring buffer per cpu: %s",
				    o->buffer_kb, strerror(errno)), -SR_E_IO;
	c->blocking = tracefs_file_exists(c->inst, "buffer_percent") &&
		      tracefs_instance_file_write(c->inst, "buffer_percent", BUFFER_PERCENT) > 0;
	clock = tracefs_instance_file_read(c->inst, "trace_clock", NULL);
	selected_clock(clock, c->clock, sizeof(c->clock));
	free(clock);

	c->ncpus = count_cpus(c);
	if (c->ncpus <= 0)
		return sr_cause_set(cause, "the tracing instance has no per_cpu buffers"),
		       -SR_E_UNSUPPORTED;
	ret = page_geometry(c, cause);
	if (ret)
		return ret;
	ret = enable_events(c, o, cause);
	if (ret)
		return ret;
	if (o->probes)
		add_probes(c);
	else
		snprintf(c->probes, sizeof(c->probes), "off");
	if (o->balance_probes)
		add_balance_probes(c);
	if (o->input_probes)
		add_input_probes(c);
	else
		snprintf(c->input, sizeof(c->input), "off");
	ret = enable_probes(c, cause);
	if (ret)
		return ret;
	return start_readers(c, o->tmpdir, cause);
}

int sr_capture_on(struct sr_capture *c, char **cause)
{
	c->marker_fd = tracefs_instance_file_open(c->inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	if (tracefs_trace_on(c->inst) < 0)
		return sr_cause_set(cause, "cannot start tracing in the instance: %s",
				    strerror(errno)), -SR_E_IO;
	return 0;
}

int sr_capture_mark(struct sr_capture *c, const char *line)
{
	size_t n = strlen(line);

	if (c->marker_fd < 0)
		return -SR_E_IO;
	/* one write, one print event; older kernels keep 1 KB of it */
	if (n > 1000)
		n = 1000;
	while (write(c->marker_fd, line, n) < 0)
		if (errno != EINTR)
			return -SR_E_IO;
	return 0;
}

int sr_capture_failed(struct sr_capture *c, char **cause)
{
	int cpu = atomic_load(&c->failed) - 1;

	if (cpu < 0)
		return 0;
	if (!c->fail_reported) {
		c->fail_reported = 1;
		sr_cause_set(cause, "the reader of cpu %d failed to %s: %s", cpu,
			     c->r[cpu].what ? c->r[cpu].what : "read", strerror(c->r[cpu].err));
	}
	return -SR_E_IO;
}

/* ------------------------------------------------------------ collect ---- */

static int blob_file(struct sr_blob *b, const char *name, char *data, int len)
{
	if (!data)
		return -1;
	b->data = data;
	b->len = (size_t)len;
	b->name = name ? strdup(name) : NULL;
	return 0;
}

static int collect_system(struct sr_capture *c, struct sr_tdw *w, const char *sys,
			  char **names, size_t n)
{
	struct sr_tdw_system *ns = realloc(w->systems, (w->nsystems + 1) * sizeof(*ns)), *s;
	size_t i;

	if (!ns)
		return -SR_E_NOMEM;
	w->systems = ns;
	s = &ns[w->nsystems++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(sys);
	s->events = calloc(n ? n : 1, sizeof(*s->events));
	if (!s->name || !s->events)
		return -SR_E_NOMEM;
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		int len = 0;
		char *f = tracefs_event_file_read(c->inst, sys, names[i], "format", &len);

		if (!f)
			continue;	/* a format that cannot be read: skip the event */
		blob_file(&s->events[s->n++], names[i], f, len);
	}
	return 0;
}

static int collect_formats(struct sr_capture *c, struct sr_tdw *w)
{
	char **sched, **ftrace, **names = NULL;
	size_t i, j, n;
	int ret = 0;

	/* ftrace's own events (print carries our metadata) */
	ftrace = tracefs_system_events(c->tracing_dir, "ftrace");
	for (n = 0; ftrace && ftrace[n]; n++)
		;
	if (n)
		qsort(ftrace, n, sizeof(*ftrace), cmp_str);
	w->ftrace = calloc(n ? n : 1, sizeof(*w->ftrace));
	if (!w->ftrace) {
		tracefs_list_free(ftrace);
		return -SR_E_NOMEM;
	}
	for (i = 0; i < n; i++) {
		int len = 0;
		char *f = tracefs_event_file_read(NULL, "ftrace", ftrace[i], "format", &len);

		if (f)
			blob_file(&w->ftrace[w->nftrace++], ftrace[i], f, len);
	}
	tracefs_list_free(ftrace);

	/* every sched event, and the other enabled events by system */
	sched = tracefs_system_events(c->tracing_dir, "sched");
	for (n = 0; sched && sched[n]; n++)
		;
	ret = collect_system(c, w, "sched", sched, n);
	tracefs_list_free(sched);
	names = calloc(c->events.n + 1, sizeof(*names));
	if (!names)
		return -SR_E_NOMEM;
	for (i = 0; i < c->events.n && !ret; i++) {
		const char *e = c->events.v[i], *colon = strchr(e, ':');
		size_t slen = (size_t)(colon - e);
		int seen = 0;

		if (!strncmp(e, "sched:", 6))
			continue;
		for (j = 0; j < i; j++)
			if (!strncmp(c->events.v[j], e, slen + 1))
				seen = 1;
		if (seen)
			continue;
		/* all enabled events of this system */
		for (n = 0, j = i; j < c->events.n; j++)
			if (!strncmp(c->events.v[j], e, slen + 1))
				names[n++] = c->events.v[j] + slen + 1;
		{
			char sys[128];

			snprintf(sys, sizeof(sys), "%.*s", (int)slen, e);
			ret = collect_system(c, w, sys, names, n);
		}
	}
	free(names);
	return ret;
}

int sr_capture_stop(struct sr_capture *c, struct sr_tdw *w, char **cause)
{
	struct utsname u;
	char *s;
	int len = 0, cpu, ret;

	tracefs_trace_off(c->inst);
	stop_readers(c);
	memset(w, 0, sizeof(*w));
	w->ncpus = c->ncpus;
	w->page_size = c->page_size;
	w->kernel_long = c->kernel_long;
	w->cpu_fd = calloc((size_t)c->ncpus, sizeof(*w->cpu_fd));
	w->cpustat = calloc((size_t)c->ncpus, sizeof(*w->cpustat));
	if (!w->cpu_fd || !w->cpustat)
		return -SR_E_NOMEM;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		char path[64], *stats;

		w->cpu_fd[cpu] = c->r[cpu].out_fd;
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		stats = tracefs_instance_file_read(c->inst, path, NULL);
		if (stats) {
			if (asprintf(&w->cpustat[cpu].data, "CPU: %d\n%s", cpu, stats) < 0)
				w->cpustat[cpu].data = NULL;
			else
				w->cpustat[cpu].len = strlen(w->cpustat[cpu].data);
			free(stats);
		}
	}
	ret = sr_capture_failed(c, cause);
	if (ret)
		return ret;

	s = tracefs_instance_file_read(c->inst, "events/header_page", &len);
	if (!s)
		s = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (blob_file(&w->header_page, NULL, s, len) < 0)
		return sr_cause_set(cause, "cannot read events/header_page"), -SR_E_IO;
	s = tracefs_instance_file_read(c->inst, "events/header_event", &len);
	if (!s)
		s = tracefs_instance_file_read(NULL, "events/header_event", &len);
	if (blob_file(&w->header_event, NULL, s, len) < 0)
		return sr_cause_set(cause, "cannot read events/header_event"), -SR_E_IO;
	ret = collect_formats(c, w);
	if (ret)
		return ret;
	s = tracefs_instance_file_read(NULL, "printk_formats", &len);
	if (s)
		blob_file(&w->printk, NULL, s, len);
	s = tracefs_instance_file_read(NULL, "saved_cmdlines", &len);
	if (s)
		blob_file(&w->cmdlines, NULL, s, len);
	w->trace_clock = tracefs_instance_file_read(c->inst, "trace_clock", NULL);
	if (w->trace_clock)
		w->trace_clock[strcspn(w->trace_clock, "\n")] = '\0';
	if (uname(&u) == 0 &&
	    asprintf(&w->uname, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine) < 0)
		w->uname = NULL;
	return 0;
}

/* ------------------------------------------------------------ cleanup ---- */

int sr_capture_cleanup(struct sr_capture *c, char **cause)
{
	int ret = 0, tries;

	if (!c || c->cleaned)
		return 0;
	c->cleaned = 1;
	if (c->inst) {
		tracefs_trace_off(c->inst);
		tracefs_instance_file_write(c->inst, "events/enable", "0");
	}
	stop_readers(c);
	close_readers(c);
	if (c->marker_fd >= 0) {
		close(c->marker_fd);
		c->marker_fd = -1;
	}
	ret = destroy_probes(c, cause);
	if (c->inst) {
		char *dir = tracefs_instance_get_dir(c->inst);
		int err = 0;

		/* someone may be reading one of its files (cat trace_pipe): wait a bit */
		for (tries = 0; dir; tries++) {
			if (rmdir(dir) == 0 || errno == ENOENT) {
				err = 0;
				break;
			}
			err = errno;
			if (err != EBUSY || tries == 40)
				break;
			usleep(50000);
		}
		if (!dir || err) {
			if (!ret)
				sr_cause_set(cause, "cannot remove the tracing instance '%s': %s; "
					     "remove it with: rmdir %s", INSTANCE,
					     strerror(dir ? err : ENOMEM), dir ? dir : INSTANCE);
			ret = -SR_E_IO;
		}
		tracefs_put_tracing_file(dir);
		tracefs_instance_free(c->inst);
		c->inst = NULL;
	}
	/* the lock is a descriptor into tracefs too: last, but before umount */
	if (c->lock_fd >= 0) {
		close(c->lock_fd);
		c->lock_fd = -1;
	}
	if (c->mounted_tracefs) {
		if (umount(c->tracing_dir) < 0)
			note(c, "cannot unmount the tracefs mounted on %s: %s", c->tracing_dir,
			     strerror(errno));
		c->mounted_tracefs = 0;
	}
	return ret;
}

const struct sr_lines *sr_capture_borrow_events(struct sr_capture *c)
{
	return &c->events;
}

const char *sr_capture_probes(struct sr_capture *c)
{
	return c->probes[0] ? c->probes : "off";
}

const char *sr_capture_input_probes(struct sr_capture *c)
{
	return c->input[0] ? c->input : "off";
}

int sr_capture_balance_probes(struct sr_capture *c)
{
	return c->balance;
}

const char *sr_capture_clock(struct sr_capture *c)
{
	return c->clock[0] ? c->clock : "local";
}

void sr_capture_free(struct sr_capture *c)
{
	char *cause = NULL;
	int cpu;

	if (!c)
		return;
	sr_capture_cleanup(c, &cause);
	free(cause);
	for (cpu = 0; c->r && cpu < c->ncpus; cpu++)
		if (c->r[cpu].out_fd >= 0)
			close(c->r[cpu].out_fd);
	free(c->r);
	sr_lines_release(&c->events);
	free(c);
}
