/* Console commands: the parser and the runner (see console.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "console.h"
#include "fv_clock.h"
#include "room.h"

static const struct {
    const char *name;
    enum hub_cmd_kind kind;
} console_acts[] = {
    {"next", HUB_CMD_NEXT},     {"open", HUB_CMD_OPEN},   {"close", HUB_CMD_CLOSE},
    {"measure", HUB_CMD_MEASURE}, {"reveal", HUB_CMD_REVEAL}, {"rerun", HUB_CMD_RERUN},
    {"skip", HUB_CMD_SKIP},     {"back", HUB_CMD_BACK},   {"quit", HUB_CMD_QUIT},
    {"revote", HUB_CMD_REVOTE}, {"end", HUB_CMD_END}, {"answer", HUB_CMD_ANSWER},
    {"why", HUB_CMD_WHY},
};
#define CONSOLE_NACTS (sizeof console_acts / sizeof console_acts[0])

const char *console_act_name(enum hub_cmd_kind k) {
    for (size_t i = 0; i < CONSOLE_NACTS; i++)
        if (console_acts[i].kind == k) return console_acts[i].name;
    return "?";
}

static int act_parse(const char *w, enum hub_cmd_kind *out) {
    for (size_t i = 0; i < CONSOLE_NACTS; i++)
        if (!strcmp(console_acts[i].name, w)) {
            *out = console_acts[i].kind;
            return 0;
        }
    if (!strcmp(w, "re-run")) {
        *out = HUB_CMD_RERUN;
        return 0;
    }
    if (!strcmp(w, "re-vote")) {
        *out = HUB_CMD_REVOTE;
        return 0;
    }
    return -1;
}

/* A non-negative decimal integer no larger than max. */
static int parse_count(const char *w, int max, int *out) {
    if (!w || !*w) return -1;
    long v = 0;
    for (const char *p = w; *p; p++) {
        if (!isdigit((unsigned char)*p)) return -1;
        v = v * 10 + (*p - '0');
        if (v > max) return -1;
    }
    *out = (int)v;
    return 0;
}

#define CONSOLE_WORDS_MAX 4

/* The wait-* words (v, its nw words): 0 with *out, or -1 with err. */
static int parse_wait(const char *v, char *const *words, int nw, int waits, struct console_cmd *out, char *err,
                      size_t errlen) {
    int nargs = waits ? 1 : 0;
    if (nw < 1 + nargs || nw > 2 + nargs) {
        snprintf(err, errlen, "usage: %s%s [TIMEOUT_MS]", v,
                 !waits ? "" : !strcmp(v, "wait-state") ? " STATE" : " N");
        return -1;
    }
    if (nw == 2 + nargs && (parse_count(words[1 + nargs], CONSOLE_WAIT_MS_MAX, &out->timeout_ms) < 0)) {
        snprintf(err, errlen, "%s: timeout must be 0..%d milliseconds", v, CONSOLE_WAIT_MS_MAX);
        return -1;
    }
    if (!strcmp(v, "wait-measured")) {
        out->verb = CONSOLE_WAIT_MEASURED;
    } else if (!strcmp(v, "wait-state")) {
        out->verb = CONSOLE_WAIT_STATE;
        if (quiz_state_parse(words[1], &out->state) < 0) {
            snprintf(err, errlen, "wait-state: unknown state '%s' (pending voting closed measured revealed skipped)",
                     words[1]);
            return -1;
        }
    } else {
        out->verb = !strcmp(v, "wait-votes") ? CONSOLE_WAIT_VOTES : CONSOLE_WAIT_VOTERS;
        if (parse_count(words[1], ROOM_VOTERS_MAX, &out->n) < 0) {
            snprintf(err, errlen, "%s: N must be a number 0..%d", v, ROOM_VOTERS_MAX);
            return -1;
        }
    }
    return 0;
}

int console_parse_line(const char *line, struct console_cmd *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->timeout_ms = CONSOLE_WAIT_MS_DEFAULT;
    size_t len = strlen(line);
    if (len > CONSOLE_LINE_MAX) {
        snprintf(err, errlen, "line longer than %d bytes", CONSOLE_LINE_MAX);
        return -1;
    }
    char buf[CONSOLE_LINE_MAX + 1];
    memcpy(buf, line, len + 1);
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    char *words[CONSOLE_WORDS_MAX + 1];
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        if (nw == CONSOLE_WORDS_MAX) {
            snprintf(err, errlen, "too many words");
            return -1;
        }
        words[nw++] = w;
    }
    if (nw == 0) {
        out->verb = CONSOLE_NOTHING;
        return 0;
    }
    const char *v = words[0];
    if (!act_parse(v, &out->act)) {
        if (out->act == HUB_CMD_OPEN && nw == 2) {
            if (parse_count(words[1], HUB_COUNTDOWN_MAX_S, &out->seconds) < 0 || out->seconds < 1) {
                snprintf(err, errlen, "open: SECONDS (the voting timer) must be a number 1..%d, not '%s'",
                         HUB_COUNTDOWN_MAX_S, words[1]);
                return -1;
            }
        } else if (nw != 1) {
            snprintf(err, errlen, "'%s' takes no argument", v);
            return -1;
        }
        out->verb = CONSOLE_ACT;
        return 0;
    }
    if (!strcmp(v, "expect-refused")) {
        if (nw != 2 || act_parse(words[1], &out->act) < 0 || out->act == HUB_CMD_QUIT) {
            snprintf(err, errlen, "usage: expect-refused ACTION (next open close measure reveal rerun revote skip back)");
            return -1;
        }
        out->verb = CONSOLE_EXPECT_REFUSED;
        return 0;
    }
    if (!strcmp(v, "sleep")) {
        if (nw != 2 || parse_count(words[1], CONSOLE_WAIT_MS_MAX, &out->n) < 0) {
            snprintf(err, errlen, "usage: sleep MILLISECONDS (0..%d)", CONSOLE_WAIT_MS_MAX);
            return -1;
        }
        out->verb = CONSOLE_SLEEP;
        return 0;
    }
    int waits = !strcmp(v, "wait-votes") || !strcmp(v, "wait-voters") || !strcmp(v, "wait-state");
    if (waits || !strcmp(v, "wait-measured")) return parse_wait(v, words, nw, waits, out, err, errlen);
    struct {
        const char *name;
        enum console_verb verb;
    } simple[] = {{"stop-at-end", CONSOLE_STOP_AT_END}, {"quit-at-end", CONSOLE_QUIT_AT_END}, {"show", CONSOLE_SHOW}, {"help", CONSOLE_HELP},
                {"secret", CONSOLE_SECRET}};
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (!strcmp(v, simple[i].name)) {
            if (nw != 1) {
                snprintf(err, errlen, "'%s' takes no argument", v);
                return -1;
            }
            out->verb = simple[i].verb;
            return 0;
        }
    snprintf(err, errlen, "unknown command '%s' (try: help)", v);
    return -1;
}

int console_parse_key(int key, struct console_cmd *out) {
    memset(out, 0, sizeof *out);
    out->timeout_ms = CONSOLE_WAIT_MS_DEFAULT;
    out->verb = CONSOLE_ACT;
    switch (key) {
    case 'n': case ' ': out->act = HUB_CMD_NEXT; return 0;
    case 'o': out->act = HUB_CMD_OPEN; return 0;
    case 't': out->act = HUB_CMD_OPEN; out->seconds = CONSOLE_TIMER_KEY; return 0;
    case 'c': out->act = HUB_CMD_CLOSE; return 0;
    case 'm': out->act = HUB_CMD_MEASURE; return 0;
    case 'r': out->act = HUB_CMD_REVEAL; return 0;
    case 'e': out->act = HUB_CMD_RERUN; return 0;
    case 'v': out->act = HUB_CMD_REVOTE; return 0;
    case 's': out->act = HUB_CMD_SKIP; return 0;
    case 'b': out->act = HUB_CMD_BACK; return 0;
    case 'f': out->act = HUB_CMD_END; return 0;
    case 'a': out->act = HUB_CMD_ANSWER; return 0;
    case 'w': out->act = HUB_CMD_WHY; return 0;
    case 'q': out->act = HUB_CMD_QUIT; return 0;
    case '?': case 'h': out->verb = CONSOLE_HELP; return 0;
    case 'p': out->verb = CONSOLE_SECRET; return 0;
    case 12: /* Ctrl-L: redraw */ out->verb = CONSOLE_SHOW; return 0;
    }
    return -1;
}

/* ---- the runner ---- */

static void nap_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static int stopped(const struct console *c) { return c->stop && *c->stop; }

/* Whether the hub has visibly carried out act, comparing before and now. */
static int act_taken(enum hub_cmd_kind act, const struct console_status *b, const struct console_status *n) {
    const struct quiz_qinfo *bq = &b->hub.current, *nq = &n->hub.current;
    int moved = n->hub.cursor != b->hub.cursor || n->hub.ended != b->hub.ended;
    switch (act) {
    case HUB_CMD_OPEN: return moved || (nq->state == QUIZ_VOTING && bq->state != QUIZ_VOTING);
    case HUB_CMD_CLOSE: return moved || (nq->state == QUIZ_CLOSED && bq->state != QUIZ_CLOSED);
    case HUB_CMD_MEASURE: case HUB_CMD_ANSWER:
        return moved || n->measure_requests != b->measure_requests ||
               (nq->state == QUIZ_MEASURED && bq->state != QUIZ_MEASURED);
    case HUB_CMD_RERUN: return moved || n->measure_requests != b->measure_requests;
    case HUB_CMD_REVEAL: return moved || (nq->state == QUIZ_REVEALED && bq->state != QUIZ_REVEALED);
    case HUB_CMD_REVOTE: return moved || (nq->round == 2 && bq->round != 2);
    case HUB_CMD_NEXT: case HUB_CMD_BACK: case HUB_CMD_SKIP: case HUB_CMD_END: return moved;
    case HUB_CMD_WHY: return moved || n->hub.why_view != b->hub.why_view;
    default: return 1;
    }
}

static void say_position(const struct console *c, const struct console_status *st) {
    FILE *out = c->out;
    char replay[600];
    if (st->hub.ended && c->view.join_url && !console_page_url(c->view.join_url, "r", replay, sizeof replay))
        fprintf(out, "the quiz has ended; phones play it again at %s", replay); /* docs/SERVE.md "After the talk" */
    else if (st->hub.ended)
        fprintf(out, "the quiz has ended");
    else
        fprintf(out, "question %d/%d %s%s", st->hub.cursor + 1, st->hub.nquestions, quiz_state_name(st->hub.current.state),
                st->hub.why_view ? ", the projectors show why" : "");
}

/* "[HH:MM:SS.mmm] " in UTC: when an action was posted, so a log can be
 * compared with what the screen received (and when). */
static void stamp(char *buf, size_t len, const struct timespec *ts) {
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    snprintf(buf, len, "[%02d:%02d:%02d.%03ld] ", tm.tm_hour, tm.tm_min, tm.tm_sec, ts->tv_nsec / 1000000L);
}

static int exec_act(struct console *c, const struct console_cmd *cmd, char *err, size_t errlen) {
    struct console_status before, now;
    c->be.status(c->be.ctx, &before);
    struct timespec posted;
    char ts[64], name[32];
    clock_gettime(CLOCK_REALTIME, &posted);
    stamp(ts, sizeof ts, &posted);
    int seconds = 0;
    if (cmd->act == HUB_CMD_OPEN) {
        seconds = cmd->seconds;
        if (seconds == CONSOLE_TIMER_KEY) seconds = c->timer_s > 0 ? c->timer_s : CONSOLE_TIMER_S_DEFAULT;
    }
    /* "open 30" in the log when a timer was asked for */
    if (seconds > 0)
        snprintf(name, sizeof name, "%s %d", console_act_name(cmd->act), seconds);
    else
        snprintf(name, sizeof name, "%s", console_act_name(cmd->act));
    if (c->be.post(c->be.ctx, cmd->act, seconds) < 0) {
        snprintf(err, errlen, "%s: the hub's command queue is full", name);
        return -1;
    }
    if (cmd->act == HUB_CMD_QUIT) {
        fprintf(c->out, "%s> quit\n", ts);
        fflush(c->out);
        return 1;
    }
    double t0 = fv_clock_ms_frac();
    for (;;) {
        c->be.status(c->be.ctx, &now);
        if (now.hub.refused_total != before.hub.refused_total) {
            if (cmd->verb == CONSOLE_EXPECT_REFUSED) {
                fprintf(c->out, "%s> %s refused as expected: %s\n", ts, name, now.hub.last_error);
            } else {
                c->refused_unexpected++;
                fprintf(c->out, "%s> %s refused: %s\n", ts, name, now.hub.last_error);
            }
            fflush(c->out);
            return 0;
        }
        if (act_taken(cmd->act, &before, &now)) {
            if (cmd->verb == CONSOLE_EXPECT_REFUSED) {
                snprintf(err, errlen, "expected '%s' to be refused, but the hub carried it out", name);
                return -1;
            }
            fprintf(c->out, "%s> %s: ", ts, name);
            say_position(c, &now);
            fputc('\n', c->out);
            fflush(c->out);
            return 0;
        }
        if (stopped(c)) return 1;
        if (fv_clock_ms_frac() - t0 > CONSOLE_ACK_MS) {
            snprintf(err, errlen, "%s: the hub did not answer within %d ms", name, CONSOLE_ACK_MS);
            return -1;
        }
        nap_ms(CONSOLE_POLL_MS);
    }
}

/* 1 when the wait's condition holds; *have gets the current value for messages. */
static int wait_met(const struct console_cmd *cmd, const struct console_status *st, long *have) {
    const struct quiz_qinfo *q = &st->hub.current;
    switch (cmd->verb) {
    case CONSOLE_WAIT_VOTES: *have = q->yes + q->no; return *have >= cmd->n;
    case CONSOLE_WAIT_VOTERS: *have = st->hub.voters + st->hub.newcomers; return *have >= cmd->n; /* joined phones */
    case CONSOLE_WAIT_STATE: *have = q->state; return !st->hub.ended && q->state == cmd->state;
    case CONSOLE_WAIT_MEASURED:
        *have = q->state;
        return !st->hub.ended && !q->measuring && (q->state == QUIZ_MEASURED || q->state == QUIZ_REVEALED);
    default: return 1;
    }
}

static int exec_wait(struct console *c, const struct console_cmd *cmd, char *err, size_t errlen) {
    double t0 = fv_clock_ms_frac();
    struct console_status st;
    long have = 0;
    for (;;) {
        c->be.status(c->be.ctx, &st);
        if (wait_met(cmd, &st, &have)) return 0;
        if (stopped(c)) return 1;
        if (fv_clock_ms_frac() - t0 >= cmd->timeout_ms) break;
        nap_ms(CONSOLE_POLL_MS);
    }
    switch (cmd->verb) {
    case CONSOLE_WAIT_VOTES:
        snprintf(err, errlen, "wait-votes %d: timed out after %d ms with %ld votes on question %d", cmd->n,
                 cmd->timeout_ms, have, st.hub.cursor + 1);
        break;
    case CONSOLE_WAIT_VOTERS:
        snprintf(err, errlen, "wait-voters %d: timed out after %d ms with %ld voters", cmd->n, cmd->timeout_ms, have);
        break;
    case CONSOLE_WAIT_STATE:
        snprintf(err, errlen, "wait-state %s: timed out after %d ms in state %s", quiz_state_name(cmd->state),
                 cmd->timeout_ms, st.hub.ended ? "ended" : quiz_state_name((enum quiz_state)have));
        break;
    default:
        snprintf(err, errlen, "wait-measured: timed out after %d ms (state %s%s)", cmd->timeout_ms,
                 quiz_state_name((enum quiz_state)have), st.hub.current.measuring ? ", probe still running" : "");
    }
    return -1;
}

int console_exec(struct console *c, const struct console_cmd *cmd, char *err, size_t errlen) {
    struct console_status st;
    switch (cmd->verb) {
    case CONSOLE_NOTHING: return 0;
    case CONSOLE_ACT:
    case CONSOLE_EXPECT_REFUSED: return exec_act(c, cmd, err, errlen);
    case CONSOLE_WAIT_VOTES:
    case CONSOLE_WAIT_VOTERS:
    case CONSOLE_WAIT_STATE:
    case CONSOLE_WAIT_MEASURED: return exec_wait(c, cmd, err, errlen);
    case CONSOLE_SLEEP:
        for (int left = cmd->n; left > 0 && !stopped(c); left -= 50) nap_ms(left < 50 ? left : 50);
        return stopped(c) ? 1 : 0;
    case CONSOLE_STOP_AT_END:
        c->be.status(c->be.ctx, &st);
        return st.hub.ended ? 1 : 0;
    case CONSOLE_QUIT_AT_END: {
        c->be.status(c->be.ctx, &st);
        if (!st.hub.ended) return 0;
        struct console_cmd quit = {.verb = CONSOLE_ACT, .act = HUB_CMD_QUIT};
        return exec_act(c, &quit, err, errlen) < 0 ? -1 : 1;
    }
    case CONSOLE_SHOW:
        c->be.status(c->be.ctx, &st);
        if (c->ansi) fputs("\033[H\033[2J", c->out);
        console_render(c->out, &c->view, &st);
        fflush(c->out);
        return 0;
    case CONSOLE_HELP:
        fprintf(c->out, "%s\n", console_keys_help());
        fflush(c->out);
        return 0;
    case CONSOLE_SECRET:
        console_render_secret(c->out, &c->view);
        fflush(c->out);
        return 0;
    }
    return 0;
}

int console_run_script(struct console *c, FILE *in, const char *name, char *err, size_t errlen) {
    char line[CONSOLE_LINE_MAX + 2];
    int lineno = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        char why[320];
        size_t len = strlen(line);
        if (lineno > CONSOLE_SCRIPT_LINES_MAX) {
            snprintf(err, errlen, "%s:%d: more than %d lines", name, lineno, CONSOLE_SCRIPT_LINES_MAX);
            return -1;
        }
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%d: line longer than %d bytes", name, lineno, CONSOLE_LINE_MAX);
            return -1;
        }
        struct console_cmd cmd;
        if (console_parse_line(line, &cmd, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
            return -1;
        }
        int rc = console_exec(c, &cmd, why, sizeof why);
        if (rc < 0) {
            snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
            return -1;
        }
        if (rc > 0) return 0;
    }
    if (ferror(in)) {
        snprintf(err, errlen, "%s: read error: %s", name, strerror(errno));
        return -1;
    }
    return 0;
}

FILE *console_script_open(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) snprintf(err, errlen, "%s: cannot open script: %s", path, strerror(errno));
    return f;
}

int console_run_open(struct console *c, FILE *f, const char *path, char *err, size_t errlen) {
    struct console_status st;
    c->be.status(c->be.ctx, &st);
    console_render(c->out, &c->view, &st);
    fflush(c->out);
    int rc = console_run_script(c, f, path, err, errlen);
    fclose(f);
    return rc;
}
