"""Both games registered with OpenSpiel: its own random-simulation test, its IS-MCTS
playing whole games through the engines' resampling, information states that survive
resampling, and OpenSpiel's error for an illegal action."""

from __future__ import annotations

import copy
import json

import pytest

from .conftest import need

np = need("numpy")
pyspiel = need("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import elfenland.envs.openspiel as spiel  # noqa: E402
from elfenland.core.errors import IllegalActionError  # noqa: E402
from elfenland.games.elfenland.rules import make_rules  # noqa: E402

NAMES = ["python_elfenland", "python_king_of_the_elves"]
#: With Elfengold: the tests cheap enough for its long random auctions.
ALL = [*NAMES, "python_elfengold"]
#: Elfengold in one round (its ``rounds`` option) where OpenSpiel's tools rebuild every
#: player's information state at every step (quadratic in a game's length).
SHORT_ELFENGOLD = '{"rounds": 1}'


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("params", [{"players": 2}, {"players": 5}])
def test_openspiel_random_sim_test(name: str, params: dict[str, int]) -> None:
    if name == "python_king_of_the_elves" and params["players"] == 5:
        # Random five-player games run to thousands of moves, and the check builds every
        # player's whole information-state string at each one (quadratic): capped, the
        # length cap's own ending is checked too, in seconds rather than minutes.
        params = {**params, "max_game_length": 600}
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("params", [{"players": 2},
                                    {"players": 4, "options": SHORT_ELFENGOLD}])
def test_elfengold_random_sim_test(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_elfengold", params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_elfengold_options_are_game_parameters_and_bound_the_length() -> None:
    game = pyspiel.load_game("python_elfengold", {
        "players": 3, "eg_public_gold": False, "witch": True, "town_cards": True,
        "options": '{"eg_overbid": "capped", "rounds": 3}'})
    rules = game.new_initial_state().engine.rules
    assert not rules.eg_public_gold and rules.witch and rules.town_cards
    assert rules.eg_overbid == "capped" and rules.rounds == 3 and not rules.random_gold
    assert game.num_distinct_actions() == 44_522
    assert game.observation_tensor_size() == game.encoder.layout.size
    rng = np.random.default_rng(1)
    for players in (2, 6):
        game = pyspiel.load_game("python_elfengold", {"players": players})
        assert game.max_game_length() == spiel.elfengold_max_game_length(
            players, game.new_initial_state().engine.rules)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        assert len(state.history()) <= game.max_game_length()
        assert sum(state.returns()) == pytest.approx(1.0)
    with pytest.raises(Exception, match="eg_overbid"):
        pyspiel.load_game("python_elfengold", {"options": '{"eg_overbid": "never"}'})


def test_rule_sets_are_game_parameters() -> None:
    game = pyspiel.load_game("python_elfenland", {
        "players": 3, "rules": "moon", "destination": True,
        "options": '{"mare_nebulae_rafts": 2}'})
    rules = game.new_initial_state().engine.rules
    assert rules.name == "moon" and rules.town_cards and rules.mare_nebulae_rafts == 2
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    kote = pyspiel.load_game("python_king_of_the_elves", {"players": 3, "magic_spell": True})
    assert kote.new_initial_state().engine.rules.magic_spell
    with pytest.raises(Exception, match="options"):
        pyspiel.load_game("python_elfenland", {"options": "[1]"})


def test_game_type_and_info() -> None:
    game = pyspiel.load_game("python_elfenland", {"players": 4})
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.num_players() == 4 and game.utility_sum() == 1.0
    assert game.max_game_length() == spiel.elfenland_max_game_length(4, make_rules())
    assert game.observation_tensor_size() == game.information_state_tensor_size() > 0


@pytest.mark.parametrize("players", [2, 6])
def test_elfenland_games_stay_below_the_length_bound(players: int) -> None:
    for rules in ("amigo", "moon"):
        game = pyspiel.load_game("python_elfenland", {"players": players, "rules": rules})
        rng = np.random.default_rng(players)
        for _ in range(3):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
            assert len(state.history()) <= game.max_game_length()


def test_king_of_the_elves_stops_at_its_length_cap() -> None:
    game = pyspiel.load_game("python_king_of_the_elves", {"players": 4, "max_game_length": 25})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(state.history()) == 25 and not state.engine.is_terminal()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
    gold = state.engine.scores()
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert all((r > 0) == (g == max(gold)) for r, g in zip(returns, gold, strict=True))
    # A world resampled on the way counts the actions already played.
    early = game.new_initial_state()
    for _ in range(20):
        early.apply_action(early.legal_actions()[0])
    world = early.resample_from_infostate(early.current_player(),
                                          pyspiel.UniformProbabilitySampler(0.0, 1.0))
    steps = 0
    while not world.is_terminal():
        world.apply_action(world.legal_actions()[0])
        steps += 1
    assert steps == 5


@pytest.mark.parametrize("name", ALL)
def test_clone_and_deepcopy_are_independent(name: str) -> None:
    state = pyspiel.load_game(name, {"players": 3}).new_initial_state()
    for _ in range(10):
        state.apply_action(state.legal_actions()[0])
    for copied in (state.clone(), copy.deepcopy(state)):
        assert copied.history() == state.history() and str(copied) == str(state)
        assert copied.engine is not state.engine
        copied.apply_action(copied.legal_actions()[-1])
        assert len(copied.history()) == len(state.history()) + 1
        assert copied.engine.history != state.engine.history
    restored = state.get_game().deserialize_state(state.serialize())
    assert restored.history() == state.history() and restored.engine == state.engine


@pytest.mark.parametrize("name", ALL)
def test_resampled_states_keep_the_players_information_state(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while not state.is_terminal() and checked < 30:
        if rng.random() < 0.2:
            p = state.current_player()
            sampled = state.resample_from_infostate(p, sampler)
            assert sampled.information_state_string(p) == state.information_state_string(p)
            assert sampled.observation_string(p) == state.observation_string(p)
            assert np.array_equal(sampled.observation_tensor(p), state.observation_tensor(p))
            assert sampled.legal_actions() == state.legal_actions()
            # After the same move the sampled world keeps the recalled past; only what
            # the move itself reveals (a counter drawn blind, say) may differ.
            move = state.legal_actions()[0]
            child, sampled_child = state.child(move), sampled.child(move)
            log = json.loads(child.information_state_string(p))["log"]
            sampled_log = json.loads(sampled_child.information_state_string(p))["log"]
            assert len(sampled_log) == len(log) and sampled_log[:-1] == log[:-1]
            assert sampled_log[-1]["action"] == log[-1]["action"]
            checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 0


def test_information_state_hides_the_others_hands() -> None:
    state = pyspiel.load_game("python_elfenland", {"players": 3}).new_initial_state()
    text = state.information_state_string(0)
    assert '"hand"' in text and text.count('"hand"') == 1
    assert state.information_state_string(1) != text
    assert state.observation_string(0) in (text, state.observation_string(0))
    assert '"log"' in text and '"log"' not in state.observation_string(0)


@pytest.mark.parametrize("name", NAMES)
def test_ismcts_plays_a_whole_game(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 2})
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=6, random_state=rng)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.current_player() == 0:
            if len(state.legal_actions()) > 1:
                searched += 1
            action = bot.step(state)
        else:
            action = int(rng.choice(state.legal_actions()))
        assert action in state.legal_actions()
        state.apply_action(action)
    assert searched > 5
    assert sum(state.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ALL)
def test_an_illegal_action_raises_spiel_error_and_changes_nothing(name: str) -> None:
    state = pyspiel.load_game(name, {"players": 3}).new_initial_state()
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    legal = set(state.legal_actions())
    illegal = next(a for a in range(state.num_distinct_actions()) if a not in legal)
    before, history = str(state), state.history()
    for bad in (illegal, state.num_distinct_actions(), -1):
        with pytest.raises(pyspiel.SpielError) as info:
            state.apply_action(bad)
        # -1 (kInvalidAction) is refused by OpenSpiel itself, the others by the engine.
        assert bad < 0 or isinstance(info.value, IllegalActionError)
        assert str(state) == before and state.history() == history
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(illegal)
    assert str(state) == before and state.history() == history


def test_a_public_observer_sees_no_hand() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_elfenland", {"players": 3, "destination": True})
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    private = make_observation(game)
    state = game.new_initial_state()
    layout = game.encoder.layout
    hand, card = layout.block("hand", 0), layout.block("town_card", 0)
    for p in range(3):
        public.set_from(state, p)
        private.set_from(state, p)
        assert not public.tensor[hand.offset:hand.offset + hand.size].any()
        assert not public.tensor[card.offset:card.offset + card.size].any()
        assert private.tensor[hand.offset:hand.offset + hand.size].any()
        assert private.tensor[card.offset:card.offset + card.size].any()
        text = public.string_from(state, p)
        assert '"hand"' not in text and '"town_card"' not in text
        assert '"hand"' in private.string_from(state, p)
    with pytest.raises(ValueError):
        make_observation(game, pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_pyspiel_serialize_game_and_state_cannot_work_for_python_games() -> None:
    """Why the adapter has its own: OpenSpiel asks a sampled-stochastic game for its
    random state in C++, and pybind11 does not route that call to Python."""
    game = pyspiel.load_game("python_elfenland", {"players": 2})
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(game, game.new_initial_state())


@pytest.mark.parametrize(("name", "params"), [
    ("python_elfenland", {"players": 3, "rng_seed": 4, "rules": "moon",
                          "options": '{"hand_limit": 5, "boatmen": false}'}),
    ("python_king_of_the_elves", {"players": 4, "rng_seed": 9, "magic_spell": True}),
])
def test_serialize_game_and_state_round_trip(name: str, params: dict[str, object]) -> None:
    import random

    game = pyspiel.load_game(name, params)
    game.new_initial_state()  # the game's seed sequence moves on
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    text = spiel.serialize_game_and_state(game, state)
    game2, state2 = spiel.deserialize_game_and_state(text)
    assert game2.get_parameters() == game.get_parameters()
    assert str(state2) == str(state) and state2.history() == state.history()
    assert state2.information_state_string(1) == state.information_state_string(1)
    # Both play on alike: the same chance (the engine's own random state) ...
    while not state.is_terminal() and state.move_number() < 120:
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        state2.apply_action(action)
        assert str(state2) == str(state)
    # ... and the game's next new game is the one the saved game would have started.
    assert str(game2.new_initial_state()) == str(game.new_initial_state())
    with pytest.raises(ValueError):
        spiel.deserialize_game_and_state(text.replace("[Seeds]", "[Sods]"))


@pytest.mark.parametrize("name", ALL)
def test_legal_actions_answered_in_python_equal_openspiels(name: str) -> None:
    """The adapter answers ``legal_actions`` itself (fewer C++ ↔ Python crossings); it
    must give what OpenSpiel's own C++ ``LegalActions`` gives, for every player, up to
    and after the end (here King of the Elves' length cap)."""
    import random

    game = pyspiel.load_game(name, {"players": 3, "max_game_length": 150}
                             if name == "python_king_of_the_elves" else {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(2)
    compared = 0
    while True:
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for p in range(3):
            assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p)
        compared += 1
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 100 and state.legal_actions() == []


# ----------------------------------------------------------------- OpenSpiel's own tools

PLAYTHROUGH = {"python_elfenland": "players=2", "python_king_of_the_elves":
               "players=2,max_game_length=150",
               "python_elfengold": f"players=2,options={SHORT_ELFENGOLD}"}


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("explicit", [False, True])
def test_generate_playthrough_runs(name: str, explicit: bool) -> None:
    """OpenSpiel's ``generate_playthrough`` asks for a public-only and a private-only
    observation; the adapter refused the private-only one before."""
    from open_spiel.python.algorithms import generate_playthrough

    params = PLAYTHROUGH[name] + (",explicit_chance=True,deals=8" if explicit else "")
    text = generate_playthrough.playthrough(f"{name}({params})", action_sequence=None,
                                            alsologtostdout=False, seed=3)
    lines = text.split("\n")
    private = [ln for ln in lines if ln.startswith("PrivateObservationString(0)")]
    public = [ln for ln in lines if ln.startswith("PublicObservationString()")]
    assert len(private) > 5 and len(public) > 5
    assert all('"hand"' in ln for ln in private[1 if explicit else 0:])
    if name == "python_elfengold":  # the auction's state is in every public string
        assert any('"auction"' in ln and '"high_bid"' in ln for ln in public)
    assert not any('"hand"' in ln for ln in public)
    if explicit:
        assert "ChanceOutcomes() = [(0,0.125), (1,0.125)" in text


@pytest.mark.parametrize("name", ALL)
def test_the_private_observation_is_the_players_own_blocks(name: str) -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name, {"players": 3})
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False,
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    full = make_observation(game)
    layout = game.encoder.layout
    own = [b for b in layout.blocks if b.private and b.seat == 0]
    assert list(private.dict) == [b.name for b in own]
    assert private.tensor.size == sum(b.size for b in own) < layout.size
    state = game.new_initial_state()
    for _ in range(12):
        state.apply_action(state.legal_actions()[0])
    for p in range(3):
        private.set_from(state, p)
        full.set_from(state, p)
        for b in own:
            assert np.array_equal(private.dict[b.name], full.tensor[b.offset:b.offset + b.size])
        assert json.loads(private.string_from(state, p))["hand"] == \
            [float(x) for x in private.dict["hand"]]
    hands = set()
    for p in range(3):
        private.set_from(state, p)
        hands.add(tuple(private.dict["hand"]))
    assert len(hands) > 1


@pytest.mark.parametrize("name", ALL)
def test_random_sim_test_with_serialization(name: str) -> None:
    """``random_sim_test(serialize=True)`` failed on "GetRNGState unimplemented": with
    ``explicit_chance`` it passes (state = history from the root chance node)."""
    params: dict[str, object] = {"players": 3, "explicit_chance": True}
    if name == "python_king_of_the_elves":
        params["max_game_length"] = 400
    if name == "python_elfengold":
        params["options"] = SHORT_ELFENGOLD
    game = pyspiel.load_game(name, params)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == spiel.DEFAULT_DEALS
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ALL)
def test_explicit_chance_deals_and_pyspiel_serialization(name: str) -> None:
    import pickle
    import random

    game = pyspiel.load_game(name, {"players": 2, "explicit_chance": True, "deals": 16,
                                    "rng_seed": 5})
    root = game.new_initial_state()
    assert root.is_chance_node() and root.current_player() == pyspiel.PlayerId.CHANCE
    assert root.chance_outcomes() == [(k, 1 / 16) for k in range(16)]
    assert root.legal_actions() == list(range(16)) and root.legal_actions(0) == []
    assert not root.observation_tensor(0).any()
    assert root.observation_tensor(0).size == game.observation_tensor_size()
    with pytest.raises(ValueError):
        root.engine  # noqa: B018
    with pytest.raises(pyspiel.SpielError):
        root.apply_action(16)
    # The same outcome deals the same game; another deals another.
    a, b, c = root.child(3), root.child(3), root.child(4)
    assert str(a) == str(b) != str(c)
    assert a.engine.seed == 5 * 16 + 3
    rng = random.Random(0)
    for _ in range(30):
        a.apply_action(rng.choice(a.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, a)
    game2, a2 = pyspiel.deserialize_game_and_state(text)
    assert game2.get_parameters() == game.get_parameters()
    assert str(a2) == str(a) and a2.history() == a.history()
    assert a2.information_state_string(1) == a.information_state_string(1)
    again = pickle.loads(pickle.dumps(a))
    assert str(again) == str(a)
    # The registered (sampled) game still has no chance node.
    assert not pyspiel.load_game(name, {"players": 2}).new_initial_state().is_chance_node()


@pytest.mark.parametrize("name", ALL)
def test_information_states_built_step_by_step_equal_fresh_ones(name: str) -> None:
    """The adapter keeps each state's log as built so far and adds only new entries; a
    state restored from its history (nothing built yet), a clone that went another way
    and the original must all say what a fresh view says."""
    import random

    game = pyspiel.load_game(name, {"players": 3, "max_game_length": 400}
                             if name == "python_king_of_the_elves" else {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(4)
    branch = None
    for step in range(240):
        if state.is_terminal():
            break
        for p in range(3):
            state.information_state_string(p)
        if step == 60:
            branch = state.clone()
            for _ in range(15):
                branch.apply_action(rng.choice(branch.legal_actions()))
        state.apply_action(rng.choice(state.legal_actions()))
    assert branch is not None and branch.history() != state.history()[:len(branch.history())]
    for s in (state, branch):
        fresh = game.deserialize_state(s.serialize())
        for p in range(3):
            text = s.information_state_string(p)
            assert text == fresh.information_state_string(p)
            log = json.loads(text)["log"]
            assert len(log) == len(s.history())
            assert log == [{k: v for k, v in e.items() if k != "seq"}
                           for e in s.engine.view(p)["log"]]


def test_an_elfengold_spectator_sees_no_hand_no_face_down_item_and_hidden_coins() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_elfengold", {"players": 3, "eg_public_gold": False})
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    private = make_observation(game)
    layout = game.encoder.layout
    hidden = [layout.block(name, 0) for name in ("hand", "face_down", "coins")]
    state = game.new_initial_state()
    while state.engine.phase.value != "auction":
        state.apply_action(state.legal_actions()[0])
    for p in range(3):
        public.set_from(state, p)
        private.set_from(state, p)
        for b in hidden:
            assert not public.tensor[b.offset:b.offset + b.size].any()
            assert private.tensor[b.offset:b.offset + b.size].any()
        text = json.loads(public.string_from(state, p))
        assert all("coins" not in seat and "hand" not in seat for seat in text["players"])
        assert text["auction"]["high_bid"] == 0
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    public.set_from(state, 0)
    coins = layout.block("coins", 0)
    assert public.tensor[coins.offset] == state.engine.coins[0]  # shown at the end
    for name in ("hand", "face_down", "kept_face_down"):
        b = layout.block(name, 0)
        assert not public.tensor[b.offset:b.offset + b.size].any()
