// cudajit: the one header every generated compilation unit includes. Order fixed by docs/INTERNALS.md.
#pragma once
#include "config.h"
#include "complex.h"
#include "half.h"
#include "arith.h"
#include "mathfuncs.h"
#include "atomics.h"
#include "print.h"
#include "thread.h"
#include "array.h"
#include "lang.h"
#include "random.h"
#include "cpu_exec.h"
