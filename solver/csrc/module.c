/* The Python binding (core.py): a position and core.py's Options in, an Outcome out. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static int get_int(PyObject *o, const char *name, int *out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    if (!v) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

/* The ints of the sequence ``v`` (at most ``maxn``, each in [lo, hi)) into ``out``; their count, or -1. */
static int read_ints(PyObject *v, const char *what, int *out, int maxn, long lo, long hi) {
    PyObject *seq = v ? PySequence_Fast(v, what) : NULL;
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && n <= maxn; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (x < lo || x >= hi || (x == -1 && PyErr_Occurred())) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, x);
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)x;
    }
    Py_DECREF(seq);
    if (n > maxn) PyErr_Format(PyExc_ValueError, "%s: too many entries for the core", what);
    return n > maxn ? -1 : (int)n;
}

static int get_ints(PyObject *o, const char *name, int *out, int maxn, long lo, long hi) {
    PyObject *v = PyObject_GetAttrString(o, name);
    int n = read_ints(v, name, out, maxn, lo, hi);
    Py_XDECREF(v);
    return n;
}

static int load_state(PyObject *o, State *s) {
    memset(s, 0, sizeof *s);
    if (get_int(o, "two", &s->two) || get_int(o, "klondike", &s->klondike) || get_int(o, "draw", &s->draw) ||
        get_int(o, "runs", &s->runs) || get_int(o, "king_only", &s->king_only) ||
        get_int(o, "suit_build", &s->suit_build) || get_int(o, "ncols", &s->ncols) ||
        get_int(o, "p_in_key", &s->p_in_key) || get_int(o, "passes", &s->passes) || get_int(o, "p", &s->p) ||
        get_int(o, "left", &s->left))
        return -1;
    if (s->ncols > MAXCOLS || s->passes > 6) {
        PyErr_SetString(PyExc_ValueError, "position outside the core's limits");
        return -1;
    }
    int buf[MAXCOL + MAXTALON], n;
    if ((s->nfound = get_ints(o, "found", s->found, 8, 0, 14)) < 0 || get_ints(o, "down", s->down, MAXCOLS, 0, MAXCOL) < 0 ||
        (s->tlen = n = get_ints(o, "talon", buf, MAXTALON - 1, 0, 52)) < 0)
        return -1;
    for (int i = 0; i < n; i++) s->talon[i] = (unsigned char)buf[i];
    PyObject *cols = PyObject_GetAttrString(o, "cols");
    PyObject *seq = cols ? PySequence_Fast(cols, "cols") : NULL;
    Py_XDECREF(cols);
    if (!seq) return -1;
    int ok = PySequence_Fast_GET_SIZE(seq) == s->ncols;
    if (!ok) PyErr_SetString(PyExc_ValueError, "cols and ncols disagree");
    for (int i = 0; ok && i < s->ncols; i++) {
        ok = (n = read_ints(PySequence_Fast_GET_ITEM(seq, i), "a column", buf, MAXCOL - 1, 0, 52)) >= 0;
        for (int k = 0; k < n; k++) s->col[i][s->len[i]++] = (unsigned char)buf[k];
    }
    Py_DECREF(seq);
    if (!ok) return -1;
    state_prepare(s);
    return 0;
}

static PyObject *moves_to_list(const Move *m, size_t n) {
    PyObject *out = PyList_New((Py_ssize_t)n);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(iiiiiiii)", m[i].kind, m[i].a, m[i].b, m[i].n, m[i].j, m[i].k1, m[i].rd, m[i].k2);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    return out;
}

/* Play ``prefix`` (solver moves as 8-tuples, e.g. a restart's start from the best line) on
 * the loaded state, each checked to be legal there. */
static int play_prefix(State *s, PyObject *prefix) {
    PyObject *seq = PySequence_Fast(prefix, "prefix: expected a sequence of moves");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        int v[8];
        if (read_ints(PySequence_Fast_GET_ITEM(seq, i), "prefix: a move", v, 8, -1, 1 << 15) != 8) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "prefix: a move is an 8-tuple");
            goto fail;
        }
        Move m = {(signed char)v[0], (signed char)v[1], (signed char)v[2], (signed char)v[6], (short)v[3],
                  (short)v[4], (short)v[5], (short)v[7]};
        int ok = 0, a = v[1], b = v[2], nn = v[3], j = v[4];
        int col_a = a >= 0 && a < s->ncols, col_b = b >= 0 && b < s->ncols;
        switch (v[0]) {
        case T2F: ok = col_a && s->len[a] && found_slot(s, s->col[a][s->len[a] - 1]) >= 0; break;
        case T2T: ok = col_a && col_b && a != b && nn >= 1 && nn <= s->len[a] && s->len[b] + nn < MAXCOL; break;
        case W2F: ok = j >= 0 && j < s->tlen && found_slot(s, s->talon[j]) >= 0; break;
        case W2T: ok = j >= 0 && j < s->tlen && col_b && s->len[b] + 1 < MAXCOL; break;
        case F2T: ok = s->klondike && a >= 0 && a < 4 && s->found[a] > 0 && col_b && s->len[b] + 1 < MAXCOL; break;
        default: ok = 0;
        }
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "prefix: move %zd does not fit the position", i);
            goto fail;
        }
        Hist h;
        play(s, &m, &h);
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}


static int weights_set = 0;

/* core.py's Options, read by field name (a missing field is an error, not a default). */
static int get_double(PyObject *o, const char *name, double *out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    if (!v) return -1;
    *out = PyFloat_AsDouble(v);
    Py_DECREF(v);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int read_options(PyObject *o, Options *out) {
    memset(out, 0, sizeof *out);
    double max_nodes;
    if (get_double(o, "seconds", &out->seconds) || get_double(o, "table_mb", &out->table_mb) ||
        get_double(o, "noise", &out->rng.noise) || get_double(o, "max_nodes", &max_nodes) ||
        get_int(o, "keep_best", &out->keep_best) || get_int(o, "prune", &out->prune) || get_int(o, "dominate", &out->dominate) || get_int(o, "width", &out->width) ||
        get_int(o, "cap", &out->cap))
        return -1;
    out->max_nodes = max_nodes < 0 ? -1 : max_nodes > 4e18 ? (1LL << 62) : (long long)max_nodes;
    PyObject *rng = PyObject_GetAttrString(o, "rng");
    if (!rng) return -1;
    if (rng != Py_None) { /* random.Random.getstate()[1], packed: 624 words and the position */
        uint32_t w[625];
        int ok = PyBytes_Check(rng) && PyBytes_GET_SIZE(rng) == sizeof w;
        if (ok) memcpy(w, PyBytes_AS_STRING(rng), sizeof w);
        if (!ok || w[624] > 624) {
            Py_DECREF(rng);
            PyErr_SetString(PyExc_ValueError, "rng: expected 625 words (random.Random.getstate()[1], packed)");
            return -1;
        }
        memcpy(out->rng.mt, w, sizeof out->rng.mt);
        out->rng.mti = (int)w[624];
        out->rng.on = 1;
    }
    Py_DECREF(rng);
    return 0;
}

static PyStructSequence_Field outcome_fields[] = {
    {"status", "0 solved, 1 unsolvable, 2 unknown"},
    {"line", "the win (solved), as 8-tuples of SearchMove's fields"},
    {"nodes", "moves tried"},
    {"depth", "the deepest path, in branching positions"},
    {"replaced", "table entries replaced"},
    {"best_left", "fewest cards off the foundations in a position entered"},
    {"best_line", "the line to it (search: keep_best only)"},
    {"stored", "table entries written"},
    {"slots", "the table's entries in use, as far as it grew"},
    {NULL, NULL}};
static PyStructSequence_Desc outcome_desc = {"solver._core.Outcome", "What one search or beam found.", outcome_fields, 9};
static PyTypeObject OutcomeType;

static PyObject *outcome_object(const Outcome *out) {
    PyObject *r = PyStructSequence_New(&OutcomeType);
    if (!r) return NULL;
    PyObject *v[9] = {PyLong_FromLong(out->status), moves_to_list(out->line, out->nline), PyLong_FromLongLong(out->nodes),
                      PyLong_FromLongLong(out->depth), PyLong_FromLongLong(out->replaced),
                      PyLong_FromLong(out->best_left), moves_to_list(out->best, out->nbest),
                      PyLong_FromLongLong(out->stored), PyLong_FromLongLong(out->slots)};
    int bad = 0;
    for (int i = 0; i < 9; i++) {
        if (!v[i]) bad = 1;
        PyStructSequence_SET_ITEM(r, i, v[i] ? v[i] : (Py_INCREF(Py_None), Py_None));
    }
    if (bad) Py_CLEAR(r);
    return r;
}

/* search(state, options) and beam(state, options): a position, core.py's Options, an Outcome. */
static PyObject *run_position(PyObject *args, int beam) {
    PyObject *st, *opts;
    if (!PyArg_ParseTuple(args, "OO", &st, &opts)) return NULL;
    if (!weights_set) {
        PyErr_SetString(PyExc_RuntimeError, "the core has no weights: init() first (core.py does)");
        return NULL;
    }
    Options o;
    if (read_options(opts, &o) < 0) return NULL;
    if (beam && (o.width < 1 || o.cap < 1 || (long long)o.width * o.cap > 20000000LL)) {
        PyErr_SetString(PyExc_ValueError, "width and cap must be at least 1, and width x cap at most 20,000,000");
        return NULL;
    }
    State *s = malloc(sizeof(State));
    if (!s) return PyErr_NoMemory();
    PyObject *result = NULL, *prefix = NULL;
    if (load_state(st, s) < 0) goto done;
    if (beam && (s->klondike || s->passes < 0)) {
        PyErr_SetString(PyExc_ValueError, "the beam is for games with a limited stock and no face-down cards");
        goto done;
    }
    if (!beam && (!(prefix = PyObject_GetAttrString(opts, "prefix")) || play_prefix(s, prefix) < 0)) goto done;
    Outcome out;
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = beam ? beam_position(s, &o, &out) : search_position(s, &o, &out);
    Py_END_ALLOW_THREADS
    if (r < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = outcome_object(&out);
    outcome_free(&out);
done:
    Py_XDECREF(prefix);
    free(s);
    return result;
}

/* image(state, options) -> Outcome: the image game's search (status 1: the position is lost; nodes: positions). */
static PyObject *core_image(PyObject *self, PyObject *args) {
    PyObject *st, *opts, *result = NULL;
    if (!PyArg_ParseTuple(args, "OO", &st, &opts)) return NULL;
    Options o;
    if (read_options(opts, &o) < 0) return NULL;
    State *s = malloc(sizeof(State));
    if (!s) return PyErr_NoMemory();
    if (load_state(st, s) == 0) {
        Outcome out;
        int r;
        Py_BEGIN_ALLOW_THREADS
        r = image_position(s, &o, &out);
        Py_END_ALLOW_THREADS
        if (r == -2)
            PyErr_SetString(PyExc_ValueError, "image: a one-deck Klondike position with face-up runs built down");
        else if (r < 0)
            PyErr_NoMemory();
        else {
            result = outcome_object(&out);
            outcome_free(&out);
        }
    }
    free(s);
    return result;
}

static PyObject *core_search(PyObject *self, PyObject *args) { return run_position(args, 0); }

static PyObject *core_beam(PyObject *self, PyObject *args) { return run_position(args, 1); }

static int read_weights(PyObject *o, long long *out, const char *const *names, Py_ssize_t n) {
    if (PyObject_Length(o) != n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "init: the weights table has other fields");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyObject_GetAttrString(o, names[i]);
        if (!v) return -1;
        out[i] = PyLong_AsLongLong(v);
        Py_DECREF(v);
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *core_init(PyObject *self, PyObject *args) {
#define NAME(name) #name,
    static const char *const move_names[] = {MOVE_WEIGHTS(NAME)}, *const beam_names[] = {BEAM_WEIGHTS(NAME)};
#undef NAME
    PyObject *mw, *bw;
    if (!PyArg_ParseTuple(args, "OO", &mw, &bw)) return NULL;
    long long m[sizeof W / sizeof(long long)], b[sizeof BW / sizeof(long long)];
    if (read_weights(mw, m, move_names, sizeof W / sizeof(long long)) ||
        read_weights(bw, b, beam_names, sizeof BW / sizeof(long long)))
        return NULL;
    memcpy(&W, m, sizeof W);
    memcpy(&BW, b, sizeof BW);
    weights_set = 1;
    Py_RETURN_NONE;
}

/* never_all_up(state) -> bool: never-all-up on a position (dead.never_all_up's mirror). */
static PyObject *core_never_all_up(PyObject *self, PyObject *args) {
    PyObject *st;
    if (!PyArg_ParseTuple(args, "O", &st)) return NULL;
    State *s = malloc(sizeof(State));
    if (!s) return PyErr_NoMemory();
    PyObject *r = load_state(st, s) < 0 ? NULL : PyBool_FromLong(never_all_up(s));
    free(s);
    return r;
}

static PyObject *core_entry_bytes(PyObject *self, PyObject *noargs) { return PyLong_FromSize_t(entry_bytes()); }

static PyMethodDef methods[] = {
    {"search", core_search, METH_VARARGS,
     "search(state, options) -> Outcome: one depth-first search (core.py's Options; status 0 solved,\n"
     "1 unsolvable, 2 unknown)."},
    {"beam", core_beam, METH_VARARGS, "beam(state, options) -> Outcome: one stock-step beam (status 0 or 2)."},
    {"init", core_init, METH_VARARGS, "init(move_weights, beam_weights): the weights tables, by field name."},
    {"entry_bytes", core_entry_bytes, METH_NOARGS, "Bytes per table entry."},
    {"never_all_up", core_never_all_up, METH_VARARGS, "never_all_up(state) -> bool: never-all-up (dead.py)."},
    {"image", core_image, METH_VARARGS, "image(state, options) -> Outcome: the image game (abstract.py, reference/image.py); status 1: lost."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled search core (see core.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

#ifndef CORE_SOURCE_SHA256
#define CORE_SOURCE_SHA256 "unknown"
#endif

PyMODINIT_FUNC PyInit__core(void) {
    init_zobrist();
    beam_init();
    image_init();
    if (!OutcomeType.tp_name && PyStructSequence_InitType2(&OutcomeType, &outcome_desc) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&OutcomeType);
    if (PyModule_AddObject(m, "Outcome", (PyObject *)&OutcomeType) < 0) {
        Py_DECREF(&OutcomeType);
        Py_DECREF(m);
        return NULL;
    }
    PyObject *kinds = Py_BuildValue("{sisisisisisisi}", "DRAW", DRAW, "REDEAL", REDEAL, "T2F", T2F, "T2T", T2T, "W2F", W2F,
                                    "W2T", W2T, "F2T", F2T);
    if (!kinds || PyModule_AddObject(m, "KINDS", kinds) < 0) {
        Py_XDECREF(kinds);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "SOURCE_SHA256", CORE_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
