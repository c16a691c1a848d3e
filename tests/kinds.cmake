# The kinds of test, as ctest labels beside the area (ctest -L KIND, -LE KIND).
# Each list names test files relative to tests/; a name that is no file stops
# the configure (a moved test must be moved here too).
#   e2e          runs the built `fragvote` program (or fv_room_server) as a child
#   root         needs root: network namespaces, the lab, raw sockets, a mount,
#                dpkg; exits 77 (skipped) without it
#   unpriv       the probe engine or witness as an unprivileged user (uid 65534)
#   reliability  hostile input, crashes, forged ICMP, storage faults
#   browser      Chromium driven by playwright (tests/audience-web/README.md)
#   load         hundreds of phones from the load generator (tests/load)
#   pack         builds or installs the program (package, install tree, man
#                pages, completion, scripts/run.sh)
#   fuzz         the libFuzzer targets, built with clang (tests/fuzz)
#   slow         over a minute on the 2-core CI machine (measured 2026-12-06:
#                test_fuzz 139 s, test_real_paths 120 s, test_check_hub 70 s)
set(FV_KIND_e2e
  audience-web/test_browser.sh audience-web/test_browser_path.sh audience-web/test_browser_replay.sh
  audience-web/test_browser_rtt.sh audience-web/test_browser_slides.sh
  cmake/test_install_tree.sh completion/test_completion.sh debian/test_deb.sh docs/man/test_man_options.sh
  scripts/test_run_script.sh
  db/test_migrate.c db/test_retention.c db/test_storage_faults.c
  deploy/test_nginx_proxy.sh deploy/test_systemd_unit.sh
  fragvote/check/test_check_lab.sh fragvote/cli/test_cli.sh
  fragvote/console/test_console_pipe.sh fragvote/console/test_console_timer.sh
  fragvote/console/test_console_tty.sh fragvote/console/test_console_warning.sh
  fragvote/export/test_export.c fragvote/export/test_league.c fragvote/export/test_private_files.sh
  fragvote/hub/test_abuse_p99.c fragvote/hub/test_hub_confidence.c fragvote/hub/test_hub_revote.c
  fragvote/laptop/test_check_hub.sh fragvote/laptop/test_present_linkloss.sh fragvote/laptop/test_present_nat.sh
  fragvote/replay/test_remeasure.c fragvote/replay/test_replay.c fragvote/replay/test_replay_serve.c
  fragvote/room/test_crash_restart.c
  fragvote/test_bad_input_messages.sh fragvote/test_load_small.sh
  fragvote/test_play_pipe.sh fragvote/test_play_tty.sh fragvote/test_play_unprivileged.sh
  fragvote/test_probe_cli.sh fragvote/test_probe_deck_paced.sh
  fragvote/test_serve_cli.sh fragvote/test_serve_crash.c fragvote/test_serve_e2e.c fragvote/test_serve_frame.c
  fragvote/test_serve_hostile_audience.c fragvote/test_serve_lab_scenarios.sh fragvote/test_serve_open_frames.c
  fragvote/test_serve_options.sh fragvote/test_serve_origin.c fragvote/test_serve_privdrop.sh
  fragvote/test_serve_questions.c fragvote/test_serve_reader_challenge.sh fragvote/test_serve_remote.c
  fragvote/test_serve_resume_measuring.sh fragvote/test_serve_secret_file.sh fragvote/test_serve_signals.sh
  fragvote/test_serve_tls.sh fragvote/test_serve_trust_proxy.sh fragvote/test_serve_unknown.c
  fragvote/test_serve_unprivileged.sh fragvote/test_witness_cli.sh
  probe/pmtu/test_pmtu_cache.sh probe/pmtu/test_pmtu_discover.sh probe/pmtu/test_pmtu_watch.sh)
set(FV_KIND_root
  audience-web/test_browser.sh audience-web/test_browser_path.sh audience-web/test_browser_replay.sh
  audience-web/test_browser_rtt.sh audience-web/test_browser_slides.sh
  cmake/test_install_tree.sh debian/test_deb.sh db/test_storage_faults.c
  fragvote/check/test_check_lab.sh
  fragvote/console/test_console_pipe.sh fragvote/console/test_console_tty.sh fragvote/console/test_console_warning.sh
  fragvote/laptop/test_check_hub.sh fragvote/laptop/test_present_linkloss.sh fragvote/laptop/test_present_nat.sh
  fragvote/probe_worker/test_worker.c fragvote/replay/test_remeasure.c
  fragvote/test_play_pipe.sh fragvote/test_play_tty.sh fragvote/test_play_unprivileged.sh
  fragvote/test_probe_cli.sh fragvote/test_probe_deck_paced.sh
  fragvote/test_serve_crash.c fragvote/test_serve_e2e.c fragvote/test_serve_lab_scenarios.sh
  fragvote/test_serve_open_frames.c fragvote/test_serve_privdrop.sh fragvote/test_serve_reader_challenge.sh
  fragvote/test_serve_signals.sh fragvote/test_serve_unknown.c fragvote/test_serve_unprivileged.sh
  fragvote/test_witness_cli.sh
  probe/lab/test_lab_behaviours.c probe/lab/test_lab_lifecycle.c probe/lab/test_lab_matrix.c
  probe/pmtu/test_pmtu_cache.sh probe/pmtu/test_pmtu_discover.sh probe/pmtu/test_pmtu_watch.sh
  probe/test_icmp_forgery.c probe/test_priv_drop.c probe/test_probe_concurrent.c probe/test_quote_rules.c
  probe/test_reader_challenge.c probe/test_real_paths.c probe/test_recverr_lab.c probe/test_recverr_thread.c
  probe/test_ttl_pacing.c probe/witness/test_witness_matrix.c probe/witness/test_witness_unpriv.c)
set(FV_KIND_unpriv
  probe/wire/test_errq_parse.c probe/test_priv_drop.c probe/test_recverr_lab.c probe/test_recverr_refine.c
  probe/wire/test_snmp_parse.c probe/witness/test_witness_unpriv.c)
set(FV_KIND_reliability
  db/test_storage_faults.c fragvote/hub/test_abuse_p99.c fragvote/hub/test_hostile_ws.c
  fragvote/room/test_crash_restart.c fragvote/test_bad_input_messages.sh probe/test_icmp_forgery.c)
set(FV_KIND_browser
  audience-web/test_browser.sh audience-web/test_browser_path.sh audience-web/test_browser_replay.sh
  audience-web/test_browser_rtt.sh audience-web/test_browser_slides.sh)
set(FV_KIND_load fragvote/test_load_small.sh)
set(FV_KIND_pack
  cmake/test_install_tree.sh completion/test_completion.sh debian/test_deb.sh docs/man/test_man_options.sh
  scripts/test_run_script.sh)
set(FV_KIND_fuzz fuzz/test_fuzz.sh)
set(FV_KIND_slow fuzz/test_fuzz.sh probe/test_real_paths.c fragvote/laptop/test_check_hub.sh)
set(FV_KINDS e2e root unpriv reliability browser load pack fuzz slow)
