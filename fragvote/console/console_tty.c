/* The interactive console: raw-mode keys on a terminal, line commands when
 * stdin is a pipe or file. Redraws the screen when the hub's status changes. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "fv_clock.h"

#define CONSOLE_REDRAW_MS 1000 /* redraw at least this often on a terminal (clock, connections) */

/* Whether two statuses differ in anything the screen shows. */
static int status_changed(const struct console_status *a, const struct console_status *b) {
    const struct hub_status *x = &a->hub, *y = &b->hub;
    return x->cursor != y->cursor || x->ended != y->ended || x->current.state != y->current.state ||
           x->current.measuring != y->current.measuring || x->current.yes != y->current.yes ||
           x->current.no != y->current.no || x->connections != y->connections || x->voters != y->voters ||
           x->newcomers != y->newcomers || x->voters_refused != y->voters_refused ||
           x->conns_refused != y->conns_refused || x->conns_evicted != y->conns_evicted ||
           x->origin_refused != y->origin_refused || x->resumes_refused != y->resumes_refused ||
           x->screens != y->screens || x->presenters != y->presenters || x->refused_total != y->refused_total ||
           x->warnings_total != y->warnings_total ||
           x->collective != y->collective || (x->closes_in_ms + 999) / 1000 != (y->closes_in_ms + 999) / 1000 ||
           strcmp(a->link, b->link);
}

static void frame(struct console *c, const struct console_status *st) {
    if (c->ansi) {
        /* The frame fits the terminal as it is now (it may have been resized). */
        struct winsize ws;
        if (ioctl(fileno(c->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
            c->view.cols = ws.ws_col;
            c->view.rows = ws.ws_row;
        } else {
            c->view.cols = 80;
            c->view.rows = 24;
        }
        fputs("\033[H\033[2J", c->out);
    }
    console_render(c->out, &c->view, st);
    fflush(c->out);
}

/* What the terminal shows for a while only: a refusal's reason, and the
 * secret after the p key. */
struct shown_for {
    unsigned long refused_seen;
    double refused_at, secret_until;
};

static void timed_view(struct console *c, struct shown_for *f, const struct console_status *st) {
    double t = fv_clock_ms_frac();
    if (st->hub.refused_total != f->refused_seen) {
        f->refused_seen = st->hub.refused_total;
        f->refused_at = t;
    }
    c->view.hide_refused = !f->refused_at || t - f->refused_at > CONSOLE_REFUSED_SHOW_MS;
    c->view.show_secret = t < f->secret_until;
}

int console_tty_raw(int fd, struct termios *saved, char *err, size_t errlen) {
    struct termios raw;
    if (tcgetattr(fd, saved) < 0) {
        snprintf(err, errlen, "cannot read the terminal settings: %s", strerror(errno));
        return -1;
    }
    raw = *saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSANOW, &raw) < 0) {
        snprintf(err, errlen, "cannot set the terminal to raw mode: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Terminal: one key per action, the screen redrawn in place. */
static int run_keys(struct console *c, int fd, char *err, size_t errlen) {
    struct termios saved;
    if (console_tty_raw(fd, &saved, err, errlen) < 0) return -1;
    int rc = 0, idle_ms = 0;
    struct console_status shown, now;
    c->be.status(c->be.ctx, &shown);
    struct shown_for f = {shown.hub.refused_total, 0, 0}; /* a refusal from before this run is old news */
    timed_view(c, &f, &shown);
    frame(c, &shown);
    while (!(c->stop && *c->stop)) {
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, 100);
        if (n < 0 && errno != EINTR) break;
        if (n > 0) {
            unsigned char ch;
            ssize_t got = read(fd, &ch, 1);
            if (got == 0) break;
            if (got == 1) {
                struct console_cmd cmd;
                if (console_parse_key(ch, &cmd) == 0) {
                    char why[320];
                    int r = 0;
                    if (cmd.verb == CONSOLE_SECRET) /* p: show the secret for a while, p again hides it */
                        f.secret_until = c->view.show_secret ? 0 : fv_clock_ms_frac() + CONSOLE_SECRET_SHOW_MS;
                    else
                        r = console_exec(c, &cmd, why, sizeof why);
                    if (r < 0) fprintf(c->out, "%s\n", why);
                    if (r > 0) break;
                    if (cmd.verb == CONSOLE_ACT) f.refused_at = 0; /* a new action: the old refusal is gone */
                    c->be.status(c->be.ctx, &shown);
                    timed_view(c, &f, &shown);
                    frame(c, &shown);
                    if (cmd.verb == CONSOLE_HELP) fprintf(c->out, "%s\n", console_keys_help());
                    idle_ms = 0;
                    continue;
                }
            }
        }
        idle_ms += 100;
        c->be.status(c->be.ctx, &now);
        if (status_changed(&shown, &now) || idle_ms >= CONSOLE_REDRAW_MS) {
            shown = now;
            timed_view(c, &f, &shown);
            frame(c, &shown);
            idle_ms = 0;
        }
    }
    tcsetattr(fd, TCSANOW, &saved);
    return rc;
}

/* Without a terminal, what changed since the last line printed: a new
 * question or state (a timer closed voting, the presenter page acted, the
 * probe answered) and a new warning of the hub's at once; new votes or
 * voters at most every CONSOLE_PIPE_STATUS_MS. */
static void log_changes(struct console *c, struct console_status *last, double *last_at) {
    struct console_status now;
    c->be.status(c->be.ctx, &now);
    const struct hub_status *x = &last->hub, *y = &now.hub;
    int moved = x->cursor != y->cursor || x->ended != y->ended || x->current.state != y->current.state ||
                x->current.measuring != y->current.measuring || strcmp(last->link, now.link);
    int counted = x->current.yes + x->current.no != y->current.yes + y->current.no || x->voters != y->voters ||
                  x->connections != y->connections;
    double t = fv_clock_ms_frac();
    if (y->warnings_total != x->warnings_total && y->last_warning[0]) { /* the hub's own trouble, as it comes */
        fprintf(c->out, "warning: %s\n", y->last_warning);
        fflush(c->out);
        last->hub.warnings_total = y->warnings_total;
    }
    if (moved || (counted && t - *last_at >= CONSOLE_PIPE_STATUS_MS)) {
        console_render_line(c->out, &now);
        fflush(c->out);
        *last = now;
        *last_at = t;
    }
}

/* Pipe or file: one command per line, as in a script; between commands a
 * line whenever the room's status changes. */
static int run_lines(struct console *c, int fd, char *err, size_t errlen) {
    char buf[CONSOLE_LINE_MAX + 2];
    size_t used = 0;
    int lineno = 0, eof = 0;
    struct console_status st;
    double st_at = fv_clock_ms_frac();
    c->be.status(c->be.ctx, &st);
    frame(c, &st);
    while (!(c->stop && *c->stop)) {
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, eof ? 0 : 1, 200);
        if (n < 0 && errno != EINTR) break;
        if (n <= 0 || eof) {
            log_changes(c, &st, &st_at);
            continue;
        }
        ssize_t got = read(fd, buf + used, sizeof buf - 1 - used);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (used == 0) { /* end of input: no more commands, the hub goes on (and the log with it) */
                eof = 1;
                continue;
            }
            buf[used++] = '\n';
            got = 0;
        }
        used += (size_t)got;
        buf[used] = 0;
        char *nl;
        while ((nl = memchr(buf, '\n', used))) {
            *nl = 0;
            lineno++;
            struct console_cmd cmd;
            char why[320];
            if (console_parse_line(buf, &cmd, why, sizeof why) < 0)
                fprintf(c->out, "stdin:%d: %s\n", lineno, why);
            else {
                int r = console_exec(c, &cmd, why, sizeof why);
                if (r < 0) fprintf(c->out, "stdin:%d: %s\n", lineno, why);
                if (r > 0) return 0;
                if (cmd.verb == CONSOLE_ACT || cmd.verb == CONSOLE_EXPECT_REFUSED)
                    c->be.status(c->be.ctx, &st); /* the action's own line said what it did */
                else
                    log_changes(c, &st, &st_at); /* what happened during a wait or sleep */
            }
            fflush(c->out);
            size_t rest = used - (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, rest);
            used = rest;
            buf[used] = 0;
        }
        if (used >= sizeof buf - 1) {
            snprintf(err, errlen, "stdin:%d: line longer than %d bytes", lineno + 1, CONSOLE_LINE_MAX);
            return -1;
        }
    }
    return 0;
}

int console_run_interactive(struct console *c, int fd, char *err, size_t errlen) {
    if (isatty(fd)) {
        c->ansi = 1;
        return run_keys(c, fd, err, errlen);
    }
    return run_lines(c, fd, err, errlen);
}
