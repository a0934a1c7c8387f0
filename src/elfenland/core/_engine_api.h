/* The compiled engines' C entry for the batched environment (envs/_vector.c): the
 * operations a step needs, on C types, so that stepping N games makes no Python object
 * per game per step (no int per action id, no list of legal ids, no argument tuple or
 * buffer export per observation).  Each engine module exports one, filled by
 * core/_engine_common.h, as the capsule ``_c_api`` (named ENGINE_API_CAPSULE); these
 * functions do what the methods of the same names do, with the same checks and errors,
 * and the methods stay the reference (tests/envs/test_vector.py compares the two).
 */
#ifndef ELFENLAND_ENGINE_API_H
#define ELFENLAND_ENGINE_API_H

#include <Python.h>
#include <stdint.h>

#define ENGINE_API_CAPSULE "elfenland._engine_c_api"
#define ENGINE_API_VERSION 3

/* A failure met by a thread that does not hold the GIL (a worker of the batched
 * environment): the exception's type and message, kept until the thread holding the GIL
 * raises it.  ``type`` is borrowed (a builtin exception or the engine's configured error
 * type, which the module holds for ever); NULL while nothing failed. */
typedef struct {
    PyObject *type;
    char message[240];
} EngineFailure;

typedef struct {
    int version;               /* ENGINE_API_VERSION */
    PyTypeObject *core_type;   /* every state these functions take is one of these */
    /* legal_action_ids(): the count written to out (at most cap ids), or -1 with the
     * error set (more than cap: a RuntimeError) */
    int (*legal_ids)(PyObject *state, int32_t *out, int cap);
    /* _apply_id(id): 1 played, 0 not legal now (nothing changed), -1 error */
    int (*apply_id)(PyObject *state, Py_ssize_t id);
    /* current_player(), is_terminal() */
    int (*current_player)(PyObject *state);
    int (*is_terminal)(PyObject *state);
    /* _observe_into(out, player) into size floats: 0, or -1 with the error set; NULL
     * for an engine without an observation */
    int (*observe)(PyObject *state, int player, float *out, Py_ssize_t size);
    /* a hint, no effect: the state's memory a step reads (its struct, its legal ids)
     * is fetched into the cache ahead of the step (a batch of many games asks for the
     * next game's while one steps) */
    void (*prefetch)(PyObject *state);
    /* Playing without the GIL (the batch's threads, issue #25).  nogil_supported(),
     * with the GIL: 1 if this engine's draws can be made without Python here (its
     * random.Random's generator read in C, checked once against getrandbits), else 0.
     * nogil_may_play(state, id), without the GIL: whether apply_id(state, id) and then
     * legal_ids, observe, current_player and is_terminal on it touch no Python object
     * (no refcount, no allocation, no call): the state's Rng is its own, its history
     * buffer unshared, its legal ids listed, and the action's logged fact a number.
     * nogil_enter(sink): from now on this thread calls those functions without the GIL,
     * and every error they meet is written to *sink (the first one), never to Python;
     * nogil_enter(NULL) ends that. */
    int (*nogil_supported)(void);
    int (*nogil_may_play)(PyObject *state, Py_ssize_t id);
    void (*nogil_enter)(EngineFailure *sink);
    /* raw(state): the engine's own position struct (Elfenland's ``S``,
     * games/elfenland/_state.h), read only, for a reader compiled against that header
     * (the quick bot's compiled rollouts); valid while the state lives and unchanged
     * until its next action.  No check: the caller checks the type (core_type). */
    const void *(*raw)(PyObject *state);
} EngineAPI;

#endif
