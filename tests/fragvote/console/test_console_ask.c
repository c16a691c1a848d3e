/* The console's yes/no prompt for `fragvote play`: the answer words, and
 * the line reader over a real pipe (hint and retry, the line cap, end of
 * input, and never reading past the answer it returns). */
#include <unistd.h>

#include "check.h"
#include "console.h"
#include "console_ask.h"

static void test_answer_words(void) {
    CHECK_INT(console_answer_parse("y"), CONSOLE_ANSWER_YES);
    CHECK_INT(console_answer_parse(" YES \r"), CONSOLE_ANSWER_YES);
    CHECK_INT(console_answer_parse("n"), CONSOLE_ANSWER_NO);
    CHECK_INT(console_answer_parse("No"), CONSOLE_ANSWER_NO);
    CHECK_INT(console_answer_parse("q"), CONSOLE_ANSWER_QUIT);
    CHECK_INT(console_answer_parse("quit"), CONSOLE_ANSWER_QUIT);
    CHECK_INT(console_answer_parse(""), -1);
    CHECK_INT(console_answer_parse("maybe"), -1);
    CHECK_INT(console_answer_parse("yess"), -1);
    CHECK_INT(console_answer_parse(NULL), -1);
}

/* Asks once with input written to a pipe; returns the answer, output in out. */
static int ask(const char *input, size_t len, char *out, size_t outlen, int *left) {
    int fds[2];
    if (pipe(fds)) return -9;
    if (write(fds[1], input, len) != (ssize_t)len) return -9;
    close(fds[1]);
    FILE *o = fmemopen(out, outlen, "w");
    char err[128] = "";
    int a = console_ask_yn(fds[0], o, "Q? ", NULL, err, sizeof err);
    fclose(o);
    char rest[64];
    ssize_t n = read(fds[0], rest, sizeof rest);
    *left = n < 0 ? 0 : (int)n;
    close(fds[0]);
    return a;
}

static void test_bad_answer_is_asked_again(void) {
    char out[512];
    int left;
    const char in[] = "maybe\nY\nn\n";
    CHECK_INT(ask(in, sizeof in - 1, out, sizeof out, &left), CONSOLE_ANSWER_YES);
    CHECK_CONTAINS(out, "answer y or n; q quits");
    CHECK_INT(left, 2); /* "n\n" stays for the next question */
}

static void test_overlong_line_is_refused(void) {
    char in[CONSOLE_LINE_MAX + 64], out[512];
    memset(in, 'y', CONSOLE_LINE_MAX + 10);
    memcpy(in + CONSOLE_LINE_MAX + 10, "\nn\n", 3);
    int left;
    CHECK_INT(ask(in, CONSOLE_LINE_MAX + 13, out, sizeof out, &left), CONSOLE_ANSWER_NO);
    CHECK_CONTAINS(out, "longer than");
}

static void test_end_of_input_quits(void) {
    char out[512];
    int left;
    CHECK_INT(ask("", 0, out, sizeof out, &left), CONSOLE_ANSWER_QUIT);
    CHECK_INT(ask("maybe", 5, out, sizeof out, &left), CONSOLE_ANSWER_QUIT);
    CHECK_INT(ask("n", 1, out, sizeof out, &left), CONSOLE_ANSWER_NO); /* a last line without newline counts */
}

int main(void) {
    RUN(test_answer_words);
    RUN(test_bad_answer_is_asked_again);
    RUN(test_overlong_line_is_refused);
    RUN(test_end_of_input_quits);
    return check_summary();
}
