"""The three games (Elfenland, King of the Elves, Elfengold) as learning environments:
a fixed-size observation encoding (``elfenland.envs.observation``), PettingZoo AEC
environments (``elfenland.envs.pettingzoo``), OpenSpiel games
(``elfenland.envs.openspiel``) and structured actions (``elfenland.envs.actions``).

These modules need the optional extras (``pip install elfenland[rl]`` for numpy,
gymnasium and PettingZoo, ``elfenland[openspiel]`` for OpenSpiel); the engines never
import them.
"""
