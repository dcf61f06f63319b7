// SPDX-License-Identifier: GPL-2.0
/*
 * What replay needs beyond the sched tracepoints, read from sysfs, procfs
 * and debugfs when the recording starts: kernel release and HZ, CPU
 * topology (in the syntax of the topology file, replay/topology.c), sched
 * domains, sched features and tunables, autogroup, and one line per thread.
 * cmd-record.c writes each line, prefixed "schedreplay: ", through the
 * instance's trace_marker, so the facts travel inside the trace.dat as
 * ftrace print events that every trace.dat tool shows
 * (schedreplay-record(1), METADATA).
 *
 * Everything here is best effort: a fact the kernel does not expose is
 * left out, never guessed.  Values never contain spaces: bytes outside
 * '!'..'~' and the backslash are written as \xHH.
 */
#include "record-local.h"
#include "meta.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "banned.h"

#define META_VERSION	1
#define PF_KTHREAD	0x00200000
#define DEBUGFS		"/sys/kernel/debug"
#define SYSCPU		"/sys/devices/system/cpu"
#define SYSNODE		"/sys/devices/system/node"

extern char **environ;

int sr_lines_add(struct sr_lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		char **nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -SR_E_NOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -SR_E_NOMEM;
	l->v[l->n++] = s;
	return 0;
}

void sr_lines_release(struct sr_lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* a small sysfs/procfs file's first line, without the newline; NULL if absent */
static char *read_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *read_line(const char *fmt, ...)
{
	char path[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	s = sr_read_file(path, NULL);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/*
 * Append one " key value" field to a line of @size bytes holding *@n: a
 * field that does not fit whole is left out (readers ignore missing keys),
 * never cut.
 */
static void lappend(char *line, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void lappend(char *line, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n >= size)
		return;
	va_start(ap, fmt);
	r = vsnprintf(line + *n, size - *n, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= size - *n)
		line[*n] = '\0';
	else
		*n += (size_t)r;
}

/* ---------------------------------------------------------------- HZ ---- */

/* the kernel config: /boot/config-RELEASE, else /proc/config.gz through gzip */
static char *read_config(const char *release)
{
	char path[300], *argv[] = { "gzip", "-dc", "/proc/config.gz", NULL };
	posix_spawn_file_actions_t fa;
	size_t cap = 1 << 16, n = 0;
	char *buf, *nb;
	int pfd[2], status;
	pid_t pid;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	buf = sr_read_file(path, NULL);
	if (buf || access("/proc/config.gz", R_OK))
		return buf;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return NULL;
	if (posix_spawn_file_actions_init(&fa)) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "gzip", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t r;

		if (n == cap) {
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(pfd[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (buf && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* the config options that shape scheduling decisions */
static int sched_config(const char *name)
{
	static const char *const prefixes[] = {
		"CONFIG_HZ", "CONFIG_NO_HZ", "CONFIG_PREEMPT", "CONFIG_SCHED_", "CONFIG_NUMA",
		"CONFIG_FAIR_GROUP_SCHED", "CONFIG_RT_GROUP_SCHED", "CONFIG_CFS_BANDWIDTH",
		"CONFIG_UCLAMP_TASK", "CONFIG_NR_CPUS", "CONFIG_SMP", "CONFIG_CGROUP_SCHED",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int add_config(struct sr_lines *out, const char *config, long *hz)
{
	const char *s = config;
	int ret = 0;

	while (*s && !ret) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		char line[256];

		if (len < sizeof(line) && !strncmp(s, "CONFIG_", 7)) {
			char *eq;

			memcpy(line, s, len);
			line[len] = '\0';
			eq = strchr(line, '=');
			if (eq && !strchr(eq, ' ') && !strchr(eq, '"')) {
				*eq = '\0';
				if (!strcmp(line, "CONFIG_HZ"))
					*hz = strtol(eq + 1, NULL, 10);
				if (sched_config(line))
					ret = sr_lines_add(out, "config %s %s", line, eq + 1);
			}
		}
		s += len;
		if (*s == '\n')
			s++;
	}
	return ret;
}

/* ----------------------------------------------------------- topology ---- */

/* parse a cpu list ("0-3,8") into a bitmap of @n bits; 0 on success */
static int parse_cpulist(const char *s, unsigned char *map, int n)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		for (; a <= b; a++)
			if (a < n)
				map[a] = 1;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

/* the lowest cpu of a list file ("shared_cpu_list"), -1 if unreadable */
static long first_cpu(const char *path)
{
	char *s = sr_read_file(path, NULL);
	long v = -1;

	if (s && isdigit((unsigned char)s[0]))
		v = strtol(s, NULL, 10);
	free(s);
	return v;
}

/* the last-level cache of @cpu, named by the lowest cpu that shares it */
static long llc_of(int cpu)
{
	char path[256];
	long best_level = -1, llc = -1;
	int i;

	for (i = 0; i < 16; i++) {
		char *level, *type;

		level = read_line(SYSCPU "/cpu%d/cache/index%d/level", cpu, i);
		if (!level)
			break;
		type = read_line(SYSCPU "/cpu%d/cache/index%d/type", cpu, i);
		if (type && strcmp(type, "Instruction") && atol(level) > best_level) {
			snprintf(path, sizeof(path), SYSCPU "/cpu%d/cache/index%d/shared_cpu_list",
				 cpu, i);
			best_level = atol(level);
			llc = first_cpu(path);
		}
		free(level);
		free(type);
	}
	return llc;
}

static long node_of(int cpu)
{
	char path[128];
	struct dirent *de;
	long node = -1;
	DIR *d;

	snprintf(path, sizeof(path), SYSCPU "/cpu%d", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]))
			node = strtol(de->d_name + 4, NULL, 10);
	closedir(d);
	return node;
}

static int add_topology(struct sr_lines *out)
{
	char *online = read_line(SYSCPU "/online"), *possible = read_line(SYSCPU "/possible");
	unsigned char *map = NULL;
	int ncpus = 0, cpu, ret = 0;
	struct dirent *de;
	DIR *d;

	if (possible || online)
		ret = sr_lines_add(out, "cpus possible %s online %s", possible ? possible : "-",
				   online ? online : "-");
	d = opendir(SYSCPU);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "cpu", 3) && isdigit((unsigned char)de->d_name[3]) &&
		    atoi(de->d_name + 3) >= ncpus)
			ncpus = atoi(de->d_name + 3) + 1;
	if (d)
		closedir(d);
	if (ncpus > 0)
		map = calloc((size_t)ncpus, 1);
	if (map && online && parse_cpulist(online, map, ncpus) < 0)
		memset(map, 1, (size_t)ncpus);
	else if (map && !online)
		memset(map, 1, (size_t)ncpus);
	for (cpu = 0; map && cpu < ncpus && !ret; cpu++) {
		char *core, *pkg, *cap, *cluster, line[256];
		long llc, node;
		int n;

		if (!map[cpu])
			continue;
		core = read_line(SYSCPU "/cpu%d/topology/core_id", cpu);
		pkg = read_line(SYSCPU "/cpu%d/topology/physical_package_id", cpu);
		cap = read_line(SYSCPU "/cpu%d/cpu_capacity", cpu);
		cluster = read_line(SYSCPU "/cpu%d/topology/cluster_id", cpu);
		llc = llc_of(cpu);
		node = node_of(cpu);
		n = snprintf(line, sizeof(line), "topology cpu %d", cpu);
		if (core && isdigit((unsigned char)core[0]))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " core %s", core);
		if (llc >= 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " llc %ld", llc);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " node %ld", node < 0 ? 0 : node);
		if (pkg && isdigit((unsigned char)pkg[0]))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " package %s", pkg);
		if (cap && isdigit((unsigned char)cap[0]))
			snprintf(line + n, sizeof(line) - (size_t)n, " capacity %s", cap);
		ret = sr_lines_add(out, "%s", line);
		/* x86 says 65535 (BAD_APICID) where it knows no clusters */
		if (!ret && cluster && isdigit((unsigned char)cluster[0]) &&
		    strcmp(cluster, "65535"))
			ret = sr_lines_add(out, "cluster cpu %d id %s", cpu, cluster);
		free(core);
		free(pkg);
		free(cap);
		free(cluster);
	}
	free(map);
	free(online);
	free(possible);

	/* node distances: one row per node, in node order */
	d = opendir(SYSNODE);
	if (d && !ret) {
		int nnodes = 0, node;

		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]) &&
			    atoi(de->d_name + 4) >= nnodes)
				nnodes = atoi(de->d_name + 4) + 1;
		for (node = 0; node < nnodes && !ret; node++) {
			char *dist = read_line(SYSNODE "/node%d/distance", node);

			if (dist)
				ret = sr_lines_add(out, "topology distance %d %s", node, dist);
			free(dist);
		}
	}
	if (d)
		closedir(d);
	return ret;
}

/* ------------------------------------------------------------ domains ---- */

/* "domain cpu N level L name X flags A|B key value..." from one domain dir */
static int add_domain(struct sr_lines *out, const char *dir, int cpu, int level)
{
	char path[600], line[980], *name, *flags;
	struct dirent *de;
	size_t n;
	DIR *d;
	int ret;

	snprintf(path, sizeof(path), "%s/name", dir);
	name = sr_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/flags", dir);
	flags = sr_read_file(path, NULL);
	if (name)
		name[strcspn(name, "\n")] = '\0';
	if (flags) {
		char *p;

		flags[strcspn(flags, "\n")] = '\0';
		/* names separated by spaces (5.10+) or one number: join with '|' */
		for (p = flags; *p; p++)
			if (*p == ' ')
				*p = '|';
		n = strlen(flags);
		while (n && flags[n - 1] == '|')
			flags[--n] = '\0';
	}
	n = 0;
	line[0] = '\0';
	lappend(line, sizeof(line), &n, "domain cpu %d level %d name %s", cpu, level,
		name && *name ? name : "-");
	lappend(line, sizeof(line), &n, " flags %s", flags && *flags ? flags : "-");
	free(name);
	free(flags);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char *v;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "name") ||
		    !strcmp(de->d_name, "flags") || !strcmp(de->d_name, "groups_flags"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		v = sr_read_file(path, NULL);
		if (v) {
			v[strcspn(v, "\n")] = '\0';
			/* the file "level" is sd->level, not the index in the hierarchy */
			if (*v && !strchr(v, ' ') && strlen(v) < 32)
				lappend(line, sizeof(line), &n, " %s %s",
					strcmp(de->d_name, "level") ? de->d_name : "sd_level", v);
		}
		free(v);
	}
	if (d)
		closedir(d);
	ret = sr_lines_add(out, "%s", line);
	return ret;
}

/* debugfs sched/domains (5.13+) or the older sysctl; 1 if any was found */
static int add_domains(struct sr_lines *out, const char *base, int *found)
{
	int cpu, level, ret = 0;

	for (cpu = 0; cpu < 8192 && !ret; cpu++) {
		char dir[256];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/cpu%d", base, cpu);
		if (stat(dir, &st) < 0)
			break;
		for (level = 0; level < 32 && !ret; level++) {
			snprintf(dir, sizeof(dir), "%s/cpu%d/domain%d", base, cpu, level);
			if (stat(dir, &st) < 0)
				break;
			ret = add_domain(out, dir, cpu, level);
			*found = 1;
		}
	}
	return ret;
}

/* one "NAME VALUE" line per file of @dir whose content is one short word */
static int add_tunables(struct sr_lines *out, const char *dir, const char *prefix,
			const char *kind, const char *only)
{
	struct dirent *de;
	char path[512];
	int ret = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) && !ret) {
		struct stat st;
		char *v, *e;

		if (de->d_name[0] == '.' || (only && strncmp(de->d_name, only, strlen(only))))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0444))
			continue;
		v = sr_read_file(path, NULL);
		if (!v)
			continue;
		v[strcspn(v, "\n")] = '\0';
		/* "none voluntary (full) lazy": the mode in parentheses */
		if (!strcmp(de->d_name, "preempt") && (e = strchr(v, '('))) {
			char *c = strchr(e, ')');

			if (c) {
				*c = '\0';
				memmove(v, e + 1, strlen(e + 1) + 1);
			}
		}
		if (*v && !strchr(v, ' ') && !strchr(v, '\t') && strlen(v) < 64)
			ret = sr_lines_add(out, "%s %s%s %s", kind, prefix, de->d_name, v);
		free(v);
	}
	if (d)
		closedir(d);
	return ret;
}

static int add_features(struct sr_lines *out, const char *path)
{
	char *s = sr_read_file(path, NULL), *p, *save = NULL;
	int ret = 0;

	if (!s)
		return 0;
	for (p = strtok_r(s, " \n", &save); p && !ret; p = strtok_r(NULL, " \n", &save))
		ret = sr_lines_add(out, "feature %s", p);
	free(s);
	return ret;
}

static int mounted(const char *type, const char *dir)
{
	char *m = sr_read_file("/proc/self/mounts", NULL), *line, *save = NULL;
	int found = 0;

	if (!m)
		return 0;
	for (line = strtok_r(m, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], fs[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, fs) == 3 && !strcmp(fs, type) &&
		    !strcmp(mnt, dir))
			found = 1;
	}
	free(m);
	return found;
}

int sr_meta_static(struct sr_lines *out, sr_capture_note_fn note)
{
	struct utsname u;
	char *config = NULL, *ag;
	long hz = 0;
	int ret, found = 0, mounted_debugfs = 0;

	ret = sr_lines_add(out, "meta version %d", META_VERSION);
	if (ret)
		return ret;
	if (uname(&u) == 0) {
		config = read_config(u.release);
		if (config) {
			struct sr_lines cfg = { 0 };

			ret = add_config(&cfg, config, &hz);
			free(config);
			if (hz > 0 && !ret)
				ret = sr_lines_add(out, "kernel %s hz %ld", u.release, hz);
			else if (!ret)
				ret = sr_lines_add(out, "kernel %s", u.release);
			if (!ret)
				ret = sr_lines_add(out, "kernel-build %s", u.version);
			if (!ret)
				ret = sr_lines_add(out, "arch %s", u.machine);
			for (size_t i = 0; i < cfg.n && !ret; i++)
				ret = sr_lines_add(out, "%s", cfg.v[i]);
			sr_lines_release(&cfg);
		} else {
			ret = sr_lines_add(out, "kernel %s", u.release);
			if (!ret)
				ret = sr_lines_add(out, "kernel-build %s", u.version);
			if (!ret)
				ret = sr_lines_add(out, "arch %s", u.machine);
		}
	}
	if (!ret)
		ret = add_topology(out);
	if (ret)
		return ret;

	ag = read_line("/proc/sys/kernel/sched_autogroup_enabled");
	ret = sr_lines_add(out, "autogroup %s", ag && isdigit((unsigned char)ag[0]) ? ag : "0");
	free(ag);
	if (!ret)
		ret = add_tunables(out, "/proc/sys/kernel", "kernel.", "sysctl", "sched_");
	if (!ret)
		ret = add_tunables(out, "/proc/sys/kernel", "kernel.", "sysctl", "numa_balancing");
	if (ret)
		return ret;

	/* debugfs: domains, features, tunables; mounted only for this */
	if (!mounted("debugfs", DEBUGFS) && geteuid() == 0) {
		if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL) == 0)
			mounted_debugfs = 1;
		else if (note) {
			char msg[160];

			snprintf(msg, sizeof(msg), "cannot mount debugfs on %s (%s): the file has "
				 "no sched domains and features", DEBUGFS, strerror(errno));
			note(msg);
		}
	}
	ret = add_domains(out, DEBUGFS "/sched/domains", &found);
	if (!ret && !found)
		ret = add_domains(out, "/proc/sys/kernel/sched_domain", &found);
	if (!ret)
		ret = add_features(out, DEBUGFS "/sched/features");
	if (!ret && access(DEBUGFS "/sched/features", R_OK))
		ret = add_features(out, DEBUGFS "/sched_features");
	if (!ret)
		ret = add_tunables(out, DEBUGFS "/sched", "", "tunable", NULL);
	if (mounted_debugfs && umount(DEBUGFS) < 0 && note) {
		char msg[160];

		snprintf(msg, sizeof(msg), "cannot unmount the debugfs mounted on %s: %s", DEBUGFS,
			 strerror(errno));
		note(msg);
	}
	return ret;
}

/* -------------------------------------------------------------- tasks ---- */

struct proc_info {
	long autogroup, agnice;
	char *cgroup;		/* escaped */
};

static void proc_info_read(int pid, struct proc_info *pi)
{
	char *s, *p;

	pi->autogroup = -1;
	pi->agnice = 0;
	pi->cgroup = NULL;
	s = read_line("/proc/%d/autogroup", pid);
	if (s && (p = strstr(s, "autogroup-")))
		sscanf(p, "autogroup-%ld nice %ld", &pi->autogroup, &pi->agnice);
	free(s);
	/* the v1 cpu controller's path (hybrid setups), else the unified one */
	{
		char path[64], *all, *line, *save = NULL, *v1 = NULL, *v2 = NULL;

		snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
		all = sr_read_file(path, NULL);
		for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			char *ctl, *csave = NULL;

			if (!c2)
				continue;
			*c2 = '\0';
			if (!c1[1]) {
				v2 = c2 + 1;
				continue;
			}
			for (ctl = strtok_r(c1 + 1, ",", &csave); ctl; ctl = strtok_r(NULL, ",", &csave))
				if (!strcmp(ctl, "cpu"))
					v1 = c2 + 1;
		}
		if (v1 || v2)
			pi->cgroup = sr_meta_escape(v1 ? v1 : v2);
		free(all);
	}
}

/*
 * One thread: "task pid TID tgid PID comm C kthread K cpus L policy P nice N
 * prio P rtprio R cpu C [autogroup ID agnice N] [cgroup PATH]".
 */
static int task_line(int pid, int tid, const struct proc_info *pi,
		     int (*emit)(void *arg, const char *line), void *arg)
{
	char *stat, *status, *close, *comm, *cpus = NULL, *p, line[980];
	long f[45] = { 0 };
	int nf = 0, ret;
	size_t n;

	stat = read_line("/proc/%d/task/%d/stat", pid, tid);
	if (!stat)
		return 0;		/* gone */
	close = strrchr(stat, ')');
	p = strchr(stat, '(');
	if (!close || !p || close < p) {
		free(stat);
		return 0;
	}
	*close = '\0';
	comm = sr_meta_escape(p + 1);
	/* fields 3.. after the comm; field 3 is the state letter */
	for (p = close + 2; *p && nf < 45;) {
		f[nf] = nf == 0 ? (long)(unsigned char)*p : strtol(p, NULL, 10);
		nf++;
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	{
		char path[128];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
		status = sr_read_file(path, NULL);
	}
	if (status && (p = strstr(status, "\nCpus_allowed_list:"))) {
		p += strlen("\nCpus_allowed_list:");
		while (*p == ' ' || *p == '\t')
			p++;
		cpus = p;
		cpus[strcspn(cpus, "\n")] = '\0';
	}
	/*
	 * f[k - 3] is field k of proc(5): 9 flags, 18 prio (the kernel's less
	 * 100), 19 nice, 39 cpu, 40 rt_priority, 41 policy
	 */
	n = 0;
	line[0] = '\0';
	lappend(line, sizeof(line), &n, "task pid %d tgid %d comm %s kthread %d", tid, pid,
		comm ? comm : "-", nf > 6 && (f[6] & PF_KTHREAD) ? 1 : 0);
	if (cpus && *cpus)
		lappend(line, sizeof(line), &n, " cpus %s", cpus);
	if (nf > 38)
		lappend(line, sizeof(line), &n, " policy %ld nice %ld prio %ld rtprio %ld cpu %ld",
			f[38], f[16], f[15] + 100, f[37], f[36]);
	if (pi->autogroup >= 0)
		lappend(line, sizeof(line), &n, " autogroup %ld agnice %ld", pi->autogroup,
			pi->agnice);
	if (pi->cgroup)
		lappend(line, sizeof(line), &n, " cgroup %s", pi->cgroup);
	free(stat);
	free(status);
	free(comm);
	ret = emit(arg, line);
	return ret < 0 ? ret : 1;
}

int sr_meta_tasks(int (*emit)(void *arg, const char *line), void *arg)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int ntasks = 0, ret = 0;

	if (!proc)
		return 0;
	while (ret >= 0 && (de = readdir(proc))) {
		struct proc_info pi;
		struct dirent *te;
		char path[64];
		DIR *tasks;
		int pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		if (!tasks)
			continue;
		proc_info_read(pid, &pi);
		while (ret >= 0 && (te = readdir(tasks))) {
			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			ret = task_line(pid, atoi(te->d_name), &pi, emit, arg);
			if (ret > 0)
				ntasks++;
		}
		closedir(tasks);
		free(pi.cgroup);
	}
	closedir(proc);
	return ret < 0 ? ret : ntasks;
}
