/*
 * The YAML reader's common path, in C: provider.document._reader.read().
 *
 * Why C: a run over many specs spends most of its time reading YAML. The Python reader
 * (provider/document/yaml_loader.py) walks PyYAML's event stream, and each event is a Python
 * object built for it; this module walks libyaml's events directly and builds the same values
 * and position tables, about four times faster (bench/RESULTS.md, "Fifth round").
 *
 * It reads only what needs no word to the user: one document whose top level is a mapping or a
 * sequence, plain string keys, untagged values with no anchors or aliases. For anything else
 * (a syntax error, a duplicate, null or merge key, a tag, an anchor, an alias, a YAML 1.1
 * scalar that plain() refuses, a second document, too deep or too large) it returns None
 * and the Python reader reads the file, so every problem is worded in one place. It also
 * returns None when anything inside it fails; only an exception that is not an Exception
 * (KeyboardInterrupt) is raised.
 *
 * read(data, plain, special_words, numeric_start, key_words, max_depth, max_nodes) -> None or
 *   (root, starts, key_positions, value_positions, item_positions, raw_plain)
 * with the tables of provider.document.loaded.LoadedDocument, keyed by id(container) as there.
 * The arguments are the Python reader's own rules (provider/document/native.py passes them),
 * so the two cannot drift apart: plain() resolves every plain scalar that is not a word.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <yaml.h>

typedef struct {
    PyObject *container;     /* the dict or list being filled */
    PyObject *positions;     /* where each value starts: a dict by key (mappings), a list (sequences) */
    PyObject *key_positions; /* mappings: where each key is */
    PyObject *key;           /* mappings: the key whose value comes next, or NULL */
    PyObject *start;         /* where the container starts: (line, column), 1-based */
    Py_ssize_t size;         /* values inside it, itself included */
    int is_map;
} Frame;

typedef struct {
    PyObject *plain, *special_words, *key_words;
    const char *numeric_start;
    int max_depth;
    Py_ssize_t max_nodes;
    Frame *stack;
    int depth;
    Py_ssize_t nodes;
    int documents;
    PyObject *root, *starts, *key_positions, *value_positions, *item_positions, *raw_plain;
} Reader;

/* What one step of the reader says: go on, hand the file to the Python reader, or fail. */
enum { GO_ON = 0, DECLINE = 1, FAILED = -1 };

static PyObject *
position(yaml_mark_t mark)
{
    PyObject *line = PyLong_FromSize_t(mark.line + 1), *column = PyLong_FromSize_t(mark.column + 1);
    PyObject *pos = line && column ? PyTuple_Pack(2, line, column) : NULL;
    Py_XDECREF(line);
    Py_XDECREF(column);
    return pos;
}

/* Start a mapping or a sequence; it is placed in its parent when its end event comes. */
static int
open_container(Reader *r, yaml_event_t *event)
{
    int is_map = event->type == YAML_MAPPING_START_EVENT;
    int marked = is_map ? event->data.mapping_start.anchor || event->data.mapping_start.tag
                        : event->data.sequence_start.anchor || event->data.sequence_start.tag;
    Frame *parent = r->depth ? &r->stack[r->depth - 1] : NULL;
    if (marked || r->depth >= r->max_depth || (parent && parent->is_map && parent->key == NULL))
        return DECLINE; /* a tag or an anchor, too deep, or a container as a key */
    Frame *f = &r->stack[r->depth++];
    memset(f, 0, sizeof(Frame));
    f->is_map = is_map;
    f->size = 1;
    f->container = is_map ? PyDict_New() : PyList_New(0);
    f->positions = is_map ? PyDict_New() : PyList_New(0);
    f->key_positions = is_map ? PyDict_New() : NULL;
    f->start = position(event->start_mark);
    if (!f->container || !f->positions || (is_map && !f->key_positions) || !f->start)
        return FAILED;
    PyObject *ident = PyLong_FromVoidPtr(f->container);
    int failed = !ident || PyDict_SetItem(r->starts, ident, f->start) < 0
                 || PyDict_SetItem(is_map ? r->value_positions : r->item_positions, ident, f->positions) < 0
                 || (is_map && PyDict_SetItem(r->key_positions, ident, f->key_positions) < 0);
    Py_XDECREF(ident);
    return failed ? FAILED : GO_ON;
}

/* A key of the mapping ``top``: kept unless it needs a word (a duplicate, null or the merge key). */
static int
read_key(Frame *top, PyObject *key_words, PyObject *value, PyObject *pos)
{
    int known = PyDict_Contains(top->key_positions, value);
    int word = known ? 0 : PySet_Contains(key_words, value);
    if (known < 0 || word < 0)
        return FAILED;
    if (known || word)
        return DECLINE;
    if (PyDict_SetItem(top->key_positions, value, pos) < 0)
        return FAILED;
    top->key = Py_NewRef(value);
    return GO_ON;
}

/* A plain scalar's value (YAML 1.2), and in *raw its text when that is not a string. */
static int
resolve_plain(Reader *r, yaml_event_t *event, PyObject **value, PyObject **raw)
{
    const char *text = (const char *)event->data.scalar.value;
    if (event->data.scalar.length > 0 && event->data.scalar.plain_implicit && text[0] != '\0'
        && strchr(r->numeric_start, text[0]) == NULL) {
        int special = PySet_Contains(r->special_words, *value);
        if (special < 0)
            return FAILED;
        if (!special)
            return GO_ON; /* a word YAML reads as nothing but this string (n1-standard-4) */
    }
    PyObject *read = PyObject_CallOneArg(r->plain, *value);
    if (read == NULL)
        return FAILED;
    if (!PyTuple_Check(read) || PyTuple_GET_SIZE(read) != 3 || PyTuple_GET_ITEM(read, 2) != Py_None) {
        Py_DECREF(read);
        return DECLINE; /* refused (a YAML 1.1 trap, too large, not finite): the Python reader says why */
    }
    Py_SETREF(*value, Py_NewRef(PyTuple_GET_ITEM(read, 0)));
    PyObject *text_as_written = PyTuple_GET_ITEM(read, 1);
    *raw = text_as_written == Py_None ? NULL : Py_NewRef(text_as_written);
    Py_DECREF(read);
    return GO_ON;
}

/* Put a finished value (with its size and position) into the container being read. */
static int
place(Reader *r, PyObject *value, Py_ssize_t size, PyObject *pos, PyObject *raw)
{
    if (r->depth == 0) {
        if (!PyDict_Check(value) && !PyList_Check(value))
            return DECLINE; /* a single value: the Python reader's message */
        r->root = Py_NewRef(value);
        return GO_ON;
    }
    Frame *top = &r->stack[r->depth - 1];
    r->nodes += size;
    top->size += size;
    if (r->nodes > r->max_nodes)
        return DECLINE;
    PyObject *ident = PyLong_FromVoidPtr(top->container);
    if (ident == NULL)
        return FAILED;
    int failed;
    if (top->is_map) {
        PyObject *key = top->key;
        if (key == NULL) {
            Py_DECREF(ident);
            return FAILED; /* libyaml gives every key a value: never here */
        }
        top->key = NULL;
        PyObject *at = raw ? PyTuple_Pack(2, ident, key) : NULL;
        failed = (raw && (!at || PyDict_SetItem(r->raw_plain, at, raw) < 0))
                 || PyDict_SetItem(top->positions, key, pos) < 0 || PyDict_SetItem(top->container, key, value) < 0;
        Py_XDECREF(at);
        Py_DECREF(key);
    } else {
        PyObject *index = raw ? PyLong_FromSsize_t(PyList_GET_SIZE(top->container)) : NULL;
        PyObject *at = index ? PyTuple_Pack(2, ident, index) : NULL;
        failed = (raw && (!at || PyDict_SetItem(r->raw_plain, at, raw) < 0))
                 || PyList_Append(top->positions, pos) < 0 || PyList_Append(top->container, value) < 0;
        Py_XDECREF(at);
        Py_XDECREF(index);
    }
    Py_DECREF(ident);
    return failed ? FAILED : GO_ON;
}

/* One event: GO_ON, DECLINE or FAILED; *finished is set at the stream's end. */
static int
step(Reader *r, yaml_event_t *event, int *finished)
{
    PyObject *value = NULL, *raw = NULL, *pos = NULL;
    Py_ssize_t size = 1;
    int said = GO_ON;
    switch (event->type) {
    case YAML_STREAM_END_EVENT:
        *finished = 1;
        return GO_ON;
    case YAML_DOCUMENT_START_EVENT:
        return ++r->documents > 1 ? DECLINE : GO_ON;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        return open_container(r, event);
    case YAML_ALIAS_EVENT:
        return DECLINE;
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT: {
        Frame *done = &r->stack[--r->depth];
        value = done->container; /* the references move here */
        pos = done->start;
        size = done->size;
        Py_CLEAR(done->positions);
        Py_CLEAR(done->key_positions);
        Py_CLEAR(done->key);
        done->container = done->start = NULL;
        break;
    }
    case YAML_SCALAR_EVENT: {
        if (event->data.scalar.anchor || event->data.scalar.tag)
            return DECLINE;
        value = PyUnicode_DecodeUTF8((const char *)event->data.scalar.value, (Py_ssize_t)event->data.scalar.length,
                                     "strict");
        pos = value ? position(event->start_mark) : NULL;
        Frame *top = r->depth ? &r->stack[r->depth - 1] : NULL;
        if (pos == NULL)
            said = FAILED;
        else if (top && top->is_map && top->key == NULL) {
            said = read_key(top, r->key_words, value, pos);
            Py_DECREF(value);
            Py_DECREF(pos);
            return said;
        } else if (r->depth >= r->max_depth)
            said = DECLINE;
        else if (event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            said = resolve_plain(r, event, &value, &raw);
        break; /* a quoted, literal or folded scalar is its text */
    }
    default: /* the stream's start, a document's end */
        return GO_ON;
    }
    if (said == GO_ON)
        said = place(r, value, size, pos, raw);
    Py_XDECREF(value);
    Py_XDECREF(raw);
    Py_XDECREF(pos);
    return said;
}

static PyObject *
reader_read(PyObject *module, PyObject *args)
{
    const char *data;
    Py_ssize_t length;
    Reader r;
    memset(&r, 0, sizeof(r));
    if (!PyArg_ParseTuple(args, "y#OO!sO!in:read", &data, &length, &r.plain, &PyFrozenSet_Type, &r.special_words,
                          &r.numeric_start, &PyFrozenSet_Type, &r.key_words, &r.max_depth, &r.max_nodes))
        return NULL;
    if (r.max_depth < 1)
        return PyErr_Format(PyExc_ValueError, "max_depth must be at least 1");
    r.stack = PyMem_Calloc((size_t)r.max_depth, sizeof(Frame));
    r.starts = PyDict_New();
    r.key_positions = PyDict_New();
    r.value_positions = PyDict_New();
    r.item_positions = PyDict_New();
    r.raw_plain = PyDict_New();
    int said = r.stack && r.starts && r.key_positions && r.value_positions && r.item_positions && r.raw_plain
                   ? GO_ON : FAILED;
    yaml_parser_t parser;
    int ready = said == GO_ON && yaml_parser_initialize(&parser);
    if (ready) {
        yaml_parser_set_input_string(&parser, (const unsigned char *)data, (size_t)length);
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    } else
        said = FAILED;
    int finished = 0;
    while (said == GO_ON && !finished) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            said = DECLINE; /* a syntax error: the Python reader says where and what */
            break;
        }
        said = step(&r, &event, &finished);
        yaml_event_delete(&event);
    }
    if (ready)
        yaml_parser_delete(&parser);
    while (r.depth > 0) { /* what a declined or failed read left open */
        Frame *f = &r.stack[--r.depth];
        Py_XDECREF(f->container);
        Py_XDECREF(f->positions);
        Py_XDECREF(f->key_positions);
        Py_XDECREF(f->key);
        Py_XDECREF(f->start);
    }
    PyMem_Free(r.stack);
    PyObject *out = NULL;
    if (said == GO_ON && r.root != NULL && r.documents == 1)
        out = PyTuple_Pack(6, r.root, r.starts, r.key_positions, r.value_positions, r.item_positions, r.raw_plain);
    else if (said != FAILED || PyErr_ExceptionMatches(PyExc_Exception) || !PyErr_Occurred()) {
        PyErr_Clear(); /* anything that went wrong here is the Python reader's to meet and word */
        out = Py_NewRef(Py_None);
    }
    Py_XDECREF(r.root);
    Py_XDECREF(r.starts);
    Py_XDECREF(r.key_positions);
    Py_XDECREF(r.value_positions);
    Py_XDECREF(r.item_positions);
    Py_XDECREF(r.raw_plain);
    return out;
}

static PyMethodDef methods[] = {
    {"read", reader_read, METH_VARARGS,
     "read(data, plain, special_words, numeric_start, key_words, max_depth, max_nodes): a YAML document's "
     "values and position tables, or None when the Python reader must read it"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "provider.document._reader", "The YAML reader's common path, in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__reader(void)
{
    return PyModule_Create(&module);
}
