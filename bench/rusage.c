// SPDX-License-Identifier: GPL-2.0
/*
 * Run one command and say what it cost: wall time, CPU time and peak
 * resident set, from fork/exec/wait4, so the benchmark needs no GNU time.
 * The command keeps our stdin/stdout/stderr; the measurement goes to FILE
 * (or stderr) as one line:
 *
 *   <wall s> <user s> <sys s> <max rss KiB> <exit status>
 *
 *   rusage [-o FILE] [--] COMMAND [ARG...]
 * Exits with the command's status (128+signal if it was killed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	const char *outpath = NULL;
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out = stderr;
	int opt, status, code;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o') {
			fprintf(stderr, "usage: rusage [-o FILE] [--] COMMAND [ARG...]\n");
			return 2;
		}
		outpath = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: rusage [-o FILE] [--] COMMAND [ARG...]\n");
		return 2;
	}
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			fprintf(stderr, "rusage: cannot write '%s': %s\n", outpath, strerror(errno));
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "rusage: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(out, "%.6f %.6f %.6f %ld %d\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		secs(&ru.ru_utime), secs(&ru.ru_stime), ru.ru_maxrss, code);
	if (out != stderr && fclose(out)) {
		fprintf(stderr, "rusage: cannot write '%s': %s\n", outpath, strerror(errno));
		return 2;
	}
	return code;
}
