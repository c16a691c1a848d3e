/* JSON messages the hub sends (docs/PROTOCOL.md). Builders only: they read
 * the room and quiz, never lws. Each returns a malloc'd compact string. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub_internal.h"
#include "hub_conns.h"
#include "hub_msg.h"
#include "hub_tally.h"
#include "calibration.h"
#include "deck_ask.h"
#include "finale.h"
#include "leaderboard.h"
#include "path_json.h"
#include "league.h"
#include "msg_json.h"
#include "revote.h"
#include "room_view.h"

static char *dump(json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

/* The current question: its English text and summary, and "ask", the same
 * as parts that the pages word in their reader's language (deck_ask.h);
 * with words 0 (a question the room has not reached yet) no ask: its text
 * and summary are "" then. */
static json_t *question_json(const struct quiz *q, const struct quiz_qinfo *i, int words) {
    const struct deck_test *t = words ? quiz_test(q, i->position) : NULL;
    return json_pack("{s:i, s:i, s:s, s:s, s:b, s:s, s:s, s:i, s:o*}", "pos", i->position, "test", i->test_index, "kind",
                     quiz_kind_name(i->kind), "state", quiz_state_name(i->state), "measuring", i->measuring, "text",
                     i->text, "summary", i->summary, "round", i->round, "ask", t ? deck_ask_json(t) : NULL);
}

/* A revealed question's first round and the shift to the final one (re-vote). */
static void reveal_add_rounds(json_t *rv, const struct quiz_qinfo *i, const struct quiz_truth *t) {
    if (i->round != 2) return;
    char shift[REVOTE_SHIFT_MAX];
    revote_shift_line(i->first_yes, i->first_no, i->yes, i->no, quiz_score_truth(t), shift, sizeof shift);
    json_object_set_new(rv, "first_round", json_pack("{s:i, s:i}", "yes", i->first_yes, "no", i->first_no));
    if (shift[0]) json_object_set_new(rv, "shift", json_string(shift));
}

/* The revealed facts of question pos, or NULL while it is not revealed.
 * What may be shown is quiz_truth()'s to decide: "evidence" is absent until
 * the test's last question is revealed, "why" may be "". */
static json_t *reveal_json(struct quiz *q, int pos) {
    struct quiz_truth t;
    struct quiz_qinfo i;
    if (quiz_truth(q, pos, &t) || quiz_get(q, pos, &i)) return NULL;
    const char *majority = score_majority_name(score_majority(i.yes, i.no));
    double correct = score_correct(i.yes, i.no, quiz_score_truth(&t));
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:f}", "truth", probe_answer_name(t.answer), "basis",
                          probe_basis_name(t.basis), "why", t.why, "yes", i.yes, "no", i.no, "majority", majority,
                          "correct", correct);
    if (o && t.evidence[0]) json_object_set_new(o, "evidence", json_string(t.evidence));
    json_t *ev = o && t.evidence[0] ? msg_json_row(t.evidence_msg, t.nevidence) : NULL;
    if (ev) json_object_set_new(o, "evidence_msg", ev);
    if (o && t.explain[0]) json_object_set_new(o, "explain", json_string(t.explain));
    if (o && t.explain_key[0]) json_object_set_new(o, "explain_key", json_string(t.explain_key));
    if (o && t.surprise[0]) json_object_set_new(o, "surprise", json_string(t.surprise));
    if (o && t.nexplain) json_object_set_new(o, "explain_msg", msg_json_list(t.explain_msg, t.nexplain));
    if (o && t.nwhy > 0) json_object_set_new(o, "why_msg", msg_json_row(t.why_msg, t.nwhy));
    json_t *surprise = t.surprise_msg.key[0] ? msg_json(&t.surprise_msg) : NULL;
    json_t *said_why = json_object_get(json_object_get(surprise, "args"), "why");
    if (said_why && t.nwhy > 0) /* the measured why after the dash: its own message(s) */
        json_object_set_new(json_object_get(surprise, "args"), "why", msg_json_row(t.why_msg, t.nwhy));
    if (o && surprise) json_object_set_new(o, "surprise_msg", surprise);
    else json_decref(surprise);
    if (o) reveal_add_rounds(o, &i, &t);
    json_t *conf = o ? calibration_reveal_json(&i.conf, i.round == 2 ? &i.first_conf : NULL, quiz_score_truth(&t))
                     : NULL; /* the votes split by confidence */
    if (conf) json_object_set_new(o, "confidence", conf);
    return o;
}

/* The final screen's top voters with a nickname (serve --leaderboard). */
static json_t *leaderboard_json(struct hub *h) {
    struct leaderboard_row top[LEADERBOARD_TOP];
    int n = leaderboard_top(h->board, h->room, top);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:i, s:i}", "nick", top[i].nick, "correct", top[i].correct,
                                           "scored", top[i].scored));
    return a;
}

/* The final screen's lessons (finale.h): every question in them was
 * revealed, so they tell nothing new. */
static json_t *finale_json(const struct quiz *q) {
    struct finale_missed m[FINALE_MISSED];
    int n = finale_missed(q, m);
    json_t *missed = json_array();
    for (int i = 0; i < n; i++) {
        struct quiz_qinfo qi;
        const struct deck_test *t = quiz_test(q, m[i].pos);
        json_t *e = json_pack("{s:i, s:s, s:f, s:i, s:s?, s:o*}", "pos", m[i].pos, "text", m[i].text, "wrong", m[i].wrong,
                              "votes", m[i].votes, "kind", quiz_get(q, m[i].pos, &qi) ? NULL : quiz_kind_name(qi.kind),
                              "ask", t ? deck_ask_json(t) : NULL);
        if (e && m[i].lesson[0]) json_object_set_new(e, "lesson", json_string(m[i].lesson));
        if (e && m[i].lesson_msg.key[0]) json_object_set_new(e, "lesson_msg", msg_json(&m[i].lesson_msg));
        json_array_append_new(missed, e);
    }
    json_t *o = json_pack("{s:o}", "missed", missed);
    struct finale_shift s;
    finale_shift(q, &s);
    if (o && s.pos >= 0)
        json_object_set_new(o, "shift", json_pack("{s:i, s:f, s:f}", "pos", s.pos, "before", s.before, "after", s.after));
    return o;
}

/* What who may see of question pos, decided by the room (room_view.h). */
static void view_of(struct hub *h, enum room_viewer who, int pos, struct room_view *v) {
    struct room_view_opts o = {.live_split = h->cfg.live_split, .leaderboard = h->board != NULL};
    room_view_at(h->room, who, &o, pos, v);
}

char *hub_msg_state(struct hub *h, enum room_viewer who) {
    return hub_msg_state_of(h, who, quiz_cursor(room_quiz(h->room)));
}

char *hub_msg_state_of(struct hub *h, enum room_viewer who, int pos) {
    struct room_view v;
    view_of(h, who, pos, &v);
    struct quiz *q = room_quiz(h->room);
    int n = quiz_count(q), cur = quiz_cursor(q), scored = 0;
    struct quiz_qinfo ci;
    if (quiz_get(q, pos, &ci)) return NULL;
    if (!v.text) ci.text[0] = ci.summary[0] = 0; /* a question the room has not reached yet */
    double coll = quiz_collective(q, &scored);
    json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:i, s:b, s:b, s:o, s:f, s:i}", "t", "state", "v",
                          HUB_PROTOCOL_VERSION, "room", room_code(h->room), "title", room_title(h->room), "join_url",
                          h->join_url, "n", n, "cursor", cur, "ended", quiz_ended(q), "live_split", h->cfg.live_split,
                          "q", question_json(q, &ci, v.text), "collective", coll, "scored", scored);
    if (!o) return NULL;
    /* the projector's and presenter page's language: serve --lang, else the deck's */
    const char *lang = h->cfg.lang && h->cfg.lang[0] ? h->cfg.lang : room_lang(h->room);
    json_object_set_new(o, "lang", json_string(lang[0] ? lang : "en"));
    if (v.nicknames) json_object_set_new(o, "nicknames", json_true()); /* phones may offer the field */
    if (v.replay) json_object_set_new(o, "replay", json_true()); /* phones may offer the replay */
    if (v.split) json_object_set_new(o, "split", json_pack("{s:i, s:i}", "yes", ci.yes, "no", ci.no));
    /* serve --prober remote: whether the laptop that measures is connected (the presenter only) */
    if (who == ROOM_VIEWER_PRESENTER && h->cfg.prober_remote)
        json_object_set_new(o, "prober", json_boolean(hub_prober_connected(&h->remote)));
    const struct deck_test *dt = v.notes ? quiz_test(q, pos) : NULL;
    if (dt && dt->notes[0]) json_object_set_new(json_object_get(o, "q"), "notes", json_string(dt->notes));
    /* another than the current question: its count (the tallies count the current one's) */
    if (pos != cur) json_object_set_new(json_object_get(o, "q"), "votes", json_integer(quiz_votes(q, pos)));
    json_t *rv = reveal_json(q, pos);
    /* The question's path picture, as quiz_path() filters it (the
     * questions[] list carries none). */
    struct probe_path path;
    if (rv && !quiz_path(q, pos, &path)) json_object_set_new(rv, "path", path_json_from(&path));
    /* the projectors' view of it (hub_why): "what" happened or "why"; phones show both as ever */
    if (rv && who != ROOM_VIEWER_PHONE)
        json_object_set_new(rv, "view", json_string(hub_why_shown(&h->act, pos) ? "why" : "what"));
    if (rv) json_object_set_new(o, "reveal", rv);
    long long left = pos == cur ? hub_closes_in_ms(&h->act) : -1; /* the timer is the current question's */
    if (left >= 0) json_object_set_new(o, "closes_in_ms", json_integer(left));
    if (!v.questions) return dump(o); /* each one's truth only once revealed (reveal_json) */
    json_t *all = json_array();
    for (int p = 0; p < n; p++) {
        struct quiz_qinfo i;
        quiz_get(q, p, &i);
        json_t *e = json_pack("{s:i, s:i, s:s, s:s}", "pos", p, "test", i.test_index, "kind", quiz_kind_name(i.kind),
                              "state", quiz_state_name(i.state));
        json_t *r = reveal_json(q, p);
        if (r) {
            json_object_set(e, "truth", json_object_get(r, "truth"));
            json_object_set(e, "yes", json_object_get(r, "yes"));
            json_object_set(e, "no", json_object_get(r, "no"));
            json_object_set(e, "correct", json_object_get(r, "correct"));
            json_decref(r);
        }
        json_array_append_new(all, e);
    }
    json_object_set_new(o, "questions", all);
    char league[LEAGUE_LINE_MAX];
    struct fv_msg league_msg;
    league_line_msg(quiz_ended(q) ? coll : -1, &league_msg);
    fv_msg_text(&league_msg, league, sizeof league);
    if (v.league && league[0]) json_object_set_new(o, "league", json_string(league));
    if (v.league && league[0]) json_object_set_new(o, "league_msg", msg_json(&league_msg));
    if (quiz_ended(q)) {
        json_object_set_new(o, "finale", finale_json(q));
        struct confidence_calib calib;
        calibration_of_quiz(q, &calib); /* revealed questions only */
        json_t *cj = calibration_json(&calib);
        if (cj) json_object_set_new(o, "calibration", cj);
    }
    if (v.leaderboard) json_object_set_new(o, "leaderboard", leaderboard_json(h));
    return dump(o);
}

char *hub_msg_tally(struct hub *h, enum room_viewer who) {
    struct quiz *q = room_quiz(h->room);
    struct room_view v;
    view_of(h, who, quiz_cursor(q), &v);
    struct quiz_qinfo ci;
    quiz_get(q, quiz_cursor(q), &ci);
    json_t *o = json_pack("{s:s, s:i, s:I, s:i, s:s, s:i, s:i, s:i}", "t", "tally", "v", HUB_PROTOCOL_VERSION, "ver",
                          (json_int_t)hub_tally_version(h->bcast), "q", ci.position, "state", quiz_state_name(ci.state),
                          "online", hub_conns_voters_online(h->conns) + hub_conns_newcomers(h->conns), "joined",
                          room_voter_count(h->room) + hub_conns_newcomers(h->conns), "votes", quiz_votes(q, ci.position));
    long long left = hub_closes_in_ms(&h->act);
    if (o && left >= 0) json_object_set_new(o, "closes_in_ms", json_integer(left));
    if (o && v.split) {
        json_object_set_new(o, "yes", json_integer(ci.yes));
        json_object_set_new(o, "no", json_integer(ci.no));
    }
    if (o && v.hub_counts) {
        json_object_set_new(o, "screens", json_integer(hub_conns_role_count(h->conns, HUB_SCREEN)));
        json_object_set_new(o, "presenters", json_integer(hub_conns_role_count(h->conns, HUB_PRESENTER)));
    }
    return dump(o);
}

char *hub_msg_welcome(struct room *room, int voter, const char *token) {
    struct quiz *q = room_quiz(room);
    int n = quiz_count(q);
    json_t *votes = json_array(), *conf = json_array();
    for (int p = 0; p < n; p++) {
        json_array_append_new(votes, json_integer(room_voter_vote(room, voter, p)));
        const char *c = confidence_name(room_voter_confidence(room, voter, p));
        json_array_append_new(conf, c ? json_string(c) : json_null());
    }
    int answered, scored, correct;
    room_voter_score(room, voter, &answered, &scored, &correct);
    return dump(json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:{s:i, s:i, s:i}}", "t", "welcome", "v",
                          HUB_PROTOCOL_VERSION, "token", token, "room", room_code(room), "votes", votes, "confidence",
                          conf, "score", "answered", answered, "scored", scored, "correct", correct));
}

/* One per vote, 20,000 within seconds: numbers only, so printed directly
 * rather than built as a jansson object. */
char *hub_msg_ack(long long id, int pos, int yes, enum confidence conf, int votes) {
    char s[160], sid[32] = "", sconf[32] = "";
    if (id >= 0) snprintf(sid, sizeof sid, ",\"id\":%lld", id);
    if (confidence_name(conf)) snprintf(sconf, sizeof sconf, ",\"confidence\":\"%s\"", confidence_name(conf));
    snprintf(s, sizeof s, "{\"t\":\"ack\",\"q\":%d,\"yes\":%s%s,\"votes\":%d%s}", pos, yes ? "true" : "false", sconf,
             votes, sid);
    return strdup(s);
}

/* Only revealed questions: reveal_json gives nothing of the others, so a
 * skipped question's measurement is in no replay. */
char *hub_msg_replay(struct hub *h) {
    struct quiz *q = room_quiz(h->room);
    int n = quiz_count(q), scored = 0;
    double coll = quiz_collective(q, &scored);
    const char *lang = h->cfg.lang && h->cfg.lang[0] ? h->cfg.lang : room_lang(h->room);
    json_t *all = json_array();
    json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:f, s:i, s:o}", "t", "replay", "v", HUB_PROTOCOL_VERSION,
                          "room", room_code(h->room), "title", room_title(h->room), "lang", lang[0] ? lang : "en",
                          "n", n, "collective", coll, "scored", scored, "questions", all);
    for (int p = 0; o && p < n; p++) {
        struct quiz_qinfo i;
        json_t *rv = quiz_get(q, p, &i) ? NULL : reveal_json(q, p);
        if (!rv) continue;
        struct probe_path path;
        if (!quiz_path(q, p, &path)) json_object_set_new(rv, "path", path_json_from(&path));
        json_t *e = question_json(q, &i, 1);
        if (e) json_object_set_new(e, "reveal", rv);
        else json_decref(rv);
        json_array_append_new(all, e);
    }
    return dump(o);
}

char *hub_msg_replay_ack(long long id, int pos, int yes) {
    char s[96], sid[32] = "";
    if (id >= 0) snprintf(sid, sizeof sid, ",\"id\":%lld", id);
    snprintf(s, sizeof s, "{\"t\":\"replay_ack\",\"q\":%d,\"yes\":%s%s}", pos, yes ? "true" : "false", sid);
    return strdup(s);
}

char *hub_msg_error(long long id, const char *code, const char *message) {
    json_t *o = json_pack("{s:s, s:s, s:s}", "t", "error", "code", code, "message", message);
    if (o && id >= 0) json_object_set_new(o, "id", json_integer((json_int_t)id));
    return dump(o);
}

char *hub_msg_simple(const char *type, const char *key, const char *value) {
    json_t *o = json_pack("{s:s}", "t", type);
    if (o && key) json_object_set_new(o, key, json_string(value));
    return dump(o);
}
