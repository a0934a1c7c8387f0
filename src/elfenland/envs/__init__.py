"""Both games as learning environments: a fixed-size observation encoding
(``elfenland.envs.observation``), PettingZoo AEC environments
(``elfenland.envs.pettingzoo``) and OpenSpiel games (``elfenland.envs.openspiel``).

These modules need the optional extras (``pip install elfenland[rl]`` for numpy,
gymnasium and PettingZoo, ``elfenland[openspiel]`` for OpenSpiel); the engines never
import them.
"""
