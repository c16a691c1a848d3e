#!/usr/bin/env bash
# Benchmark (not a ctest test): score queries on a keynote-sized session.
# Builds a database with 1 session x 36 questions x 20,000 voters (720,000
# votes) through the real schema (every migration of db/schema.sql applied by
# `fragvote sessions`), then times the score views and the commands that read them.
# Usage: tests/bench/bench_scores.sh [path/to/fragvote]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$top/build/bin/fragvote}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
db=$tmp/big.db
# An empty file opened by fragvote gets the whole schema (all migrations).
python3 - "$db" <<'PY'
import sqlite3, sys
sqlite3.connect(sys.argv[1]).close()
PY
"$bin" sessions --db "$db" >/dev/null
sqlite3 "$db" <<'SQL'
INSERT INTO sessions(title, deck, started_at) VALUES ('big', '{}', 0);
INSERT INTO measurement_sets(session_id, kind, created_at) VALUES (1, 'live', 0);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 35)
INSERT INTO questions(session_id, position, test_index, spec, kind, text, state)
  SELECT 1, i, i/3, '{}', 'sent', 'q', 'revealed' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20000)
INSERT INTO voters(session_id, token_hash, joined_at) SELECT 1, 'h'||i, 0 FROM n;
INSERT INTO votes(question_id, voter_id, answer, voted_at)
  SELECT q.id, v.id, (q.id*7+v.id*13)%3 = 0, 0 FROM questions q, voters v;
INSERT INTO measurements(set_id, question_id, answer, evidence, observation, observer, measured_at)
  SELECT 1, id, CASE id%3 WHEN 0 THEN 'yes' WHEN 1 THEN 'no' ELSE 'unknown' END, 'e', '{}', 'raw', 0 FROM questions;
SQL
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "schema version: $(sqlite3 "$db" 'select version from schema_version')"
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); printf '%-60s %6.2f s\n' "$*" "$(echo "$e - $s" | bc)"; }
t sqlite3 "$db" "select count(*), sum(correct) from voter_score"
t sqlite3 "$db" "select count(*), avg(correct) from question_score where session_id = 1"
t "$bin" sessions --db "$db"
t "$bin" export 1 --db "$db" --format json
