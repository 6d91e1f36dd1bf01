"""How kernels are wired together: the strategies' one signature, kernels passed as values, unmanaged views.

A strategy's decision kernel is a first-class numba function of
``DECIDE_SIGNATURE``, so the engine takes any strategy, with any parameters,
without recompiling. ``lazy_njit`` gives a kernel its one signature without
compiling at import, so that importing oklasim never compiles. ``decide_function`` lets a cached kernel name another
strategy's kernel as such a value; ``unmanaged_nb`` drops numba's reference
counting from arrays that every step of a hand passes along; ``stack_array_nb``
gives a kernel scratch memory without allocating.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from numba import carray, config, float64, int64, njit, types
from numba.core import cgutils
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

# The one signature every strategy's decision kernel has: (kind, view, params) -> answer.
DECIDE_SIGNATURE = int64(int64, int64[::1], float64[::1])
DECIDE_TYPE = types.FunctionType(DECIDE_SIGNATURE)


class LazyDispatcher(CPUDispatcher):
    """A kernel of one fixed signature, compiled (or read from the cache) when first needed rather than at import,
    then closed to other signatures: what ``njit(signature)`` does, deferred."""

    def compile_now(self):
        """Compile the signature (or load it from the cache) if not yet done; returns the dispatcher. Threads that
        call it first at the same time (the advisor's workers) wait for one of them to compile."""
        with global_compiler_lock:
            if self._can_compile:
                self.compile(self.fixed_signature)
                self.disable_compile()
        return self

    def _compile_for_args(self, *args, **kws):  # called from Python: numba calls what this returns
        return self.compile_now()

    def get_call_template(self, args, kws):  # called from another kernel
        return super(LazyDispatcher, self.compile_now()).get_call_template(args, kws)

    def get_compile_result(self, sig):  # taken as a first-class function (``decide_function``)
        return super(LazyDispatcher, self.compile_now()).get_compile_result(sig)


def lazy_njit(signature, **options):
    """``njit(signature, cache=True, **options)``, compiled when first called or linked, not when its module is
    imported (``oklasim --help`` and a listing of the strategies compile nothing)."""

    def decorate(function):
        dispatcher = njit(cache=True, **options)(function)
        if config.DISABLE_JIT:  # the plain function, with nothing to compile
            dispatcher.compile_now = lambda: dispatcher
            return dispatcher
        dispatcher.__class__ = LazyDispatcher  # the same object, with the methods above
        dispatcher.fixed_signature = signature
        return dispatcher

    return decorate


@functools.cache
def entry_point(kernel):
    """A ``lazy_njit`` kernel's compiled entry (found once), called without the dispatcher's typing of each argument
    (more than the work of a kernel that plays one step of one game). The caller must pass arguments of exactly the
    kernel's one signature: C-contiguous arrays of its dtypes (a wrong dtype raises, a wrong layout is not
    detected), ints and floats. The plain function without JIT."""
    if config.DISABLE_JIT:
        return kernel
    kernel.compile_now()
    return kernel.overloads[kernel.signatures[0]].entry_point


def decide_function(dispatcher):
    """An intrinsic returning ``dispatcher`` as a first-class DECIDE_TYPE value inside numba code.

    A jitted function that names a dispatcher as a value cannot be cached
    (numba embeds the Python object's address). This builds the value from
    the compiled code alone, linked statically, so the caller caches. The
    caller's cache then holds a copy of ``dispatcher``'s code: key it on the
    source of that code too (``oklasim.strategy_api.cache_depends_on``).
    """

    @intrinsic
    def as_function(typingctx):
        def codegen(context, builder, signature, args):
            cres = dispatcher.get_compile_result(DECIDE_SIGNATURE)
            llvoidptr = context.get_value_type(types.voidptr)
            value = cgutils.create_struct_proxy(DECIDE_TYPE)(context, builder)
            value.py_addr = llvoidptr(None)  # no Python object: the value is never boxed
            pointer_type = context.get_value_type(DECIDE_TYPE.ftype)
            wrapper = cgutils.get_or_insert_function(
                builder.module, pointer_type.pointee, cres.fndesc.llvm_cfunc_wrapper_name
            )
            value.c_addr = builder.bitcast(wrapper, llvoidptr)
            value.jit_addr = builder.bitcast(context.declare_function(builder.module, cres.fndesc), llvoidptr)
            context.active_code_library.add_linking_library(cres.library)
            return value._getvalue()

        return DECIDE_TYPE(), codegen

    return as_function


@intrinsic
def _as_pointer(typingctx, address, like):
    """An int address as a pointer to the element type of the array ``like``."""
    pointer = types.CPointer(like.dtype)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer))

    return pointer(types.intp, like), codegen


@intrinsic
def _stack_pointer(typingctx, rows, cols, dtype):
    """A pointer to ``rows * cols`` (constants) uninitialised items of ``dtype`` in the caller's stack frame."""
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None  # typing then retries with the sizes as literals
    if not isinstance(dtype, types.NumberClass):
        return None
    size = rows.literal_value * cols.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_data_type(dtype.dtype), size=size)

    return types.CPointer(dtype.dtype)(rows, cols, dtype), codegen


@intrinsic
def fetch_add_nb(typingctx, counter, amount):
    """Atomically add ``amount`` to ``counter[0]`` (a 1-d int64 array) and return the value before: threads
    sharing the counter each get their own range (sequentially consistent, so no thread sees a stale one)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(counter)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, counter, array, [context.get_constant(types.intp, 0)])
        value = context.cast(builder, args[1], signature.args[1], types.int64)
        return builder.atomic_rmw("add", pointer, value, "seq_cst")

    return types.int64(counter, amount), codegen


_fetch_lock = threading.Lock()


def _locked_fetch_add(counter, amount):
    with _fetch_lock:
        before = int(counter[0])
        counter[0] = before + amount
        return before


@njit(cache=True, inline="always")
def stack_array_nb(rows, cols, dtype):
    """An uninitialised ``(rows, cols)`` scratch array in the calling kernel's stack frame.

    The sizes must be literals or global names of ints (numba types an
    expression as a plain int, and no stack frame has a run-time size).

    No allocation and no reference counts, where ``np.empty`` costs a
    malloc, a free and atomic counts in every call it is passed to (measured
    at a tenth of expert's decisions). It lives as long as the caller's
    frame: pass it down, never return it.
    """
    return carray(_stack_pointer(rows, cols, dtype), (rows, cols))


def _heap_array(rows, cols, dtype):
    return np.empty((rows, cols), dtype)


def _same_array(array):
    """Plain Python (NUMBA_DISABLE_JIT, the coverage job) has no reference counts to save."""
    return array


@njit(cache=True, inline="always")
def unmanaged_nb(array):
    """A view of a C-contiguous array without numba's reference counting.

    Numba pays two atomic reference-count updates for every array argument
    of every call; the board and its companions go through every step of a
    hand, and their unmanaged views cut the engine's CPU time by about a
    fifth (measured). The caller must keep ``array`` alive while the view is
    in use: here they are arguments of the entry point or locals used after.
    """
    return carray(_as_pointer(array.ctypes.data, array), array.shape)


if config.DISABLE_JIT:
    unmanaged_nb = _same_array  # noqa: F811 - the intrinsics above cannot run in plain Python
    stack_array_nb = _heap_array  # noqa: F811
    fetch_add_nb = _locked_fetch_add  # noqa: F811
