// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's workload: make the scheduler busy for a trace.  Pairs of
 * processes bounce one byte over two pipes, so every hop is a wakeup and a
 * context switch; every few hundred round trips one side forks a child that
 * exits at once (fork, wakeup_new, exit and free events).  Runs until
 * SIGTERM/SIGINT or -t seconds, then stops and reaps every process it made.
 *
 *   pingpong [-p PAIRS] [-f FORK_EVERY] [-t SECONDS]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* one side of a pair: read a byte, send it back; the pinger also forks */
static void bounce(int rfd, int wfd, int serve, long fork_every)
{
	unsigned long n = 0;
	char c = 'x';

	/* the pair must not outlive the benchmark if the parent is killed */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(0);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (serve && write(wfd, &c, 1) != 1)
		_exit(1);
	for (;;) {
		if (read(rfd, &c, 1) != 1)
			_exit(0);
		if (write(wfd, &c, 1) != 1)
			_exit(0);
		if (serve && fork_every > 0 && ++n % fork_every == 0) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	}
}

int main(int argc, char **argv)
{
	long pairs = 2, fork_every = 200, seconds = 0;
	sigset_t mask, old;
	pid_t *pids;
	int opt, i;

	while ((opt = getopt(argc, argv, "p:f:t:")) != -1) {
		switch (opt) {
		case 'p':
			pairs = strtol(optarg, NULL, 10);
			break;
		case 'f':
			fork_every = strtol(optarg, NULL, 10);
			break;
		case 't':
			seconds = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: pingpong [-p PAIRS] [-f FORK_EVERY] [-t SECONDS]\n");
			return 2;
		}
	}
	if (pairs < 1 || pairs > 1024) {
		fprintf(stderr, "pingpong: invalid pair count %ld (1..1024)\n", pairs);
		return 2;
	}
	pids = calloc(2 * pairs, sizeof(*pids));
	if (!pids)
		die("calloc");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGALRM, on_signal);

	for (i = 0; i < pairs; i++) {
		int ab[2], ba[2];

		if (pipe(ab) || pipe(ba))
			die("pipe");
		pids[2 * i] = fork();
		if (pids[2 * i] < 0)
			die("fork");
		if (pids[2 * i] == 0) {
			close(ab[0]);
			close(ba[1]);
			bounce(ba[0], ab[1], 1, fork_every);
		}
		pids[2 * i + 1] = fork();
		if (pids[2 * i + 1] < 0)
			die("fork");
		if (pids[2 * i + 1] == 0) {
			close(ab[1]);
			close(ba[0]);
			bounce(ab[0], ba[1], 0, 0);
		}
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
	}
	/* block the signals outside sigsuspend() so that none slips past the check */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGALRM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (seconds > 0)
		alarm(seconds);
	while (!stop)
		sigsuspend(&old);
	for (i = 0; i < 2 * pairs; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < 2 * pairs; i++)
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(pids);
	return 0;
}
