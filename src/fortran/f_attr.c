/* src/fortran/f_attr.c — attribute caching from Fortran: keyvals with Fortran copy and delete
 * procedures (MPI-2 communicator and datatype forms with INTEGER(KIND=MPI_ADDRESS_KIND) values,
 * and MPI-1's MPI_KEYVAL_CREATE with default INTEGERs; windows), set/get/delete, and the predefined
 * callbacks (MPI_COMM_DUP_FN ...) as Fortran-callable procedures. MPI_COMM_GET_ATTR is in
 * f_comm.c, MPI_WIN_GET_ATTR in f_win.c.
 *
 * Values are set and read through attr.c's Fortran entry points (src/mpi/attr.h): an attribute
 * remembers whether it was set as a C pointer, a default INTEGER (MPI_ATTR_PUT) or an
 * address-sized integer, so C reading a Fortran value gets a pointer to the integer and Fortran
 * reading a C value gets the pointer's address (MPI 4.0 §19.3.7). */
#include <stdint.h>

#include "fortran/fbind.h"
#include "mpi/attr.h"
#include "mpi/mpi_impl.h"

/* Any procedure: each kind of Fortran callback is stored as this and called as its own type. */
typedef void f_proc(void);

/* The Fortran callbacks, gfortran convention (every argument by reference). MPI-2: */
typedef void f_copy2(MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Aint *extra_state,
                     MPI_Aint *attribute_val_in, MPI_Aint *attribute_val_out, MPI_Fint *flag,
                     MPI_Fint *ierr);
typedef void f_delete2(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *attribute_val,
                       MPI_Aint *extra_state, MPI_Fint *ierr);
/* MPI-1 (MPI_KEYVAL_CREATE): default INTEGER extra state and values. */
typedef void f_copy1(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                     MPI_Fint *attribute_val_in, MPI_Fint *attribute_val_out, MPI_Fint *flag,
                     MPI_Fint *ierr);
typedef void f_delete1(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
                       MPI_Fint *extra_state, MPI_Fint *ierr);

/* An extra state as the C pointer (for C's predefined callbacks, which do not read it). */
static void *f_val(MPI_Aint v) { return (void *)(intptr_t)v; }

/* ---- the predefined callbacks, callable from Fortran (mpif.h declares them EXTERNAL) ----------
 * Three per object kind: MPI-2's with address-sized values (comm_, type_, win_), MPI-1's with
 * default INTEGERs (no prefix). */
#define F_PREDEF_CALLBACKS(pfx, V)                                                                 \
    void mpi_##pfx##null_copy_fn_(MPI_Fint *oldobj, MPI_Fint *keyval, V *extra_state, V *in,       \
                                  V *out, MPI_Fint *flag, MPI_Fint *ierr)                          \
    {                                                                                              \
        *flag = f_logical(0);                                                                      \
        *ierr = MPI_SUCCESS;                                                                       \
    }                                                                                              \
    void mpi_##pfx##dup_fn_(MPI_Fint *oldobj, MPI_Fint *keyval, V *extra_state, V *in, V *out,     \
                            MPI_Fint *flag, MPI_Fint *ierr)                                        \
    {                                                                                              \
        *out = *in;                                                                                \
        *flag = f_logical(1);                                                                      \
        *ierr = MPI_SUCCESS;                                                                       \
    }                                                                                              \
    void mpi_##pfx##null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, V *val, V *extra_state,       \
                                    MPI_Fint *ierr)                                                \
    {                                                                                              \
        *ierr = MPI_SUCCESS;                                                                       \
    }
F_PREDEF_CALLBACKS(comm_, MPI_Aint)
F_PREDEF_CALLBACKS(type_, MPI_Aint)
F_PREDEF_CALLBACKS(win_, MPI_Aint)
F_PREDEF_CALLBACKS(, MPI_Fint)

/* Which predefined procedure a Fortran argument is, whatever its form: a keyval given one gets
 * C's own callback (the MPI-1 MPI_DUP_FN then copies the whole value, as the C one does). */
enum { F_USER, F_NULL_COPY, F_DUP };
static int copy_predef(f_proc *f)
{
    if (f == (f_proc *)mpi_comm_null_copy_fn_ || f == (f_proc *)mpi_type_null_copy_fn_ ||
        f == (f_proc *)mpi_win_null_copy_fn_ || f == (f_proc *)mpi_null_copy_fn_)
        return F_NULL_COPY;
    if (f == (f_proc *)mpi_comm_dup_fn_ || f == (f_proc *)mpi_type_dup_fn_ ||
        f == (f_proc *)mpi_win_dup_fn_ || f == (f_proc *)mpi_dup_fn_)
        return F_DUP;
    return F_USER;
}
static int delete_predef(f_proc *f)
{
    return f == (f_proc *)mpi_comm_null_delete_fn_ || f == (f_proc *)mpi_type_null_delete_fn_ ||
           f == (f_proc *)mpi_win_null_delete_fn_ || f == (f_proc *)mpi_null_delete_fn_;
}

/* ---- the trampolines: C callbacks that call the Fortran procedures ----------------------------
 * A keyval with a Fortran procedure has, as its C extra state, a record of the procedures (NULL
 * where C's predefined callback is registered instead) and of the program's extra state.
 *
 * Records are never freed. attr.c keeps calling a keyval's callbacks after MPI_*_FREE_KEYVAL for
 * as long as attributes cached with it remain (delete_attr, the object's free, and copies on dup,
 * which add more), and it frees the keyval only when the last of them goes, which the bindings
 * cannot observe: counting attributes here would miss those set from C with the same keyval
 * number, and a record freed too early would be called through. Records are immutable, so
 * keyvals with the same procedures and extra state share one (a program that creates and frees
 * keyvals in a loop does not grow the list); the list keeps them reachable until exit. */
struct frec {
    struct frec *next;
    f_proc *copy, *del;
    MPI_Aint extra; /* the MPI-1 form's INTEGER, sign-extended */
    int mpi1;
};
static struct frec *frecs; /* under the big lock */

static struct frec *frec_get(f_proc *copy, f_proc *del, MPI_Aint extra, int mpi1)
{
    for (struct frec *r = frecs; r != NULL; r = r->next)
        if (r->copy == copy && r->del == del && r->extra == extra && r->mpi1 == mpi1)
            return r;
    struct frec *r = malloc(sizeof *r);
    if (r != NULL) {
        *r = (struct frec){frecs, copy, del, extra, mpi1};
        frecs = r;
    }
    return r;
}

/* obj is the C object's integer handle. The keyval is marked Fortran (mpi_attr_keyval_fortran),
 * so attr.c hands `in` and `val` as pointers to the value as an MPI_Aint (whatever form it was set
 * in) and takes the copy back as an MPI_Aint through `out`; the MPI-1 procedures see it truncated
 * to a default INTEGER, and their result is sign-extended. The Fortran procedure's IERROR is the
 * callback's return, so a failing procedure fails the C call as a failing C callback would. */
static int tr_copy(const struct frec *r, MPI_Fint obj, int keyval, void *in, void *out, int *flag)
{
    MPI_Fint k = keyval, f = 0, ierr = MPI_SUCCESS;
    MPI_Aint ain = *(const MPI_Aint *)in;
    if (r->mpi1) {
        MPI_Fint e = (MPI_Fint)r->extra, vin = (MPI_Fint)ain, vout = 0;
        ((f_copy1 *)r->copy)(&obj, &k, &e, &vin, &vout, &f, &ierr);
        *(MPI_Aint *)out = vout;
    } else {
        MPI_Aint e = r->extra, vin = ain, vout = 0;
        ((f_copy2 *)r->copy)(&obj, &k, &e, &vin, &vout, &f, &ierr);
        *(MPI_Aint *)out = vout;
    }
    *flag = f != 0;
    return ierr;
}

static int tr_delete(const struct frec *r, MPI_Fint obj, int keyval, void *val)
{
    MPI_Fint k = keyval, ierr = MPI_SUCCESS;
    MPI_Aint aval = *(const MPI_Aint *)val;
    if (r->mpi1) {
        MPI_Fint e = (MPI_Fint)r->extra, v = (MPI_Fint)aval;
        ((f_delete1 *)r->del)(&obj, &k, &v, &e, &ierr);
    } else {
        MPI_Aint e = r->extra, v = aval;
        ((f_delete2 *)r->del)(&obj, &k, &v, &e, &ierr);
    }
    return ierr;
}

static int comm_copy_tr(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return tr_copy(extra, MPI_Comm_c2f(oldcomm), keyval, in, out, flag);
}
static int comm_delete_tr(MPI_Comm comm, int keyval, void *val, void *extra)
{
    return tr_delete(extra, MPI_Comm_c2f(comm), keyval, val);
}
static int type_copy_tr(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                        int *flag)
{
    return tr_copy(extra, MPI_Type_c2f(oldtype), keyval, in, out, flag);
}
static int type_delete_tr(MPI_Datatype type, int keyval, void *val, void *extra)
{
    return tr_delete(extra, MPI_Type_c2f(type), keyval, val);
}

static int win_copy_tr(MPI_Win oldwin, int keyval, void *extra, void *in, void *out, int *flag)
{
    return tr_copy(extra, MPI_Win_c2f(oldwin), keyval, in, out, flag);
}
static int win_delete_tr(MPI_Win win, int keyval, void *val, void *extra)
{
    return tr_delete(extra, MPI_Win_c2f(win), keyval, val);
}

enum kv_form { KV_COMM2, KV_COMM1, KV_TYPE2, KV_WIN2 };

/* The create_keyval bindings: C's predefined callbacks for the predefined procedures, the
 * trampolines (and a record) for the others; the keyval is marked Fortran, so attr.c hands its
 * callbacks the Fortran value (C's predefined ones do not read it, or copy it as it is). */
static int create_keyval(enum kv_form form, f_proc *copy, f_proc *del, MPI_Fint *keyval,
                         MPI_Aint extra)
{
    static const char *const fn[] = {"MPI_Comm_create_keyval", "MPI_Keyval_create",
                                     "MPI_Type_create_keyval", "MPI_Win_create_keyval"};
    MPI_ENTER();
    int pc = copy_predef(copy), pd = delete_predef(del);
    void *state = f_val(extra); /* for C's callbacks, which do not read it */
    if (pc == F_USER || !pd) {
        state = frec_get(pc == F_USER ? copy : NULL, pd ? NULL : del, extra, form == KV_COMM1);
        if (state == NULL)
            return f_no_mem(fn[form]);
    }
    int k = MPI_KEYVAL_INVALID, rc;
    if (form == KV_TYPE2) {
        rc = MPI_Type_create_keyval(pc == F_NULL_COPY ? MPI_TYPE_NULL_COPY_FN
                                    : pc == F_DUP     ? MPI_TYPE_DUP_FN
                                                      : type_copy_tr,
                                    pd ? MPI_TYPE_NULL_DELETE_FN : type_delete_tr, &k, state);
    } else if (form == KV_WIN2) {
        rc = MPI_Win_create_keyval(pc == F_NULL_COPY ? MPI_WIN_NULL_COPY_FN
                                   : pc == F_DUP     ? MPI_WIN_DUP_FN
                                                     : win_copy_tr,
                                   pd ? MPI_WIN_NULL_DELETE_FN : win_delete_tr, &k, state);
    } else {
        MPI_Comm_copy_attr_function *c = pc == F_NULL_COPY ? MPI_COMM_NULL_COPY_FN
                                         : pc == F_DUP     ? MPI_COMM_DUP_FN
                                                           : comm_copy_tr;
        MPI_Comm_delete_attr_function *d = pd ? MPI_COMM_NULL_DELETE_FN : comm_delete_tr;
        rc = form == KV_COMM1 ? MPI_Keyval_create(c, d, &k, state)
                              : MPI_Comm_create_keyval(c, d, &k, state);
    }
    if (rc == MPI_SUCCESS) {
        mpi_attr_keyval_fortran(k, form == KV_COMM1 ? ATTR_FINT : ATTR_FAINT);
        *keyval = k;
    }
    return rc;
}

/* ---- communicators (MPI-2) -------------------------------------------------------------------- */

void mpi_comm_create_keyval_(f_proc *comm_copy_attr_fn, f_proc *comm_delete_attr_fn,
                             MPI_Fint *comm_keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
    *ierr = create_keyval(KV_COMM2, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                          *extra_state);
}
F_PMPI(comm_create_keyval)

void mpi_comm_free_keyval_(MPI_Fint *comm_keyval, MPI_Fint *ierr)
{
    int k = *comm_keyval;
    *ierr = MPI_Comm_free_keyval(&k);
    *comm_keyval = k;
}
F_PMPI(comm_free_keyval)

void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val,
                        MPI_Fint *ierr)
{
    *ierr = mpi_attr_comm_fset(MPI_Comm_f2c(*comm), *comm_keyval, ATTR_FAINT, *attribute_val);
}
F_PMPI(comm_set_attr)

void mpi_comm_delete_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_delete_attr(MPI_Comm_f2c(*comm), *comm_keyval);
}
F_PMPI(comm_delete_attr)

/* ---- datatypes -------------------------------------------------------------------------------- */

void mpi_type_create_keyval_(f_proc *type_copy_attr_fn, f_proc *type_delete_attr_fn,
                             MPI_Fint *type_keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
    *ierr = create_keyval(KV_TYPE2, type_copy_attr_fn, type_delete_attr_fn, type_keyval,
                          *extra_state);
}
F_PMPI(type_create_keyval)

void mpi_type_free_keyval_(MPI_Fint *type_keyval, MPI_Fint *ierr)
{
    int k = *type_keyval;
    *ierr = MPI_Type_free_keyval(&k);
    *type_keyval = k;
}
F_PMPI(type_free_keyval)

void mpi_type_set_attr_(MPI_Fint *datatype, MPI_Fint *type_keyval, MPI_Aint *attribute_val,
                        MPI_Fint *ierr)
{
    *ierr = mpi_attr_type_fset(MPI_Type_f2c(*datatype), *type_keyval, *attribute_val);
}
F_PMPI(type_set_attr)

void mpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *type_keyval, MPI_Aint *attribute_val,
                        MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Aint v = 0;
    int f = 0;
    *ierr = mpi_attr_type_fget(MPI_Type_f2c(*datatype), *type_keyval, &v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        *attribute_val = v;
}
F_PMPI(type_get_attr)

void mpi_type_delete_attr_(MPI_Fint *datatype, MPI_Fint *type_keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Type_delete_attr(MPI_Type_f2c(*datatype), *type_keyval);
}
F_PMPI(type_delete_attr)

/* ---- windows (MPI_WIN_GET_ATTR is in f_win.c) ------------------------------------------------ */

void mpi_win_create_keyval_(f_proc *win_copy_attr_fn, f_proc *win_delete_attr_fn,
                            MPI_Fint *win_keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
    *ierr = create_keyval(KV_WIN2, win_copy_attr_fn, win_delete_attr_fn, win_keyval, *extra_state);
}
F_PMPI(win_create_keyval)

void mpi_win_free_keyval_(MPI_Fint *win_keyval, MPI_Fint *ierr)
{
    int k = *win_keyval;
    *ierr = MPI_Win_free_keyval(&k);
    *win_keyval = k;
}
F_PMPI(win_free_keyval)

void mpi_win_set_attr_(MPI_Fint *win, MPI_Fint *win_keyval, MPI_Aint *attribute_val, MPI_Fint *ierr)
{
    *ierr = mpi_attr_win_fset(MPI_Win_f2c(*win), *win_keyval, *attribute_val);
}
F_PMPI(win_set_attr)

void mpi_win_delete_attr_(MPI_Fint *win, MPI_Fint *win_keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Win_delete_attr(MPI_Win_f2c(*win), *win_keyval);
}
F_PMPI(win_delete_attr)

/* ---- MPI-1 names: default INTEGER extra state and values -------------------------------------- */

void mpi_keyval_create_(f_proc *copy_fn, f_proc *delete_fn, MPI_Fint *keyval,
                        MPI_Fint *extra_state, MPI_Fint *ierr)
{
    *ierr = create_keyval(KV_COMM1, copy_fn, delete_fn, keyval, *extra_state);
}
F_PMPI(keyval_create)

void mpi_keyval_free_(MPI_Fint *keyval, MPI_Fint *ierr)
{
    int k = *keyval;
    *ierr = MPI_Keyval_free(&k);
    *keyval = k;
}
F_PMPI(keyval_free)

void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *ierr)
{
    *ierr = mpi_attr_comm_fset(MPI_Comm_f2c(*comm), *keyval, ATTR_FINT, *attribute_val);
}
F_PMPI(attr_put)

/* As MPI_COMM_GET_ATTR (f_comm.c), the value then truncated to a default INTEGER. */
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *flag,
                   MPI_Fint *ierr)
{
    MPI_Aint v = 0;
    int f = 0;
    *ierr = mpi_attr_comm_fget(MPI_Comm_f2c(*comm), *keyval, &v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        *attribute_val = (MPI_Fint)v;
}
F_PMPI(attr_get)

void mpi_attr_delete_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Attr_delete(MPI_Comm_f2c(*comm), *keyval);
}
F_PMPI(attr_delete)
