// cudajit: the one header every generated compilation unit includes. Order fixed by docs/INTERNALS.md.
//
// A unit NVRTC compiles may define CJ_LEAN, and CJ_WANT_<PART> for the parts its code names, before it
// (python/cudajit/compiler/headers.py): the parts it does not want are not parsed, which is about a third of a small
// kernel's cold compile. Without CJ_LEAN (the CPU backend, and the GPU's fallback) every part is here.
#pragma once
#include "config.h"
#include "complex.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_HALF)
#include "half.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_BFLOAT16)
#include "bfloat16.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_FP8)
#include "fp8.h"
#endif
#include "arith.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_DATETIME)
#include "datetime.h"
#endif
#include "mathfuncs.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_CMATH)
#include "cmathfuncs.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_ATOMICS)
#include "atomics.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_CACHE_HINTS)
#include "cache_hints.h"
#endif
#include "print.h"
#include "thread.h"
#include "array.h"
#include "lang.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_RECORD)
#include "record.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_RANDOM)
#include "random.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_LIBDEVICE)
#include "libdevice.h"
#endif
#include "cpu_exec.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_REDUCE_RING)
#include "reduce_ring.h"
#endif
#if !defined(CJ_LEAN) || defined(CJ_WANT_ARRAY_REDUCTIONS)
#include "array_reductions.h"
#endif
