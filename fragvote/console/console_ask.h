/* The console's yes/no prompt, for `fragvote play`: one key on a terminal
 * (raw mode, no Enter needed), one line when input is a pipe or file (tests,
 * scripted players). Shares the console's line cap and stop flag. */
#ifndef FRAGVOTE_CONSOLE_ASK_H
#define FRAGVOTE_CONSOLE_ASK_H

#include <signal.h>
#include <stdio.h>

enum console_answer {
    CONSOLE_ANSWER_NO = 0,
    CONSOLE_ANSWER_YES = 1,
    CONSOLE_ANSWER_QUIT = 2, /* q / quit, end of input, or *stop */
};

#define CONSOLE_ASK_BAD_MAX 100 /* unreadable answers in a row before the prompt gives up (quit) */

/* Pure: "y" "yes" "n" "no" "q" "quit" (any case, surrounding blanks
 * ignored) -> the answer; -1 for anything else. */
int console_answer_parse(const char *word);

/* Writes prompt to out and reads the answer from fd: a single key y/n/q on a
 * terminal, a line from a pipe (longer than CONSOLE_LINE_MAX: refused and
 * asked again). Anything else is answered with a hint and asked again, up to
 * CONSOLE_ASK_BAD_MAX times. Stops waiting when *stop becomes non-zero (stop
 * may be NULL). Reads a pipe one byte at a time, so it never takes input
 * meant for the next question. Returns an enum console_answer, or -1 with err
 * (the terminal could not be set up, a read failed). */
int console_ask_yn(int fd, FILE *out, const char *prompt, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
