/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions that make it easy to overflow a buffer with untrusted trace
 * data.  Including this header turns their use into a compile error.
 */
#ifndef SCHEDREPLAY_BANNED_H
#define SCHEDREPLAY_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)

#endif
