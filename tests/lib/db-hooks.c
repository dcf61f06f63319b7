/*
 * LD_PRELOAD hooks for tests/t5400-db-safety.sh: make a race or a signal
 * happen at one exact point of a replay, so that the tests need no sleeps.
 * SR_HOOK selects the point:
 *   create=FILE  when the temporary file "DB.tmp-PID" is created, copy FILE
 *                to DB (another process created DB during the replay)
 *   stop         when the temporary file is created, stop (SIGSTOP): the
 *                test then kills the replay with SIGKILL
 *   fsync        send SIGINT at the fsync() of the finished temporary file
 *                (after the index build, before it is put in place)
 *   journal      send SIGINT when SQLite creates DB's rollback journal
 *                (the append's copy has begun)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

static void copy(open_fn real, const char *from, const char *tmp)
{
	char to[4096], buf[65536];
	const char *cut = strstr(tmp, ".tmp-");
	int in, out;
	ssize_t n;

	snprintf(to, sizeof(to), "%.*s", (int)(cut - tmp), tmp);
	in = real(from, O_RDONLY);
	out = real(to, O_WRONLY | O_CREAT | O_EXCL, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

static int opened(open_fn real, const char *path, int flags, int fd)
{
	static int done;
	const char *hook = getenv("SR_HOOK");

	if (fd < 0 || !hook || !(flags & O_CREAT) || done)
		return fd;
	if (strstr(path, ".tmp-") && !strncmp(hook, "create=", 7)) {
		done = 1;
		copy(real, hook + 7, path);
	} else if (strstr(path, ".tmp-") && !strcmp(hook, "stop")) {
		done = 1;
		raise(SIGSTOP);
	} else if (!strcmp(hook, "journal") && strlen(path) > 8 &&
		   !strcmp(path + strlen(path) - 8, "-journal")) {
		done = 1;
		raise(SIGINT);
	}
	return fd;
}

#define WRAP(name)							\
int name(const char *path, int flags, ...)				\
{									\
	open_fn real = (open_fn)dlsym(RTLD_NEXT, #name);		\
	va_list ap;							\
	int mode;							\
									\
	va_start(ap, flags);						\
	mode = va_arg(ap, int);						\
	va_end(ap);							\
	return opened(real, path, flags, real(path, flags, mode));	\
}
WRAP(open)
WRAP(open64)

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	const char *hook = getenv("SR_HOOK");

	if (hook && !strcmp(hook, "fsync"))
		raise(SIGINT);
	return real(fd);
}
