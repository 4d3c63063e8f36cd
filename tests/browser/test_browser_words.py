"""static/js/words.js: the servers' narration put in its reader's words (``secondPerson``).

Each line is a real ``say`` of one of the games; the reader's seat becomes "you" and each
of its verbs the second person, every other seat stays a ``{n}`` for the names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

#: (text, seat, expected); seat ``None`` is a spectator.
CASES: list[tuple[str, int | None, str]] = [
    ("{1} plays the 3-4: {0} wins trick 5.", 0, "{1} plays the 3-4: you win trick 5."),
    ("{1} plays the 3-4: {0} wins trick 5.", 1, "You play the 3-4: {0} wins trick 5."),
    ("{1} plays the 3-4: {0} wins trick 5.", None, "{1} plays the 3-4: {0} wins trick 5."),
    # A second verb of the same subject, after "and".
    ("{1} wins the deal and scores 2 game points: {0} has 22 points, fewer than 30.", 1,
     "You win the deal and score 2 game points: {0} has 22 points, fewer than 30."),
    ("{1} wins the deal and scores 2 game points: {0} has 22 points, fewer than 30.", 0,
     "{1} wins the deal and scores 2 game points: you have 22 points, fewer than 30."),
    ("{0} declares invincible, all seven doubles, and scores 3 game points without further "
     "play.", 0, "You declare invincible, all seven doubles, and score 3 game points without "
     "further play."),
    ("Move 10: {1} has no card left and leads the 7.", 1,
     "Move 10: you have no card left and lead the 7."),
    # The clause ends at the next seat or punctuation: its verbs are not the reader's.
    ("{1} is short of 70, so {0} wins the deal with 40.", 1,
     "You are short of 70, so {0} wins the deal with 40."),
    ("{0} closes the stock: the turn-up is turned face down, nobody draws again, and the "
     "follower must now follow and beat.", 0,
     "You close the stock: the turn-up is turned face down, nobody draws again, and the "
     "follower must now follow and beat."),
    ("Game 1 is dealt: {0} holds 2 6 7 8 9, {1} holds 3 4 5 10 queen.", 1,
     "Game 1 is dealt: {0} holds 2 6 7 8 9, you hold 3 4 5 10 queen."),
    # An adverb, a possessive, a passive, a past tense, a verb it does not know.
    ("{0} also keeps the 1 game point of the bingo bonus.", 0,
     "You also keep the 1 game point of the bingo bonus."),
    ("{0}'s queen beats {1}'s 9.", 1, "{0}'s queen beats your 9."),
    ("Trick 3 answered by {0}, won by {1}.", 0, "Trick 3 answered by you, won by {1}."),
    ("The match is over: {0} won it.", 0, "The match is over: you won it."),
    ("{0} draws from the stock. {0} takes the turn-up.", 0,
     "You draw from the stock. You take the turn-up."),
    ("", 0, ""),
]


def test_second_person(server: str, open_page: Callable[..., Page]) -> None:
    page = open_page()
    page.goto(f"{server}/")
    got = page.evaluate(
        """async (cases) => {
          const { secondPerson } = await import('/static/js/words.js');
          return cases.map(([text, seat]) => secondPerson(text, seat));
        }""", [[text, seat] for text, seat, _ in CASES])
    assert got == [expected for _, _, expected in CASES]


def test_a_hunt_names_every_seat_it_touched(server: str, open_page: Callable[..., Page]) -> None:
    """Bruno's ace wolf scored +3 and the ace rabbit left in his hand cost 3: he is named
    with 0, not left out as if the hunt had passed him by."""
    page = open_page()
    page.goto(f"{server}/")
    hunt = {"type": "hunt_result", "rank": "A", "rabbit": "AD", "rule": "ace_caught",
            "dingo_seat": 3, "plays": [], "points": [0, 0, 3, 3],
            "to_score": [[], ["AC"], ["AS"], ["AH"]], "to_penalty": [[], ["AD"], [], []]}
    words = page.evaluate(
        """async (hunt) => {
          const { huntWords } = await import('/static/js/words.js');
          const names = (seat) => ["You", "Bruno", "Cleo", "Dov"][seat];
          return huntWords(hunt, names).map((part) => part.card || part).join("");
        }""", hunt)
    assert words.endswith("(Bruno 0, Cleo +3, Dov +3).")


def test_a_dingo_plate_shows_a_penalty_as_what_it_costs(server: str,
                                                       open_page: Callable[..., Page]) -> None:
    """A plate says "Penalty \u22123", as the results table and the hunt lines say it."""
    page = open_page()
    page.goto(f"{server}/")
    got = page.evaluate(
        """async () => {
          const dingo = (await import('/static/js/games/dingo/index.js')).default;
          const g = {hand_sizes: [3, 3, 3, 3], score_piles: [["2D"], [], [], []],
                     penalty_piles: [["AD"], [], [], []], scores: [-1, 0, 0, 0], dealer: 1};
          const ctx = {seat: 0, plainName: (s) => `Seat ${s}`};
          return [0, 1].map((seat) => {
            const box = document.createElement('div');
            box.append(...dingo.plate(seat, g, ctx).body);
            return box.querySelector('.pile-val--penalty b').textContent;
          });
        }""")
    assert got == ["\u22123", "0"]


def test_an_avatar_shows_the_first_character_whole(server: str,
                                                   open_page: Callable[..., Page]) -> None:
    """A name that starts with an emoji (several code points, or one outside the BMP) shows
    that emoji, not half of it."""
    page = open_page()
    page.goto(f"{server}/")
    names = ["ann", "\U0001F469\u200D\U0001F469\u200D\U0001F467 family", "\U0001F98A Fox",
             "  \u00e9mile", "", "   "]
    got = page.evaluate(
        """async (names) => {
          const { avatar } = await import('/static/js/render.js');
          return names.map((name) => avatar(name, 0).textContent);
        }""", names)
    assert got == ["A", "\U0001F469\u200D\U0001F469\u200D\U0001F467", "\U0001F98A", "\u00c9",
                   "?", "?"]


def test_a_match_played_to_points_is_won_with_points(server: str,
                                                    open_page: Callable[..., Page]) -> None:
    """The log's last line says what decided the match: games won, or the points target."""
    page = open_page()
    page.goto(f"{server}/")
    got = page.evaluate(
        """async () => {
          const dingo = (await import('/static/js/games/dingo/index.js')).default;
          const ev = {type: 'match_over', winner: 3, game_wins: [1, 0, 0, 2],
                      totals: [5, -2, 3, 16]};
          const name = (s) => ['You', 'Bob', 'Cleo', 'Dov'][s];
          return [{points_to_win: 12, games_to_win: 50}, {games_to_win: 2}].map(
            (options) => dingo.describe(ev, {name, options}).join(''));
        }""")
    assert got == ["Dov wins the match with 16 points!", "Dov wins the match with 2 games won!"]
