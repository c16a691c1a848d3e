/* The console's yes/no prompt (see console_ask.h). */
#include "console_ask.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "console.h"

#define ASK_POLL_MS 200 /* how often a waiting prompt looks at *stop */

int console_answer_parse(const char *word) {
    if (!word) return -1;
    while (isspace((unsigned char)*word)) word++;
    size_t n = strlen(word);
    while (n > 0 && isspace((unsigned char)word[n - 1])) n--;
    static const struct { const char *w; int a; } words[] = {
        {"y", CONSOLE_ANSWER_YES}, {"yes", CONSOLE_ANSWER_YES}, {"n", CONSOLE_ANSWER_NO},
        {"no", CONSOLE_ANSWER_NO}, {"q", CONSOLE_ANSWER_QUIT},  {"quit", CONSOLE_ANSWER_QUIT},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].w) == n && !strncasecmp(word, words[i].w, n)) return words[i].a;
    return -1;
}

/* One byte from fd, waiting in slices so *stop is seen: 1 got it, 0 end of
 * input or stopped, -1 error. */
static int read_byte(int fd, volatile sig_atomic_t *stop, unsigned char *ch) {
    for (;;) {
        if (stop && *stop) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, ASK_POLL_MS);
        if (n < 0 && errno != EINTR) return -1;
        if (n <= 0) continue;
        ssize_t got = read(fd, ch, 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        return got < 0 ? -1 : got == 0 ? 0 : 1;
    }
}

static const char hint[] = "answer y or n; q quits";

/* Terminal: one key, echoed as the word it means. */
static int ask_key(int fd, FILE *out, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    struct termios saved;
    if (console_tty_raw(fd, &saved, err, errlen) < 0) return -1;
    int rc = CONSOLE_ANSWER_QUIT;
    for (int bad = 0; bad < CONSOLE_ASK_BAD_MAX; bad++) {
        unsigned char ch;
        int r = read_byte(fd, stop, &ch);
        if (r < 0) {
            snprintf(err, errlen, "cannot read the terminal: %s", strerror(errno));
            rc = -1;
            break;
        }
        if (r == 0 || ch == 4 /* ^D */) break;
        char word[2] = {(char)ch, 0};
        int a = console_answer_parse(word);
        if (a >= 0) {
            rc = a;
            break;
        }
        if (ch != '\n' && ch != '\r' && ch != ' ') fprintf(out, "\n  (%s) ", hint);
        fflush(out);
    }
    tcsetattr(fd, TCSANOW, &saved);
    if (rc >= 0) fprintf(out, "%s\n", rc == CONSOLE_ANSWER_YES ? "yes" : rc == CONSOLE_ANSWER_NO ? "no" : "quit");
    return rc;
}

/* Pipe or file: one line, read a byte at a time. */
static int ask_line(int fd, FILE *out, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    char line[CONSOLE_LINE_MAX + 1];
    for (int bad = 0; bad < CONSOLE_ASK_BAD_MAX; bad++) {
        size_t used = 0;
        int toolong = 0, r;
        unsigned char ch;
        while ((r = read_byte(fd, stop, &ch)) == 1 && ch != '\n') {
            if (used < CONSOLE_LINE_MAX) line[used++] = (char)ch;
            else toolong = 1;
        }
        if (r < 0) {
            snprintf(err, errlen, "cannot read the answer: %s", strerror(errno));
            return -1;
        }
        line[used] = 0;
        if (r == 0 && used == 0) {
            if (!(stop && *stop)) fprintf(out, "(end of input)\n");
            return CONSOLE_ANSWER_QUIT;
        }
        int a = toolong ? -1 : console_answer_parse(line);
        if (a >= 0) {
            fprintf(out, "%s\n", a == CONSOLE_ANSWER_YES ? "yes" : a == CONSOLE_ANSWER_NO ? "no" : "quit");
            return a;
        }
        if (toolong) fprintf(out, "\n  (an answer longer than %d bytes; %s) ", CONSOLE_LINE_MAX, hint);
        else fprintf(out, "\n  (%s) ", hint);
        fflush(out);
        if (r == 0) return CONSOLE_ANSWER_QUIT;
    }
    fprintf(out, "\n(%d unreadable answers in a row: stopping)\n", CONSOLE_ASK_BAD_MAX);
    return CONSOLE_ANSWER_QUIT;
}

int console_ask_yn(int fd, FILE *out, const char *prompt, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    fprintf(out, "%s", prompt);
    fflush(out);
    return isatty(fd) ? ask_key(fd, out, stop, err, errlen) : ask_line(fd, out, stop, err, errlen);
}
