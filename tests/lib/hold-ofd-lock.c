/*
 * hold-ofd-lock FILE: take the lock a live replay holds on its temporary
 * file (an OFD write lock on byte 0), print "locked", and keep it until
 * standard input closes.  For tests/t5400-db-safety.sh.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	char c;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDWR)) < 0 || fcntl(fd, F_OFD_SETLK, &fl) < 0)
		return 1;
	printf("locked\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
