/* The presenter's terminal console.
 *
 * Three parts, each testable without a terminal:
 *   - a pure command parser: script lines ("open", "open 30", "wait-votes 50",
 *     "sleep 200") and single keys (n o t c m r e s b q) become struct console_cmd;
 *   - a runner that carries commands out against a backend (normally the
 *     hub: hub_post() and hub_snapshot()), waiting until the hub has
 *     processed each action so that a script is deterministic and a refused
 *     transition is reported with the quiz's reason;
 *   - rendering of the console screen and of the join QR code to a FILE*.
 * console_tty.c adds the interactive loop (raw-mode keys on a TTY, line
 * commands from stdin when it is not a TTY).
 *
 * Script syntax (docs/DECKS.md "Rehearsing with a script"): one command per
 * line, '#' starts a comment. Actions: next open close measure reveal rerun
 * skip back quit; "open SECONDS" opens with a voting timer. Waits: wait-votes N [MS], wait-voters N [MS],
 * wait-state STATE [MS], wait-measured [MS], sleep MS. Checks:
 * expect-refused ACTION (the action must be refused), stop-at-end (stop the
 * script here if the quiz has ended), quit-at-end (quit, ending serve, if
 * the quiz has ended), show (print the screen), secret (print the presenter
 * secret and the presenter URL carrying it; the p key on a terminal). */
#ifndef FRAGVOTE_CONSOLE_H
#define FRAGVOTE_CONSOLE_H

#include <stdio.h>

#include "hub_control.h"
#include "quiz.h"

#define CONSOLE_LINE_MAX 256            /* bytes per script line; longer lines are refused */
#define CONSOLE_SCRIPT_LINES_MAX 100000 /* lines per script */
#define CONSOLE_WAIT_MS_DEFAULT 60000   /* a wait gives up after this long unless told */
#define CONSOLE_WAIT_MS_MAX 3600000     /* longest wait or sleep a script may ask for */
#define CONSOLE_ACK_MS 10000            /* an action the hub has not processed after this long fails */
#define CONSOLE_POLL_MS 5               /* how often the runner looks at the hub while waiting */
#define CONSOLE_TIMER_S_DEFAULT 30      /* the 't' key's voting timer unless serve --timer says */
#define CONSOLE_TIMER_KEY (-1)          /* console_cmd.seconds: the console's own timer (timer_s) */

enum console_verb {
    CONSOLE_NOTHING,        /* blank line or comment */
    CONSOLE_ACT,            /* a presenter action: act */
    CONSOLE_EXPECT_REFUSED, /* act must be refused */
    CONSOLE_WAIT_VOTES,     /* until the current question has n votes */
    CONSOLE_WAIT_VOTERS,    /* until n voters joined */
    CONSOLE_WAIT_STATE,     /* until the current question is in state */
    CONSOLE_WAIT_MEASURED,  /* until the current question's measurement arrived */
    CONSOLE_SLEEP,          /* n milliseconds */
    CONSOLE_STOP_AT_END,    /* stop the script if the quiz has ended */
    CONSOLE_QUIT_AT_END,    /* quit (end the talk) if the quiz has ended */
    CONSOLE_SHOW,           /* print the screen */
    CONSOLE_HELP,           /* print the keys */
    CONSOLE_SECRET,         /* print the presenter secret (key p: show it for a while) */
};

struct console_cmd {
    enum console_verb verb;
    enum hub_cmd_kind act;  /* CONSOLE_ACT, CONSOLE_EXPECT_REFUSED */
    int seconds;            /* act open: voting timer 1..HUB_COUNTDOWN_MAX_S, 0 none,
                             * CONSOLE_TIMER_KEY the console's timer_s */
    int n;                  /* votes / voters / milliseconds */
    enum quiz_state state;  /* CONSOLE_WAIT_STATE */
    int timeout_ms;         /* waits */
};

/* Parses one script line (without or with its newline). Returns 0, or -1
 * with a sentence in err. Pure. */
int console_parse_line(const char *line, struct console_cmd *out, char *err, size_t errlen);
/* Maps a key to a command: returns 0, or -1 for a key that means nothing.
 * 't' is open with seconds = CONSOLE_TIMER_KEY. Pure. */
int console_parse_key(int key, struct console_cmd *out);
/* "open", "close", ... as the script language spells actions. */
const char *console_act_name(enum hub_cmd_kind k);

/* What the console watches: the hub's status plus how many measurements the
 * probe worker has been asked for (to see that measure/rerun was taken). */
struct console_status {
    struct hub_status hub;
    unsigned long measure_requests;
    /* The current question's result, filled by the backend only once it is
     * revealed (the console never learns a truth before the room does). */
    int revealed;
    char truth[8];          /* "yes" / "no" / "unknown" */
    char basis[16];         /* how it is known ("observed", ..., "unknown") and */
    char why[160];          /* why (quiz_truth's basis and why), "" if none was given */
    char explain[PROBE_PREDICT_TEXT_MAX]; /* the rules' chain (quiz_truth's explain), "" none */
    char surprise[256];     /* "Surprise: the rules said ..." (quiz_truth's surprise), "" none */
    char majority[8];       /* "yes" / "no" / "tie" / "" (no votes) */
    double correct;         /* 1, 0, 0.5, or -1 unscored */
    int correct_votes;      /* votes equal to the truth, -1 if unknown */
    /* The link to a hub on another host (fragvote present): "" while it is
     * up (or the hub is local), else what happened, e.g. "hub unreachable
     * (...): reconnecting in 2.0 s". Shown on the screen and logged. */
    char link[192];
};

/* Fills st's result (revealed, truth, majority, correct, correct_votes) from
 * st->hub, a hub in this process: the current question's final-round votes
 * and, once it is revealed, its truth; unrevealed (or the talk ended):
 * revealed 0. A backend's status callback calls it after hub_snapshot. */
void console_status_result(struct console_status *st);

/* Where actions go and where status comes from. */
struct console_backend {
    /* seconds: HUB_CMD_OPEN's voting timer (hub_cmd.seconds), 0 none.
     * Returns 0, or -1 if it could not be queued. */
    int (*post)(void *ctx, enum hub_cmd_kind k, int seconds);
    void (*status)(void *ctx, struct console_status *out);
    void *ctx;
};

#define CONSOLE_REFUSED_SHOW_MS 8000 /* a refusal's reason stays on the terminal this long */
#define CONSOLE_SECRET_SHOW_MS 20000 /* the p key shows the secret this long, then hides it again */
#define CONSOLE_PIPE_STATUS_MS 2000  /* without a terminal: at most one count line per this long */

/* The fixed facts shown at the top of the screen, and how to lay it out. */
struct console_view {
    const char *title, *join_url, *room_code, *secret, *target;
    int show_qr;            /* draw the QR code of join_url */
    const char *screen_url, *presenter_url; /* the projector's and the presenter's pages, NULL: not shown */
    int show_secret;        /* print the secret (and the presenter URL carrying it); hidden otherwise */
    int hide_refused;       /* leave the last refusal's reason out (it is old news) */
    int cols, rows;         /* the terminal's size: the frame fits it (QR beside the
                             * question when there is room); 0: no terminal, one block after the other */
};

struct console {
    struct console_backend be;
    struct console_view view;
    FILE *out;              /* screen / log */
    int ansi;               /* clear the screen before each frame (TTY) */
    int timer_s;            /* the 't' key's voting timer; 0: CONSOLE_TIMER_S_DEFAULT */
    unsigned long refused_unexpected; /* actions refused that the script did not expect */
    volatile int *stop;     /* set non-zero (e.g. by a signal) to stop waits and loops; may be NULL */
};

/* Carries out one command. Returns 0 done; 1 the script should stop here
 * (quit, or stop-at-end / quit-at-end with the quiz ended); -1 failed (wait timed out,
 * expected refusal did not happen, hub did not answer) with err. A refused
 * action is not a failure: it is printed and counted in refused_unexpected. */
int console_exec(struct console *c, const struct console_cmd *cmd, char *err, size_t errlen);
/* Runs a whole script; name is used in messages ("NAME:LINE: ..."). Returns
 * 0 when it ran to the end (or stopped by quit / stop-at-end), -1 on the
 * first parse error or failed command, with err. */
int console_run_script(struct console *c, FILE *in, const char *name, char *err, size_t errlen);
/* A script file opened for console_run_open (at start: a process that
 * drops privileges opens it before, docs/PRIVILEGES.md). NULL with err
 * ("PATH: cannot open script: why"). */
FILE *console_script_open(const char *path, char *err, size_t errlen);
/* The script f (opened by console_script_open; closed here): prints the
 * screen once, then runs it as console_run_script (name = path). 0, or -1
 * with err. */
int console_run_open(struct console *c, FILE *f, const char *path, char *err, size_t errlen);
/* The interactive loop on a terminal (raw keys) or on piped stdin (lines),
 * until quit, the quiz's end plus quit, or *c->stop. Returns 0 or -1 (err). */
int console_run_interactive(struct console *c, int fd, char *err, size_t errlen);
/* Puts the terminal fd in raw mode (keys unbuffered and not echoed; signals
 * still work) and keeps its settings in *saved for tcsetattr(fd, TCSANOW,
 * saved) afterwards. Returns 0, or -1 with err. Shared with play's prompt. */
struct termios;
int console_tty_raw(int fd, struct termios *saved, char *err, size_t errlen);

/* ---- rendering (console_render.c) ---- */
/* Writes one frame: title, the phones' join URL, room code, the projector's
 * and the presenter's URLs, the secret only when view.show_secret, QR (if
 * view.show_qr), the current question, state (with the seconds left while a
 * voting timer runs), voters, votes, collective score, the last refusal and
 * the keys. With view.cols/rows (a terminal) the frame fits that size: at
 * 80x24 the QR code sits beside the question; on a smaller terminal it is
 * left out with a line saying so. */
void console_render(FILE *out, const struct console_view *v, const struct console_status *st);
/* One line for a log without a terminal: "status: question 2/12 voting, 14
 * votes, 20 voters (18 online)" (no truth: it says "revealed" at most). */
void console_render_line(FILE *out, const struct console_status *st);
/* The URL of one of serve's pages ("screen/", "presenter/") next to the
 * join URL (".../?room=CODE" without its query). Returns 0, or -1 if it does not fit. */
int console_page_url(const char *join_url, const char *page, char *out, size_t outlen);
/* The presenter secret and the presenter URL that carries it: two lines. */
void console_render_secret(FILE *out, const struct console_view *v);
/* Draws the QR code of text with half-block characters (two modules per
 * character cell, light modules drawn, 2-module quiet zone) so a phone can
 * scan it from a dark terminal. Returns 0, or -1 with err. */
int console_qr_draw(FILE *out, const char *text, char *err, size_t errlen);
/* The keys line, e.g. "[n]ext [o]pen [t]imed open [c]lose [m]easure [r]eveal r[e]-run [s]kip [b]ack [q]uit". */
const char *console_keys_help(void);

#endif
