"""The weighted log-odds of app/whats_new/rising.py (Monroe et al., 2008): a rise counts by its
evidence, not its ratio alone."""

import numpy as np

from app.whats_new.rising import log_odds_z

# Four terms over two groups of 1,000 papers' worth of counts.
BEFORE = np.array([1, 100, 50, 849])
NOW = np.array([4, 160, 50, 786])  # rare 1 → 4; common 100 → 160; one unchanged


def test_a_common_term_that_rose_outranks_a_rare_one_with_a_larger_ratio():
    z = log_odds_z(NOW, BEFORE, NOW + BEFORE)
    assert z[1] > z[0] > 0
    assert (NOW[0] / BEFORE[0]) > (NOW[1] / BEFORE[1])  # which the plain ratio ranks first


def test_no_change_scores_nothing_and_a_fall_scores_below_zero():
    z = log_odds_z(NOW, BEFORE, NOW + BEFORE)
    assert abs(z[2]) < 0.5 and z[3] < 0
    assert np.allclose(log_odds_z(BEFORE, NOW, NOW + BEFORE), -z)
