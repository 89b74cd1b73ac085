"""Hostile requests and files. Issue 29's eleven defects and the test that reproduces each:

1. encoded `format` defeating the page cache: tests/web/test_pagecache.py
   (test_downloads_errors_and_the_api_are_not_cached);
2. a JSON Lines row that crashed the ingest: test_hostile_files.py
   (test_a_hostile_json_row_is_an_error_and_every_other_row_and_file_loads);
3. decompression bombs: test_hostile_files.py (test_a_decompression_bomb_is_refused_before_it
   _inflates, test_a_file_past_the_input_cap_is_refused_unread);
4. CSV rows lost: test_hostile_files.py (test_a_csv_row_that_cannot_be_read_loses_no_other_row,
   test_an_unclosed_quote_says_which_rows_it_swallowed);
5. formula injection: tests/web/test_downloads.py
   (test_csv_cells_that_a_spreadsheet_would_run_are_written_as_text);
6. unbounded fields, control characters: test_hostile_files.py
   (test_control_characters_are_dropped_and_long_fields_cut);
7. response amplification: test_fuzz_and_headers.py (test_an_overlong_address_is_a_short_414)
   and tests/search/test_pasted_text.py
   (test_an_overlong_query_is_echoed_only_as_far_as_it_is_read);
8. the Host header: test_fuzz_and_headers.py (test_a_redirect_within_the_site_is_relative_
   whatever_the_host) and, since issue 43 refuses foreign hosts, test_hosts.py;
9. slow queries starving health checks: test_slow_searches.py;
10. protocol details: tests/web/test_compression.py (Allow on 405, q=0), test_fuzz_and_headers.py
    (414), tests/browser/test_flows.py (the API explorer offline, under the site's policy),
    tests/web/test_downloads.py (404 for a .csv of no topic), tests/ingest/test_load.py (a
    FIFO);
11. the reading-list import: tests/browser/test_saved.py (a numeric saved_at).

Issue 43's round (`bench/hostile.py` probes every route and input against a served
catalog) and the test of each defect it found, in test_third_round.py:

1. a file removed, or swapped for a folder or a FIFO, after the ingest listed it crashed the
   whole ingest (test_a_file_gone_or_swapped_while_others_load_is_an_error_and_the_rest_loads);
2. exclusions nested deep (`-(-(-model))`) and year ranges with exclusions ranked by stepping
   through every paper (test_exclusions_and_year_ranges_are_ranked_without_stepping_through_
   every_paper);
3. bidi controls and zero-width characters in names and titles
   (test_invisible_characters_make_no_other_author_and_turn_no_text_around);
4. a download of the whole catalog in one request
   (test_a_download_comes_in_parts_that_together_hold_the_whole_list);
5. `If-None-Match: *` and weak tags sent the page again
   (test_if_none_match_star_and_weak_tags_revalidate_a_page);
6. downloads written beside searches held the interpreter lock from /healthz
   (test_slow_searches.py, test_a_download_is_written_in_a_searching_slot);
7. the map's points and image were made beside the searching slots, anew for each request
   (test_slow_searches.py, test_the_maps_points_and_image_are_made_in_a_searching_slot;
   tests/web/test_map.py, test_points_are_made_once_per_index_as_the_api_declares_them);
8. each full pass of the cyclic collector walked all that a server holds for good, holding
   the interpreter lock from /healthz (test_slow_searches.py, test_what_a_server_holds_for_
   good_is_left_out_of_the_collectors_passes);

and the Host header, configured rather than taken from requests: test_hosts.py.
"""
