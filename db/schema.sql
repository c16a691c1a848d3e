-- fragvote store: the single source of the schema.
--
-- The file is a list of forward migrations. Each starts with a line
-- "-- migration: N" and brings the schema from version N-1 to N. db_open()
-- applies, in one transaction each, every migration above the file's
-- recorded version; a database whose version is above the newest one here is
-- refused. Never edit a released migration: append a new one.
--
-- Times are Unix seconds (REAL, millisecond precision). Answers are 'yes' /
-- 'no' / 'unknown'; votes are 1 (yes) / 0 (no).

-- migration: 1
CREATE TABLE schema_version (
  version INTEGER NOT NULL
);
INSERT INTO schema_version(version) VALUES (0);

CREATE TABLE sessions (
  id          INTEGER PRIMARY KEY,
  title       TEXT NOT NULL,
  deck        TEXT NOT NULL,            -- the deck as loaded (JSON text)
  host        TEXT NOT NULL DEFAULT '', -- host name of the presenter's laptop
  kernel      TEXT NOT NULL DEFAULT '', -- uname -sr of that host
  observer    TEXT NOT NULL DEFAULT '', -- raw | recverr
  target      TEXT NOT NULL DEFAULT '', -- address probed, or 'lab'
  lab         TEXT,                     -- lab topology (JSON) when the lab was the target
  room        TEXT NOT NULL DEFAULT '', -- room code shown to phones
  cursor      INTEGER NOT NULL DEFAULT 0, -- position of the current question (resume after restart)
  started_at  REAL NOT NULL,
  ended_at    REAL
);

CREATE TABLE questions (
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,         -- 0-based order in the session
  test_index  INTEGER NOT NULL,         -- which deck test this question belongs to
  spec        TEXT NOT NULL,            -- the probe test spec (JSON text, not interpreted here)
  kind        TEXT NOT NULL CHECK (kind IN ('sent', 'df', 'fragmented')),
  text        TEXT NOT NULL,            -- the question as asked
  state       TEXT NOT NULL DEFAULT 'pending'
              CHECK (state IN ('pending', 'voting', 'closed', 'measured', 'revealed', 'skipped')),
  opened_at   REAL,
  closed_at   REAL,
  revealed_at REAL,
  UNIQUE (session_id, position)
);

CREATE TABLE voters (
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  token_hash  TEXT NOT NULL,            -- SHA-256 (hex) of the phone's random token; no IP is stored
  joined_at   REAL NOT NULL,
  UNIQUE (session_id, token_hash)
);

CREATE TABLE votes (
  id          INTEGER PRIMARY KEY,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  voter_id    INTEGER NOT NULL REFERENCES voters(id) ON DELETE CASCADE,
  answer      INTEGER NOT NULL CHECK (answer IN (0, 1)),
  voted_at    REAL NOT NULL,
  changes     INTEGER NOT NULL DEFAULT 0, -- how often this voter changed this vote
  UNIQUE (question_id, voter_id)
);
CREATE INDEX votes_voter ON votes(voter_id);

-- A measurement set is one run of the session's tests: the live one taken
-- during the talk (kind 'live'), or a later `replay --remeasure` (kind
-- 'remeasure') linked to the same session. Scores use the live set only.
CREATE TABLE measurement_sets (
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('live', 'remeasure')),
  host        TEXT NOT NULL DEFAULT '',
  kernel      TEXT NOT NULL DEFAULT '',
  target      TEXT NOT NULL DEFAULT '',
  lab         TEXT,
  created_at  REAL NOT NULL
);

CREATE TABLE measurements (
  id          INTEGER PRIMARY KEY,
  set_id      INTEGER NOT NULL REFERENCES measurement_sets(id) ON DELETE CASCADE,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  answer      TEXT NOT NULL CHECK (answer IN ('yes', 'no', 'unknown')),
  basis       TEXT NOT NULL DEFAULT 'observed' CHECK (basis IN ('observed', 'inferred', 'unknown')),
  evidence    TEXT NOT NULL,            -- one human line: why this answer
  observation TEXT NOT NULL,            -- the probe's raw observation (JSON text)
  observer    TEXT NOT NULL,            -- raw | recverr
  measured_at REAL NOT NULL
);
CREATE INDEX measurements_question ON measurements(question_id, id);

-- The truth of a question: its newest live measurement.
CREATE VIEW question_truth AS
  SELECT q.id AS question_id, q.session_id,
         (SELECT m.answer FROM measurements m JOIN measurement_sets s ON s.id = m.set_id
           WHERE m.question_id = q.id AND s.kind = 'live' ORDER BY m.id DESC LIMIT 1) AS truth
    FROM questions q;

-- Per question: votes, majority and whether the majority was right.
-- majority: 'yes' / 'no' / 'tie' (NULL without votes).
-- correct: 1 right, 0 wrong, 0.5 tie; NULL when unscored (no votes, or the
-- truth is not measured or unknown). See docs/SCORING.md.
CREATE VIEW question_score AS
  SELECT t.question_id, t.session_id, t.yes, t.no, t.yes + t.no AS total, t.truth,
         CASE WHEN t.yes + t.no = 0 THEN NULL
              WHEN t.yes > t.no THEN 'yes' WHEN t.no > t.yes THEN 'no' ELSE 'tie' END AS majority,
         CASE WHEN t.yes + t.no = 0 OR t.truth IS NULL OR t.truth = 'unknown' THEN NULL
              WHEN t.yes = t.no THEN 0.5
              WHEN (t.yes > t.no) = (t.truth = 'yes') THEN 1.0 ELSE 0.0 END AS correct,
         CASE WHEN t.truth = 'yes' THEN t.yes WHEN t.truth = 'no' THEN t.no END AS correct_votes
    FROM (SELECT qt.question_id, qt.session_id, qt.truth,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 1) AS yes,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 0) AS no
            FROM question_truth qt) t;

-- Per voter: questions answered that have a known truth, and how many right.
CREATE VIEW voter_score AS
  SELECT vr.id AS voter_id, vr.session_id,
         count(qt.truth) AS scored,
         coalesce(sum(CASE WHEN (v.answer = 1) = (qt.truth = 'yes') THEN 1 ELSE 0 END), 0) AS correct
    FROM voters vr
    LEFT JOIN votes v ON v.voter_id = vr.id
    LEFT JOIN question_truth qt ON qt.question_id = v.question_id AND qt.truth IN ('yes', 'no')
   GROUP BY vr.id;

-- migration: 2
-- Faster scores for keynote-sized rooms (20,000 voters x 36 questions: voter_score
-- 2.2 s -> 0.4 s CPU, question_score 2.2 s -> 0.14 s): each question's truth is
-- computed once in a grouped subquery instead of once per vote, and yes/no
-- counts come from an index that covers (question, answer). The views
-- built on question_truth (question_score, voter_score) read it by name at
-- query time, so they need no re-creation.
DROP VIEW question_truth;
CREATE INDEX votes_question_answer ON votes(question_id, answer);
CREATE VIEW question_truth AS
  SELECT q.id AS question_id, q.session_id, lm.answer AS truth
    FROM questions q
    LEFT JOIN (SELECT m.question_id, m.answer, max(m.id) AS newest
                 FROM measurements m JOIN measurement_sets s ON s.id = m.set_id
                WHERE s.kind = 'live' GROUP BY m.question_id) lm ON lm.question_id = q.id;

-- migration: 3
-- Re-vote rounds (peer instruction: vote, discuss with your neighbour, vote
-- again). After voting closed, the presenter may open a second round on the
-- same question: in one transaction the question goes to round 2 and back to
-- 'voting', and its first round's votes move from votes to round_votes. So
-- votes always holds the final round, which every score view reads, and
-- round_votes keeps the first round for the reveal's shift and the exports.
ALTER TABLE questions ADD COLUMN round INTEGER NOT NULL DEFAULT 1 CHECK (round IN (1, 2));
ALTER TABLE questions ADD COLUMN revoted_at REAL;  -- when round 2 opened
CREATE TABLE round_votes (
  id          INTEGER PRIMARY KEY,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  voter_id    INTEGER NOT NULL REFERENCES voters(id) ON DELETE CASCADE,
  round       INTEGER NOT NULL CHECK (round = 1),  -- an earlier round; the final one is in votes
  answer      INTEGER NOT NULL CHECK (answer IN (0, 1)),
  voted_at    REAL NOT NULL,
  changes     INTEGER NOT NULL DEFAULT 0,
  UNIQUE (question_id, voter_id, round)
);
CREATE INDEX round_votes_voter ON round_votes(voter_id);

-- migration: 4
-- Voter tokens are authenticated (docs/PROTOCOL.md, Identity): a token is a
-- random id and a truncated HMAC-SHA256 of it under this per-session key
-- (64 hex digits), so only tokens the server issued resume a voter. NULL in
-- sessions made before it: resuming one gives it a key (its voters are still
-- found by their stored token hash).
ALTER TABLE sessions ADD COLUMN token_key TEXT;

-- migration: 5
-- A question whose measurement was asked for and has not come back (1), so
-- `serve --resume` asks its prober again after a crash instead of leaving
-- the presenter to press m (the state stays closed, or measured/revealed
-- for a re-run).
ALTER TABLE questions ADD COLUMN measuring INTEGER NOT NULL DEFAULT 0 CHECK (measuring IN (0, 1));

-- migration: 6
-- The voters' token index goes (issue 22). UNIQUE (session_id, token_hash)
-- was a B-tree keyed by a random hash: every new voter's INSERT dirtied a
-- page of it of its own, so a commit of 70 first votes wrote ~70 index
-- pages to the log. Storing 19,900 first votes in commits of 70 took 26 us
-- a vote with it and 9 us without (tests/bench/bench_store, BENCHMARKS.md).
-- A token is one voter per session by the room's rule instead: the room
-- keeps every voter's token hash in memory (loaded by `serve --resume`),
-- asks it before a vote creates a voter, and a batch carrying the same new
-- token twice creates it once (room_write_run). Nothing looks a voter up
-- by token in SQL any more; voters_session finds a session's voters, and
-- its entries only append (ids grow). db_open runs this with foreign keys
-- off (the rebuild must not cascade into the votes) and checks them after.
DROP VIEW voter_score;
CREATE TABLE voters_new (
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  token_hash  TEXT NOT NULL,            -- SHA-256 (hex) of the phone's random token; no IP is stored
  joined_at   REAL NOT NULL
);
INSERT INTO voters_new(id, session_id, token_hash, joined_at)
  SELECT id, session_id, token_hash, joined_at FROM voters;
DROP TABLE voters;
ALTER TABLE voters_new RENAME TO voters;
CREATE INDEX voters_session ON voters(session_id);
CREATE VIEW voter_score AS
  SELECT vr.id AS voter_id, vr.session_id,
         count(qt.truth) AS scored,
         coalesce(sum(CASE WHEN (v.answer = 1) = (qt.truth = 'yes') THEN 1 ELSE 0 END), 0) AS correct
    FROM voters vr
    LEFT JOIN votes v ON v.voter_id = vr.id
    LEFT JOIN question_truth qt ON qt.question_id = v.question_id AND qt.truth IN ('yes', 'no')
   GROUP BY vr.id;

-- migration: 7
-- A truth may be decided by a stated rule of IP (issue 34): basis 'rule'
-- ("DF=1 and it left whole: no router fragments it"; "no router fragments
-- IPv6"), beside 'observed', 'inferred' and 'unknown'. SQLite changes a
-- CHECK only by rebuilding the table; the views over it go and come back
-- unchanged (a rename would refuse views naming a missing one). db_open
-- runs this with foreign keys off and checks them after.
DROP VIEW voter_score;
DROP VIEW question_score;
DROP VIEW question_truth;
CREATE TABLE measurements_new (
  id          INTEGER PRIMARY KEY,
  set_id      INTEGER NOT NULL REFERENCES measurement_sets(id) ON DELETE CASCADE,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  answer      TEXT NOT NULL CHECK (answer IN ('yes', 'no', 'unknown')),
  basis       TEXT NOT NULL DEFAULT 'observed' CHECK (basis IN ('observed', 'inferred', 'unknown', 'rule')),
  evidence    TEXT NOT NULL,            -- one human line: why this answer
  observation TEXT NOT NULL,            -- the probe's raw observation (JSON text)
  observer    TEXT NOT NULL,            -- raw | recverr
  measured_at REAL NOT NULL
);
INSERT INTO measurements_new(id, set_id, question_id, answer, basis, evidence, observation, observer, measured_at)
  SELECT id, set_id, question_id, answer, basis, evidence, observation, observer, measured_at FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_new RENAME TO measurements;
CREATE INDEX measurements_question ON measurements(question_id, id);
CREATE VIEW question_truth AS
  SELECT q.id AS question_id, q.session_id, lm.answer AS truth
    FROM questions q
    LEFT JOIN (SELECT m.question_id, m.answer, max(m.id) AS newest
                 FROM measurements m JOIN measurement_sets s ON s.id = m.set_id
                WHERE s.kind = 'live' GROUP BY m.question_id) lm ON lm.question_id = q.id;
CREATE VIEW question_score AS
  SELECT t.question_id, t.session_id, t.yes, t.no, t.yes + t.no AS total, t.truth,
         CASE WHEN t.yes + t.no = 0 THEN NULL
              WHEN t.yes > t.no THEN 'yes' WHEN t.no > t.yes THEN 'no' ELSE 'tie' END AS majority,
         CASE WHEN t.yes + t.no = 0 OR t.truth IS NULL OR t.truth = 'unknown' THEN NULL
              WHEN t.yes = t.no THEN 0.5
              WHEN (t.yes > t.no) = (t.truth = 'yes') THEN 1.0 ELSE 0.0 END AS correct,
         CASE WHEN t.truth = 'yes' THEN t.yes WHEN t.truth = 'no' THEN t.no END AS correct_votes
    FROM (SELECT qt.question_id, qt.session_id, qt.truth,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 1) AS yes,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 0) AS no
            FROM question_truth qt) t;
CREATE VIEW voter_score AS
  SELECT vr.id AS voter_id, vr.session_id,
         count(qt.truth) AS scored,
         coalesce(sum(CASE WHEN (v.answer = 1) = (qt.truth = 'yes') THEN 1 ELSE 0 END), 0) AS correct
    FROM voters vr
    LEFT JOIN votes v ON v.voter_id = vr.id
    LEFT JOIN question_truth qt ON qt.question_id = v.question_id AND qt.truth IN ('yes', 'no')
   GROUP BY vr.id;

-- migration: 8
-- Retention (issue 39, docs/PRIVACY.md): `fragvote sessions --purge` and
-- `serve --retain DAYS` delete a session's voters (their token hashes) and
-- keep its votes as anonymous rows, so every tally and score stays as it
-- was. A vote's voter_id becomes NULL once its voter is purged (UNIQUE
-- treats NULLs as distinct, so any number of anonymous votes per question);
-- votes and round_votes are rebuilt for it (SQLite drops a NOT NULL only
-- that way), with the views over votes dropped and made again unchanged.
-- What per-voter numbers the reports show goes to the session first: the
-- number of voters purged (sessions.purged_voters, added to the voters
-- still there wherever voters are counted) and how many of them had k
-- scored answers right (purged_scores: the score distribution). purged_at:
-- when the last purge ran (NULL: never). db_open runs this with foreign
-- keys off and checks them after.
DROP VIEW voter_score;
DROP VIEW question_score;
CREATE TABLE votes_new (
  id          INTEGER PRIMARY KEY,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  voter_id    INTEGER REFERENCES voters(id) ON DELETE SET NULL, -- NULL: an anonymous vote (voter purged)
  answer      INTEGER NOT NULL CHECK (answer IN (0, 1)),
  voted_at    REAL NOT NULL,
  changes     INTEGER NOT NULL DEFAULT 0, -- how often this voter changed this vote
  UNIQUE (question_id, voter_id)
);
INSERT INTO votes_new(id, question_id, voter_id, answer, voted_at, changes)
  SELECT id, question_id, voter_id, answer, voted_at, changes FROM votes;
DROP TABLE votes;
ALTER TABLE votes_new RENAME TO votes;
CREATE INDEX votes_voter ON votes(voter_id);
CREATE INDEX votes_question_answer ON votes(question_id, answer);
CREATE TABLE round_votes_new (
  id          INTEGER PRIMARY KEY,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  voter_id    INTEGER REFERENCES voters(id) ON DELETE SET NULL, -- NULL: an anonymous vote (voter purged)
  round       INTEGER NOT NULL CHECK (round = 1),  -- an earlier round; the final one is in votes
  answer      INTEGER NOT NULL CHECK (answer IN (0, 1)),
  voted_at    REAL NOT NULL,
  changes     INTEGER NOT NULL DEFAULT 0,
  UNIQUE (question_id, voter_id, round)
);
INSERT INTO round_votes_new(id, question_id, voter_id, round, answer, voted_at, changes)
  SELECT id, question_id, voter_id, round, answer, voted_at, changes FROM round_votes;
DROP TABLE round_votes;
ALTER TABLE round_votes_new RENAME TO round_votes;
CREATE INDEX round_votes_voter ON round_votes(voter_id);
CREATE VIEW question_score AS
  SELECT t.question_id, t.session_id, t.yes, t.no, t.yes + t.no AS total, t.truth,
         CASE WHEN t.yes + t.no = 0 THEN NULL
              WHEN t.yes > t.no THEN 'yes' WHEN t.no > t.yes THEN 'no' ELSE 'tie' END AS majority,
         CASE WHEN t.yes + t.no = 0 OR t.truth IS NULL OR t.truth = 'unknown' THEN NULL
              WHEN t.yes = t.no THEN 0.5
              WHEN (t.yes > t.no) = (t.truth = 'yes') THEN 1.0 ELSE 0.0 END AS correct,
         CASE WHEN t.truth = 'yes' THEN t.yes WHEN t.truth = 'no' THEN t.no END AS correct_votes
    FROM (SELECT qt.question_id, qt.session_id, qt.truth,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 1) AS yes,
                 (SELECT count(*) FROM votes v WHERE v.question_id = qt.question_id AND v.answer = 0) AS no
            FROM question_truth qt) t;
CREATE VIEW voter_score AS
  SELECT vr.id AS voter_id, vr.session_id,
         count(qt.truth) AS scored,
         coalesce(sum(CASE WHEN (v.answer = 1) = (qt.truth = 'yes') THEN 1 ELSE 0 END), 0) AS correct
    FROM voters vr
    LEFT JOIN votes v ON v.voter_id = vr.id
    LEFT JOIN question_truth qt ON qt.question_id = v.question_id AND qt.truth IN ('yes', 'no')
   GROUP BY vr.id;
ALTER TABLE sessions ADD COLUMN purged_at REAL;
ALTER TABLE sessions ADD COLUMN purged_voters INTEGER NOT NULL DEFAULT 0;
CREATE TABLE purged_scores (
  session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  correct     INTEGER NOT NULL,         -- scored answers right
  voters      INTEGER NOT NULL,         -- purged voters who had that many right
  PRIMARY KEY (session_id, correct)
);

-- migration: 9
-- A vote's confidence (issue 37, item 5; docs/SCORING.md "Confidence"):
-- 'sure', 'think_so' or 'guessing', NULL when the phone gave none (the
-- tap is optional; votes stored before this migration have none). Written
-- by the same statement as the answer (db_vote_put), so a vote acked is
-- acked with its confidence. A re-vote moves it with the answer to
-- round_votes. The calibration is computed from these columns
-- (score/confidence.c); no view of them is needed.
ALTER TABLE votes ADD COLUMN confidence TEXT CHECK (confidence IN ('sure', 'think_so', 'guessing'));
ALTER TABLE round_votes ADD COLUMN confidence TEXT CHECK (confidence IN ('sure', 'think_so', 'guessing'));

-- migration: 10
-- The self-paced replay after the talk (issue 37, item 4; docs/SERVE.md
-- "After the talk"): a phone plays the session's revealed questions again
-- on its own and answers each once. Its answers are stored here, apart
-- from votes: no score view, export or league reads this table, so the
-- live room's numbers never move. A row is tied to a question of the
-- session (so to the session) and to the phone's token by its hash, as a
-- voter's is; it needs no voter row (a phone that never voted live may
-- play). The first answer is kept (UNIQUE): the truth is shown right
-- after it. A purge (docs/PRIVACY.md) forgets the token hashes here too.
CREATE TABLE replay_votes (
  id          INTEGER PRIMARY KEY,
  question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  token_hash  TEXT,                     -- SHA-256 (hex) of the phone's token; NULL once purged
  answer      INTEGER NOT NULL CHECK (answer IN (0, 1)),
  voted_at    REAL NOT NULL,
  UNIQUE (question_id, token_hash)
);
