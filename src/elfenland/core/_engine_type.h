/* The Python type and module every compiled engine (games/<game>/_speedups.c) builds
 * around its rules: one copy of the boilerplate, so that a rule set writes only what is
 * its own (issue #24: no code written three times).
 *
 * - clone (copy_core): the state copied, the Python objects shared, the history shared
 *   by reference count;
 * - _observe_into / _observation_size and the checked writer the C entry calls
 *   (with ENGINE_OBSERVE);
 * - traverse, clear, dealloc, new, the type object, the common attribute entries, and
 *   the module (configure, own_methods, the init).
 *
 * - the attributes: get_field / set_field over the engine's table of fields (see
 *   FieldSpec in _engine_common.h) and the attribute table built from it.
 *
 * - _chain and the method table.
 *
 * Included once by each engine after _engine_common.h and its ``fields`` table.  The
 * engine defines first:
 *   fields                its FieldSpec table, indexed by its F_ numbers, and
 *                         get_own_field / set_own_field for the FK_OWN ones;
 *   set_rules, Core_start (``_start``) and Core_resample (``_resample``);
 *   ENGINE_START_ARGS     (optional) _start's calling convention, METH_O by default;
 *   ENGINE_FLUSH_HISTORY(c) (set by _engine_common.h with ENGINE_HISTORY) the pending
 *                         history made links, 0 or -1;
 *   ENGINE_EXTRA_GETSET   (optional) more attribute entries;
 *   ENGINE_TYPE_NAME, ENGINE_TYPE_DOC, ENGINE_MODULE_DOC, ENGINE_CONFIGURE_DOC  texts;
 *   ENGINE_FRESH(s)       a fresh S's non-zero fields (n, the "nobody" markers);
 *   ENGINE_HISTORY        (optional) Core keeps a history buffer (_engine_common.h);
 *   ENGINE_LEGAL_ON_HEAP  (optional) Core's ``legal`` is PyMem-allocated, not an array;
 *   ENGINE_OWN_METHODS    (optional) the module has own_methods(cls);
 *   ENGINE_INIT           (optional) the type's tp_init;
 *   ENGINE_MODULE_INIT()  (optional) the module init's own work, 0 or -1;
 *   ENGINE_OBS_READY(c)   (optional, with ENGINE_OBSERVE) a check before observing;
 * and, with ENGINE_OBSERVE, after it: obs_size(n) and observe(s, player, out).
 */
#ifndef ELFENLAND_ENGINE_TYPE_H
#define ELFENLAND_ENGINE_TYPE_H

#ifndef ELFENLAND_ENGINE_COMMON_H
#error "include _engine_common.h before _engine_type.h"
#endif

/* ------------------------------------------------------------------ clone */
static Core *copy_core(Core *c) {
    PyTypeObject *tp = Py_TYPE(c);
    Core *d = (Core *)tp->tp_alloc(tp, 0);
    if (!d) return NULL;
    d->st = c->st;
    if (c->legal_valid) {
#ifdef ENGINE_LEGAL_ON_HEAP
        d->legal = PyMem_Malloc(sizeof(int) * LEGAL_MAX);
        if (!d->legal) { Py_DECREF(d); PyErr_NoMemory(); return NULL; }
#endif
        memcpy(d->legal, c->legal, sizeof(int) * c->nlegal);
        d->nlegal = c->nlegal;
        d->legal_valid = 1;
    }
    d->rules = Py_XNewRef(c->rules);
#ifdef ENGINE_BOARD
    d->board = Py_XNewRef(c->board);
#endif
    d->seed = Py_XNewRef(c->seed);
    d->origin = Py_XNewRef(c->origin);
    d->rng = Py_XNewRef(c->rng);
    d->chain = Py_XNewRef(c->chain);
#ifdef ENGINE_HISTORY
    d->hist = c->hist;
    d->hcount = c->hcount;
    if (d->hist) d->hist->refs++;
#endif
    d->origin_snapshot = Py_XNewRef(c->origin_snapshot);
    d->st.rng_shared = c->st.rng_shared = 1;
    return d;
}

static PyObject *Core_clone(Core *c, PyObject *Py_UNUSED(unused)) { return (PyObject *)copy_core(c); }

/* ------------------------------------------------------------------ observations */
#ifdef ENGINE_OBSERVE
#ifndef ENGINE_OBS_READY
#define ENGINE_OBS_READY(c) 0
#endif

/* The observation of ``player`` into ``out`` of ``size`` floats (the C entry's, and
 * _observe_into's once it has the buffer): 0, or -1 with the error. */
static int ENGINE_OBSERVE(Core *c, int player, float *out, Py_ssize_t size) {
    if (ENGINE_OBS_READY(c) < 0) return -1;
    if (player < 0 || player >= c->st.n) {
        PyErr_Format(PyExc_ValueError, "no player %d", player);
        return -1;
    }
    if (size != obs_size(c->st.n)) {
        PyErr_Format(PyExc_ValueError, "the buffer must hold %zd items of type 'f'",
                     obs_size(c->st.n));
        return -1;
    }
    observe(&c->st, player, out);
    return 0;
}

/* _observe_into(buffer, player): the observation vector of ``player`` into ``buffer``. */
static PyObject *Core_observe_into(Core *c, PyObject *args) {
    PyObject *obj;
    int player;
    if (!PyArg_ParseTuple(args, "Oi", &obj, &player)) return NULL;
    if (ENGINE_OBS_READY(c) < 0) return NULL;
    if (player < 0 || player >= c->st.n) {
        PyErr_Format(PyExc_ValueError, "no player %d", player);
        return NULL;
    }
    Py_buffer view;
    if (obs_buffer(obj, &view, 'f', obs_size(c->st.n)) < 0) return NULL;
    observe(&c->st, player, (float *)view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* _observation_size(): the vector's length for this state's player count. */
static PyObject *Core_observation_size(Core *c, PyObject *Py_UNUSED(unused)) {
    return PyLong_FromSsize_t(obs_size(c->st.n));
}
#endif /* ENGINE_OBSERVE */

/* ------------------------------------------------------------------ history */
#ifndef ENGINE_FLUSH_HISTORY
#define ENGINE_FLUSH_HISTORY(c) 0
#endif

/* ``_chain``: the history as the pure engine's links (an engine that keeps its newest
 * entries apart makes their links first, ENGINE_FLUSH_HISTORY); writing it replaces
 * the whole history. */
static PyObject *get_chain(Core *c, void *Py_UNUSED(u)) {
    if (ENGINE_FLUSH_HISTORY(c) < 0) return NULL;
    return Py_NewRef(c->chain ? c->chain : Py_None);
}

static int set_chain(Core *c, PyObject *v, void *Py_UNUSED(u)) {
    if (v == Py_None) v = NULL;
    Py_XINCREF(v);
    Py_XSETREF(c->chain, v);
    ENGINE_FORGET_HISTORY(c);
    return 0;
}

/* ------------------------------------------------------------------ methods */
#ifndef ENGINE_START_ARGS
#define ENGINE_START_ARGS METH_O
#endif

static PyMethodDef Core_methods[] = {
    ENGINE_COMMON_METHODS,
    {"_start", (PyCFunction)Core_start, ENGINE_START_ARGS, NULL},
    {"_resample", (PyCFunction)Core_resample, METH_VARARGS, NULL},
    ENGINE_OBSERVE_METHODS
    {NULL}
};

/* ------------------------------------------------------------------ attributes */
static PyObject *get_own_field(Core *c, int f);
static int set_own_field(Core *c, int f, PyObject *v);

static PyObject *get_field(Core *c, void *closure) {
    const FieldSpec *f = closure;
    if (f->kind == FK_OWN) return get_own_field(c, (int)(f - fields));
    return field_get(&c->st, f);
}

static int set_field(Core *c, PyObject *v, void *closure) {
    const FieldSpec *f = closure;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "engine fields cannot be deleted");
        return -1;
    }
    if ((f->kind == FK_OWN ? set_own_field(c, (int)(f - fields), v) : field_set(&c->st, f, v)) < 0)
        return -1;
    c->legal_valid = 0;
    return 0;
}

#define NFIELDS ((int)(sizeof fields / sizeof *fields))
#ifndef ENGINE_EXTRA_GETSET
#define ENGINE_EXTRA_GETSET
#endif

/* The attributes: one per field of the table, then the ones every Core has (the engine
 * defines set_rules, get_chain and set_chain), then the engine's own extras.  Filled
 * by the module's init, before the type is made ready. */
static PyGetSetDef Core_getset[NFIELDS + 16];

static void fill_getset(void) {
    static const PyGetSetDef common[] = {
        {"rules", (getter)get_rules, (setter)set_rules, NULL, NULL},
#ifdef ENGINE_BOARD
        {"board", (getter)get_board, (setter)set_board, NULL, NULL},
#endif
        {"seed", (getter)get_seed, (setter)set_seed, NULL, NULL},
        {"origin", (getter)get_origin, (setter)set_origin, NULL, NULL},
        {"rng", (getter)get_rng, (setter)set_rng, NULL, NULL},
        {"_chain", (getter)get_chain, (setter)set_chain, NULL, NULL},
        {"_legal", (getter)get_none, (setter)set_invalidate, NULL, NULL},
        ENGINE_EXTRA_GETSET
    };
    int k = 0;
    for (int i = 0; i < NFIELDS; i++)
        if (fields[i].name)
            Core_getset[k++] = (PyGetSetDef){fields[i].name, (getter)get_field,
                                             (setter)set_field, NULL, (void *)&fields[i]};
    for (size_t i = 0; i < sizeof common / sizeof *common; i++) Core_getset[k++] = common[i];
    Core_getset[k] = (PyGetSetDef){NULL, NULL, NULL, NULL, NULL};
}

/* ------------------------------------------------------------------ the type */
static int Core_traverse(Core *c, visitproc visit, void *arg) {
    ENGINE_VISIT_OBJECTS(c);
#ifdef ENGINE_BOARD
    Py_VISIT(c->board);
#endif
    return 0;
}

static int Core_clear(Core *c) {
    ENGINE_CLEAR_OBJECTS(c);
#ifdef ENGINE_BOARD
    Py_CLEAR(c->board);
#endif
    ENGINE_FORGET_HISTORY(c);
    return 0;
}

static void Core_dealloc(Core *c) {
    PyObject_GC_UnTrack(c);
    Core_clear(c);
#ifdef ENGINE_LEGAL_ON_HEAP
    PyMem_Free(c->legal);
#endif
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Core_new(PyTypeObject *tp, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kw)) {
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "the compiled engine is not configured");
        return NULL;
    }
    Core *c = (Core *)tp->tp_alloc(tp, 0);
    if (!c) return NULL;
    ENGINE_FRESH(&c->st);
    return (PyObject *)c;
}

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = ENGINE_TYPE_NAME,
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = ENGINE_TYPE_DOC,
    .tp_new = Core_new,
#ifdef ENGINE_INIT
    .tp_init = (initproc)ENGINE_INIT,
#endif
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_traverse = (traverseproc)Core_traverse,
    .tp_clear = (inquiry)Core_clear,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

/* ------------------------------------------------------------------ the module */
#ifdef ENGINE_OWN_METHODS
/* own_methods(cls): Core's methods again, as methods of the subclass ``cls`` (the
 * Fast...State); see own_methods_of. */
static PyObject *own_methods(PyObject *Py_UNUSED(mod), PyObject *cls) {
    return own_methods_of(&CoreType, Core_methods, cls);
}
#endif

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)configure, METH_O, ENGINE_CONFIGURE_DOC},
#ifdef ENGINE_OWN_METHODS
    {"own_methods", (PyCFunction)own_methods, METH_O, "Core's methods as methods of a subclass."},
#endif
    {NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_speedups",
    ENGINE_MODULE_DOC, -1, module_methods, NULL, NULL, NULL, NULL,
};

#ifndef ENGINE_MODULE_INIT
#define ENGINE_MODULE_INIT() 0
#endif

PyMODINIT_FUNC PyInit__speedups(void) {
    fill_getset();
    if (ENGINE_MODULE_INIT() < 0) return NULL;
    return engine_module(PyModule_Create(&module_def), &CoreType);
}

#endif /* ELFENLAND_ENGINE_TYPE_H */
