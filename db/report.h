/* Read-only reports over the store: one recorded session as a whole (its
 * questions with tallies, live truth, evidence and timings; its measurement
 * sets; the anonymous distribution of voter scores), for `fragvote sessions`,
 * `replay` and `export`.
 *
 * A report reader has its own read-only SQLite connection to the file of an
 * open struct db (which has already migrated it), so reports never write and
 * never disturb the store's prepared statements. It sees committed data only.
 * Errors: as in db.h (negative return or NULL, a sentence in err). */
#ifndef FRAGVOTE_DB_REPORT_H
#define FRAGVOTE_DB_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

#define DB_REPORT_QUESTIONS_MAX 1024 /* questions read per session; more are refused */
#define DB_REPORT_SETS_MAX 256       /* measurement sets read per session */
#define DB_REPORT_TEXT_MAX 4096      /* longest string copied from a row; longer is cut */

struct db_report;

/* Opens a reader on the file of db. Caller owns it; release with db_report_close(). */
struct db_report *db_report_open(struct db *db, char *err, size_t errlen);
void db_report_close(struct db_report *r);

/* One measurement of a question in one set ("" fields when not measured). */
struct db_report_measure {
    int measured;              /* 0: no measurement in that set */
    char answer[8];            /* "yes" / "no" / "unknown" */
    char basis[12];            /* "observed" / "inferred" / "unknown" / "rule" */
    char observer[16];
    double measured_at;
    char *evidence;            /* owned */
    char *observation_json;    /* owned */
};

/* A question with its score exactly as the store's question_score view says. */
struct db_report_question {
    int64_t id;
    int position, test_index;
    char kind[12];             /* "sent" / "df" / "fragmented" */
    char state[12];
    char *text, *spec_json;    /* owned */
    double opened_at, closed_at, revealed_at; /* 0 when never reached */
    int yes, no;
    int changes;               /* total vote changes on this question */
    int round;                 /* 1, or 2 after a re-vote: yes/no/... are the final (second) round's */
    double revoted_at;         /* when round 2 opened, 0 without a re-vote */
    int first_yes, first_no;   /* round 2: the first round's votes */
    struct confidence_split conf, first_conf; /* the same votes split by confidence (confidence.h) */
    char truth[8];             /* "yes" / "no" / "unknown" / "" (not measured) */
    char majority[8];          /* "yes" / "no" / "tie" / "" (no votes) */
    double correct;            /* 1, 0, 0.5 or -1 unscored */
    int correct_votes;         /* votes equal to a yes/no truth, -1 otherwise */
    struct db_report_measure live; /* the live measurement the truth comes from */
};

struct db_report_set {
    int64_t id;
    char kind[12];             /* "live" / "remeasure" */
    char *host, *kernel, *target, *lab_json; /* owned; lab_json may be NULL */
    double created_at;
    int measurements;
};

/* Anonymous voter score distribution: voters[k] voters had k scored answers right. */
struct db_report_dist {
    int max_correct;           /* questions with a yes/no truth (the most anyone can get right); */
                               /* voters[] has max_correct + 1 slots */
    int *voters;               /* owned */
    int voters_scored;         /* voters with at least one scored answer */
    int voters_unscored;       /* voters who joined but answered nothing scored */
};

struct db_report_session {
    struct db_session_row row;  /* as db_session_get returns it */
    struct db_sscore score;     /* equal to what db_session_score returns (tested) */
    int nquestions;
    struct db_report_question *questions; /* by position */
    int nsets;
    struct db_report_set *sets;           /* oldest first; sets[0] is normally the live set */
    struct db_report_dist dist;
    struct confidence_calib calib; /* the room's calibration: revealed questions' final rounds (docs/SCORING.md) */
};

/* Reads everything about one session through r: the row, the questions with
 * the store's question_score view and their votes split by confidence, the
 * sets, the distribution, the session score aggregated from those rows as
 * the store does (equal to db_session_score, checked by tests/fragvote/export) and
 * the calibration from the revealed questions' splits. db is the store r was opened
 * on. Caller owns *out; release with db_report_session_free(). Returns 0, or
 * -1 (no such session / error). */
int db_report_session_load(struct db *db, struct db_report *r, int64_t session_id,
                           struct db_report_session *out, char *err, size_t errlen);
void db_report_session_free(struct db_report_session *s);

/* The measurement of question_id in set_id (out->measured = 0 if none); the
 * newest if a set holds several. Caller frees with db_report_measure_free(). */
int db_report_measure_get(struct db_report *r, int64_t set_id, int64_t question_id,
                          struct db_report_measure *out, char *err, size_t errlen);
void db_report_measure_free(struct db_report_measure *m);

/* Every session id, oldest first, into a malloc'd array (caller frees). */
int db_report_session_ids(struct db_report *r, int64_t **ids, int *n, char *err, size_t errlen);

/* Writes a consistent copy of the whole database (committed data, WAL
 * included) to a new file at dest_path, e.g. for a throwaway replay. Returns
 * 0, or -1 with err (dest_path exists already, cannot be written...). */
int db_report_snapshot(struct db_report *r, const char *dest_path, char *err, size_t errlen);

#endif
