"""The reconnect policy as numbers: floor, doubling, cap, jitter upwards only, every attempt counted."""

from __future__ import annotations

from mcpx.transports import backoff
from mcpx.transports.backoff import Attempts, Drop, SessionBudget, delay_ms, describe


def test_delay_has_a_floor_doubles_and_is_capped() -> None:
    low, high = (lambda: 0.0), (lambda: 0.999)
    assert delay_ms(0, 0, low) == backoff.RETRY_FLOOR_MS  # retry: 0 is not a hot loop
    assert delay_ms(0, None, low) == backoff.DEFAULT_RETRY_MS
    assert delay_ms(0, 2000, low) == 2000  # a longer retry is honoured
    assert [delay_ms(n, 0, low) for n in range(4)] == [250, 500, 1000, 2000]
    assert delay_ms(50, 0, high) == backoff.MAX_DELAY_MS
    assert delay_ms(0, 10**9, low) == backoff.MAX_DELAY_MS
    assert backoff.RETRY_FLOOR_MS <= delay_ms(0, 0, high) <= 1.5 * backoff.RETRY_FLOOR_MS


def test_every_attempt_counts_even_with_new_ids_and_a_healthy_stream_starts_again() -> None:
    attempts = Attempts(SessionBudget())
    quick = Drop(0.01, 1, True, 0)
    for _ in range(backoff.MAX_ATTEMPTS):
        attempts.ended(quick)
        assert attempts.refusal() is None
    attempts.ended(quick)
    assert attempts.refusal() == f"mcpx stopped after {backoff.MAX_ATTEMPTS} attempts in a row"
    attempts.ended(Drop(backoff.HEALTHY_SECONDS, 3, True, 0))
    assert attempts.count == 0 and attempts.refusal() is None


def test_the_session_budget_is_a_sliding_window() -> None:
    now = [0.0]
    budget = SessionBudget(limit=3, window=10.0, clock=lambda: now[0])
    assert [budget.take() for _ in range(4)] == [True, True, True, False]
    now[0] = 10.0
    assert budget.take()


def test_the_behaviour_is_named() -> None:
    said = describe([Drop(0.01, 0, True, 0), Drop(0.02, 0, True, 0)])
    assert said == (
        "each stream closed within a second, with a new event id, carrying no message, asking for retry: 0 ms"
    )
