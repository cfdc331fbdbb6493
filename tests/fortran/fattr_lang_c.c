/* tests/fortran/fattr_lang_c.c — the C side of fattr_lang.f90: sets attributes as C pointers,
 * reads attributes Fortran set (C must get a pointer to the stored INTEGER or address-sized
 * integer), and keyvals with C copy and delete callbacks that record what they are handed.
 * Every argument comes by reference (gfortran). */
#include <stdio.h>

#include "mpi.h"

enum { K_COMM = 1, K_TYPE = 2, K_WIN = 3 };
enum { AS_PTR = 0, AS_AINT = 1, AS_FINT = 2 };

/* What C sets (fl_c_set) and what its copy callbacks return: objects whose addresses are the
 * values, with contents the delete callbacks can read. */
static MPI_Aint c_obj[3] = {101, 202, 303};
static MPI_Aint c_copy_obj = 4242;
static MPI_Fint c_copy_fint = 77;

/* What the callbacks saw (fl_c_seen). */
static MPI_Aint copy_seen, del_seen;
static int ndel;

void fl_c_set_(const MPI_Fint *kind, const MPI_Fint *obj, const MPI_Fint *key, MPI_Aint *addr,
               MPI_Fint *low);
void fl_c_check_(const MPI_Fint *kind, const MPI_Fint *obj, const MPI_Fint *key,
                 const MPI_Fint *how, const MPI_Aint *val, MPI_Fint *ok);
void fl_c_keyvals_(MPI_Fint *kc2, MPI_Fint *kc1, MPI_Fint *kcdup, MPI_Fint *kct);
void fl_c_seen_(MPI_Aint *copy, MPI_Aint *del, MPI_Fint *n, MPI_Aint *copy_obj);
void fl_c_predef_(const MPI_Fint *comm, const MPI_Fint *win, MPI_Fint *tag_ub, MPI_Aint *base,
                  MPI_Aint *size, MPI_Fint *disp_unit);

/* C sets a pointer to one of its objects on the communicator, datatype or window (kind);
 * *addr gets the pointer as an integer, *low its low-order default INTEGER. */
void fl_c_set_(const MPI_Fint *kind, const MPI_Fint *obj, const MPI_Fint *key, MPI_Aint *addr,
               MPI_Fint *low)
{
    void *p = &c_obj[*kind - 1];
    int rc = MPI_ERR_ARG;
    if (*kind == K_COMM)
        rc = MPI_Comm_set_attr(MPI_Comm_f2c(*obj), *key, p);
    else if (*kind == K_TYPE)
        rc = MPI_Type_set_attr(MPI_Type_f2c(*obj), *key, p);
    else if (*kind == K_WIN)
        rc = MPI_Win_set_attr(MPI_Win_f2c(*obj), *key, p);
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "fattr_lang_c: set_attr failed (%d)\n", rc);
    *addr = (MPI_Aint)p;
    *low = (MPI_Fint)*addr;
}

static int get(MPI_Fint kind, MPI_Fint obj, int key, void **p)
{
    int flag = 0;
    if (kind == K_COMM)
        MPI_Comm_get_attr(MPI_Comm_f2c(obj), key, p, &flag);
    else if (kind == K_TYPE)
        MPI_Type_get_attr(MPI_Type_f2c(obj), key, p, &flag);
    else
        MPI_Win_get_attr(MPI_Win_f2c(obj), key, p, &flag);
    return flag;
}

/* C reads the attribute: `how` says what it must get: AS_PTR the pointer *val itself, AS_AINT a
 * pointer to an MPI_Aint holding *val, AS_FINT a pointer to an MPI_Fint holding *val. A second
 * read must give the same pointer (it stays valid while the attribute is cached). */
void fl_c_check_(const MPI_Fint *kind, const MPI_Fint *obj, const MPI_Fint *key,
                 const MPI_Fint *how, const MPI_Aint *val, MPI_Fint *ok)
{
    void *p = NULL, *q = NULL;
    *ok = 0;
    if (!get(*kind, *obj, *key, &p) || !get(*kind, *obj, *key, &q) || p != q || p == NULL) {
        fprintf(stderr, "fattr_lang_c: attribute not found, or pointers differ\n");
        return;
    }
    switch (*how) {
    case AS_PTR: *ok = p == (void *)*val; break;
    case AS_AINT: *ok = *(const MPI_Aint *)p == *val; break;
    case AS_FINT: *ok = *(const MPI_Fint *)p == (MPI_Fint)*val; break;
    }
    if (!*ok)
        fprintf(stderr, "fattr_lang_c: kind %d key %d read as %d: unexpected value\n", (int)*kind,
                (int)*key, (int)*how);
}

/* Keyvals with C callbacks. The copy callbacks record the value they are handed (a pointer to
 * the Fortran integer, of the form the test sets) and return a C pointer; the delete callbacks
 * record the value their pointer leads to. */
static int copy_aint(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    copy_seen = *(const MPI_Aint *)in;
    *(void **)out = &c_copy_obj;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_aint(MPI_Comm comm, int key, void *val, void *extra)
{
    del_seen = *(const MPI_Aint *)val;
    ndel++;
    return MPI_SUCCESS;
}

static int copy_fint(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    copy_seen = *(const MPI_Fint *)in;
    *(void **)out = &c_copy_fint;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fint(MPI_Comm comm, int key, void *val, void *extra)
{
    del_seen = *(const MPI_Fint *)val;
    ndel++;
    return MPI_SUCCESS;
}

static int type_copy_aint(MPI_Datatype type, int key, void *extra, void *in, void *out, int *flag)
{
    return copy_aint(MPI_COMM_NULL, key, extra, in, out, flag);
}

static int type_delete_aint(MPI_Datatype type, int key, void *val, void *extra)
{
    return delete_aint(MPI_COMM_NULL, key, val, extra);
}

/* kc2: values set as address-sized integers; kc1: as INTEGERs (MPI_Keyval_create); kcdup: C's
 * MPI_COMM_DUP_FN; kct: a datatype keyval for address-sized values. */
void fl_c_keyvals_(MPI_Fint *kc2, MPI_Fint *kc1, MPI_Fint *kcdup, MPI_Fint *kct)
{
    int k;
    MPI_Comm_create_keyval(copy_aint, delete_aint, &k, NULL);
    *kc2 = k;
    MPI_Keyval_create(copy_fint, delete_fint, &k, NULL);
    *kc1 = k;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    *kcdup = k;
    MPI_Type_create_keyval(type_copy_aint, type_delete_aint, &k, NULL);
    *kct = k;
}

/* What the C callbacks saw since the last call, and the address their copies return. */
void fl_c_seen_(MPI_Aint *copy, MPI_Aint *del, MPI_Fint *n, MPI_Aint *copy_obj)
{
    *copy = copy_seen;
    *del = del_seen;
    *n = ndel;
    *copy_obj = (MPI_Aint)&c_copy_obj;
    copy_seen = del_seen = 0;
    ndel = 0;
}

/* The predefined keys as C reads them. */
void fl_c_predef_(const MPI_Fint *comm, const MPI_Fint *win, MPI_Fint *tag_ub, MPI_Aint *base,
                  MPI_Aint *size, MPI_Fint *disp_unit)
{
    int *ip = NULL, flag = 0;
    void *b = NULL;
    MPI_Aint *sp = NULL;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), MPI_TAG_UB, &ip, &flag);
    *tag_ub = flag ? *ip : -1;
    MPI_Win_get_attr(MPI_Win_f2c(*win), MPI_WIN_BASE, &b, &flag);
    *base = flag ? (MPI_Aint)b : -1;
    MPI_Win_get_attr(MPI_Win_f2c(*win), MPI_WIN_SIZE, &sp, &flag);
    *size = flag ? *sp : -1;
    MPI_Win_get_attr(MPI_Win_f2c(*win), MPI_WIN_DISP_UNIT, &ip, &flag);
    *disp_unit = flag ? *ip : -1;
}
