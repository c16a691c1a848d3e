/* The talk's state machine: pure logic, no I/O, no libwebsockets, no SQLite.
 *
 * A quiz is built from a deck: one question per (test, asked kind), in deck
 * order. Each question moves
 *     pending -> voting -> closed -> measured -> revealed
 * or to skipped. A cursor points at the current question; only the current
 * question can be opened, closed, measured or revealed. Every refused
 * transition returns -1 with a sentence in err.
 *
 * The truth (the probe's answer for a question) is held inside struct quiz,
 * which is opaque: the only way out is quiz_truth(), which gives nothing until
 * that question is revealed, and then only what may be shown. Revealing a "sent" question whose truth is "no"
 * skips the remaining pending questions of that test (a packet that was not
 * sent has no DF bit and no fragments), as fragquiz does.
 *
 * A struct quiz is used by one thread at a time (the hub's lws thread). */
#ifndef FRAGVOTE_QUIZ_H
#define FRAGVOTE_QUIZ_H

#include <stddef.h>
#include <stdint.h>

#include "deck.h"
#include "fragprobe.h"
#include "confidence.h"
#include "qkind.h"
#include "score.h"

#define QUIZ_QUESTIONS_MAX (DECK_TESTS_MAX * QKIND_N) /* a question per kind of each test */
#define QUIZ_TEXT_MAX 256

enum quiz_state { QUIZ_PENDING, QUIZ_VOTING, QUIZ_CLOSED, QUIZ_MEASURED, QUIZ_REVEALED, QUIZ_SKIPPED };
/* "pending" "voting" "closed" "measured" "revealed" "skipped" (the db's names). */
const char *quiz_state_name(enum quiz_state s);
int quiz_state_parse(const char *name, enum quiz_state *out);
/* A question's kind as the wire and the store spell it: "sent" "df"
 * "fragmented" (qkind_name; the transport names kinds through the room). */
const char *quiz_kind_name(enum qkind k);

/* What anyone may know about a question at any time (no truth in here). */
struct quiz_qinfo {
    int position;                 /* 0-based */
    int test_index;               /* index into the deck's tests */
    enum qkind kind;
    enum quiz_state state;
    int measuring;                /* a measurement was asked for and has not arrived */
    int yes, no;                  /* committed votes (of the final round) */
    int round;                    /* 1, or 2 after a re-vote */
    int first_yes, first_no;      /* round 2: the first round's votes */
    /* The same votes split by confidence (their sums are yes/no and
     * first_yes/first_no). Like yes/no, no message shows them before the
     * reveal: the hub reads them only for a revealed question (reveal_json). */
    struct confidence_split conf, first_conf;
    char text[QUIZ_TEXT_MAX];     /* deck_question_text() */
    char summary[QUIZ_TEXT_MAX];  /* deck_test_summary() */
};

/* The truth of a question, from the probe's result. */
struct quiz_truth {
    enum probe_answer answer;
    enum probe_basis basis;
    char why[160];                /* the fact's own rule or observation */
    char evidence[512];           /* the probe's evidence line: it speaks about every fact of the test */
    char explain[PROBE_PREDICT_TEXT_MAX]; /* the rules' chain for this fact (probe_predict_text), "" none */
    char explain_key[PROBE_PREDICT_STEP_MAX]; /* its conclusion alone (probe_predict_key), for the projector */
    char surprise[256];           /* "Surprise: the rules said no -- ..." where the measurement differs, else "" */
    /* The same texts as messages (fv_msg.h: a catalog key and its arguments),
     * for the pages to word in their reader's language; built from the same
     * data at the same moment, so they show exactly what the English shows. */
    struct fv_msg explain_msg[PROBE_PREDICT_STEPS_MAX]; /* explain's steps; the last one is explain_key's */
    int nexplain;                 /* 0: no explanation */
    struct fv_msg surprise_msg;   /* key "" when no surprise */
    int nwhy;                     /* why as messages in a row (probe_fact.msg), 0 none */
    struct fv_msg why_msg[PROBE_WHY_PARTS];
    int nevidence;                /* evidence as messages in a row (probe_result.ev), 0 none */
    struct fv_msg evidence_msg[PROBE_EVIDENCE_PARTS];
};

struct quiz;

/* Builds the questions of deck d (copied: the quiz does not keep d).
 * Returns NULL with err filled when the deck asks no question. Caller owns
 * the result; release with quiz_free(). */
struct quiz *quiz_new(const struct deck *d, char *err, size_t errlen);
void quiz_free(struct quiz *q);

int quiz_count(const struct quiz *q);
int quiz_cursor(const struct quiz *q);
int quiz_ended(const struct quiz *q);      /* "next" went past the last question */
/* The first question neither revealed nor skipped (a pending one "next"
 * went past can still be opened after "back"), or -1 when every one is. */
int quiz_first_open(const struct quiz *q);
/* Fills *out for question pos; returns 0, or -1 if pos is out of range. */
int quiz_get(const struct quiz *q, int pos, struct quiz_qinfo *out);
/* Question pos's committed votes (yes + no, of the final round), the count
 * every tally and ack carries; -1 if pos is out of range. */
int quiz_votes(const struct quiz *q, int pos);
/* The deck test behind question pos (owned by the quiz), NULL if out of range. */
const struct deck_test *quiz_test(const struct quiz *q, int pos);
/* What the reveal of question pos may show, copied to *out: returns 0, or
 * -1 (out untouched) while pos is not revealed. The one place that decides
 * what a reveal shows; the rule (docs/PROTOCOL.md, "What a reveal shows"):
 * nothing shown may answer a question of the test that can still be revealed.
 * So answer and basis always; why (the question's own fact) once no earlier
 * question of its test is still open (every one revealed or skipped), else
 * ""; evidence (the test's whole line, e.g. "r1 dropped it with Frag Needed,
 * MTU 1280", which answers DF? and fragmented? too) only once no question of
 * the test is left (each revealed or skipped), else "". The rules' chain
 * (explain) only with the steps that tell nothing of a sibling still open;
 * the surprise headline when the measurement differs from the rules (its
 * why under the same rule as why). */
int quiz_truth(const struct quiz *q, int pos, struct quiz_truth *out);
/* What the reveal of question pos may draw of its test's path (issue 20;
 * docs/PROTOCOL.md "What a reveal shows"), by the same rule as quiz_truth:
 * returns 0 with *out filled, or -1 while pos is not revealed or its test's
 * measurement has no path. The whole path ("full") once no question of the
 * test is left to reveal; before that only the fields of the facts that may
 * be shown -- the question's own and those of siblings already revealed or
 * skipped: "sent?" whether anything left (and EMSGSIZE), "DF?" the DF bit as
 * it left, "fragmented?" the pieces that left and at each node; no ICMP, no
 * quote, no MTU learned from ICMP, no text. With an earlier question of the
 * test still open, nodes and links only ("topology"). */
int quiz_path(const struct quiz *q, int pos, struct probe_path *out);
/* Pure: cuts the full path p down to what the reveal of a question of
 * `kind` may draw while others of its test are open (issue 36, item 2):
 * `allowed` has bit 1 << k for each fact that may be shown (0: nodes and
 * links only, "topology"). What stays is the same whatever the open facts'
 * answers are: the nodes known before the send (a lab's, or TTL
 * discovery's -- not a router that answered this packet), link MTUs not
 * learned from ICMP, "left" and the host's own refusal (sent), the DF bit
 * as it left (DF), the pieces that left and the routers that cut or joined
 * them (fragmented); never an ICMP, a quote, an arrival or how far it got. */
void quiz_path_view(struct probe_path *p, enum qkind kind, unsigned allowed);
/* The truth as scoring sees it (score.h): unknown is SCORE_TRUTH_NONE. */
enum score_truth quiz_score_truth(const struct quiz_truth *t);

/* ---- presenter actions (on the current question) ---- */
int quiz_open(struct quiz *q, char *err, size_t errlen);    /* pending -> voting */
int quiz_close(struct quiz *q, char *err, size_t errlen);   /* voting -> closed */

enum quiz_measure { QUIZ_MEASURE_PROBE = 1 };
/* Asks for the truth of the current question (state closed; or measured /
 * revealed when rerun is set: measure again, e.g. after the PMTU cache
 * changed). Returns QUIZ_MEASURE_PROBE (the question is "measuring" until
 * quiz_measured() brings its result), or -1 (refused). The quiz keeps no
 * probe results: whether one is already known for the test (measured for
 * another question, or prefetched) is the room's business (room.h). */
int quiz_measure(struct quiz *q, int rerun, char *err, size_t errlen);
/* The probe result for question pos arrived: its truth for pos, which moves
 * closed -> measured (a revealed question stays revealed with the new
 * truth). Refused unless pos is measuring. */
int quiz_measured(struct quiz *q, int pos, const struct probe_result *r, char *err, size_t errlen);
/* measured -> revealed; may skip the rest of the test (see above). */
int quiz_reveal(struct quiz *q, char *err, size_t errlen);
/* Moves to the next question that is not skipped; past the last one the quiz
 * has ended. Refused while the current question is voting, closed or measured. */
int quiz_next(struct quiz *q, char *err, size_t errlen);
/* Moves to the previous question that is not skipped (from the end: back to
 * the last). Refused while voting. */
int quiz_back(struct quiz *q, char *err, size_t errlen);
/* Marks the current question skipped (unless revealed) and moves on. */
int quiz_skip(struct quiz *q, char *err, size_t errlen);
/* Re-vote (peer instruction): a closed question in round 1 opens a second
 * round, closed -> voting; its tally becomes first_yes/first_no and the
 * round's yes/no start at 0 (everyone votes again; the final round counts).
 * quiz_revote_check says whether it may, without changing anything. */
/* The talk ends here (issue 37, item 6: a 30-minute talk, not the whole
 * deck): every question not revealed is skipped (its votes and any
 * measurement kept; a question voting now stops, as skip stops it) and
 * the quiz goes to its end. Refused once ended. */
int quiz_end(struct quiz *q, char *err, size_t errlen);
/* The answer without a vote (issue 37, item 6: a question the talk has no
 * time to vote on still shows the room its result): the current pending
 * question is closed with no votes, ready to be measured and revealed (it
 * scores nothing). Refused unless pending. */
int quiz_answer_unvoted(struct quiz *q, char *err, size_t errlen);
int quiz_revote_check(const struct quiz *q, char *err, size_t errlen);
int quiz_revote(struct quiz *q, char *err, size_t errlen);

/* ---- votes ---- */
/* (Whether a vote may count is the room's to decide: room_vote_check.) */
/* Applies a committed vote to the tally: old is the voter's previous vote on
 * pos (-1 none, 0 no, 1 yes) with its confidence old_conf, yes the new one
 * with conf (the tally's split by confidence, quiz_qinfo.conf). */
void quiz_vote_apply(struct quiz *q, int pos, int old, enum confidence old_conf, int yes, enum confidence conf);

/* ---- restoring (room resume) ---- */
/* Sets state, tally and truth of question pos as stored, without rules
 * (the tally's votes without a confidence: quiz_vote_apply adds others).
 * truth may be NULL (not measured). */
int quiz_restore(struct quiz *q, int pos, enum quiz_state s, int yes, int no, const struct quiz_truth *truth);
void quiz_restore_cursor(struct quiz *q, int cursor, int ended);
/* Question pos is being measured again: its measurement was in flight when
 * the room stopped (room resume asks the prober anew). Refused (-1) unless
 * it is closed, measured or revealed. */
int quiz_restore_measuring(struct quiz *q, int pos);
/* The path stored with the measurement of question pos's test (room resume). */
int quiz_restore_path(struct quiz *q, int pos, const struct probe_path *p);
/* Question pos is in its second round; yes and no votes of its first round
 * with confidence conf are added to that round's tally as stored (called
 * once per confidence level the round had). */
int quiz_restore_round(struct quiz *q, int pos, enum confidence conf, int first_yes, int first_no);

/* The truth a probe result gives for a kind of question. */
void quiz_truth_from_probe(const struct probe_result *r, enum qkind kind, struct quiz_truth *out);

/* Collective score over revealed questions with votes and a known truth:
 * mean of 1 (majority right), 0 (wrong), 0.5 (tie); -1 if none scored. */
double quiz_collective(const struct quiz *q, int *scored);

#endif
