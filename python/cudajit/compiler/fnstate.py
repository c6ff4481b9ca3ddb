"""What the translation of one function knows: one object, ``FunctionState``, that the translator and its
collaborators (dataflow.py, expressions.py, calls.py, indexing.py, loops.py, evalorder.py, closures.py) share by
name, in place of attributes set on a translator assembled from mixins (issue 39).

Four kinds of fields: what the function is (given, never changed); what the typing passes learn about its
definitions (kept from pass to pass until nothing changes); what one pass builds (reset by ``begin_pass``); and what
the unit needs, recorded as code is emitted (barriers, dynamic shared memory, callees, local memory, raises), which
program.py reads when it assembles the unit.
"""
from . import headers, types as T


class FunctionState:
    def __init__(self, program, parsed, argtypes, is_kernel, options, cname, literals=None):
        # ---- what the function is ------------------------------------------------------------------------------
        self.program, self.parsed, self.loc = program, parsed, parsed.loc
        self.argtypes, self.is_kernel, self.options, self.cname = tuple(argtypes), is_kernel, options, cname
        self.locals = set()          # the names the function assigns (FunctionTranslator fills it)
        # Parameters holding a function or a type (types.FunctionValue): names of compile-time objects, not
        # variables, so they take no C++ parameter and cannot be reassigned.
        self.function_params = {name: t for name, t in zip(parsed.params, self.argtypes)
                                if isinstance(t, T.FunctionValue)}

        # ---- definitions, persistent across the typing passes (dataflow.py) --------------------------------------
        self.def_types, self.def_nonneg, self.def_names, self.def_nodes, self.def_order = {}, {}, {}, {}, {}
        self.def_consts = {}         # definition -> the int or tuple of ints it assigned (``N = 32``), this pass
        # A device function specialised on its constant arguments (program.device_function): each such
        # parameter is a definition of its value.
        for name, c in zip(parsed.params, literals or ()):
            if c is not None:
                self.def_consts[("param", name)] = c
        # definition -> the cuda.grid component it assigned (Value.grid), or dataflow.NOT_GRID once any pass
        # assigned anything else there; sticky, so the passes settle (a use reads a definition not yet seen as not
        # grid)
        self.def_grid = {}
        self.parent = {}             # union-find of definitions that meet (one C++ variable: a web)
        self.escapes, self.def_loop = set(), {}
        self.changed = False         # this pass changed a type or a web: another pass follows
        self.return_type = T.undefined
        self.returns_value = False
        self.returned_node = None    # the expression of the return statement being typed
        self.typed_vars = {}         # (lineno, name) -> type, for typed_listing
        self.omitted = {}            # parameter left out of the launch -> its default's Value (this pass)

        # ---- storage, chosen after typing (storage.py) ---------------------------------------------------------
        self.storage, self.web_of, self.param_cnames = {}, {}, {}
        self.reserved_names = set()
        self.direct_loops = set()    # loops whose variable is the C++ loop counter (loops.py)

        # ---- what the unit needs, recorded as it is emitted ----------------------------------------------------
        self.storage_decls = {}      # id(call node) -> (name, C++ declaration line)
        self.local_bytes = {}        # id(cuda.local.array call) -> its bytes
        self.uses_barriers = False
        self.uses_dynamic_shared = False
        self.callees = set()
        self.recursive = False       # reached again while being translated (program.py)
        self.self_calls = set()      # id(call node) of this function's calls of itself
        self.may_raise = False       # has raise/assert or calls a function that has (evalorder.py)
        self.intrinsics_used = set()  # the registry names this function used (coarsen.py)
        self.header_parts = set()    # the optional runtime header parts its code needs (headers.py; final pass)
        self.final = False           # the pass that writes the code (begin_pass)
        # In a GPU kernel, the read-only array parameters whose elements load through cj::ld_nc, and whether one
        # of them was viewed after all (coarsen.py)
        self.nc_params, self.nc_broken = set(), False
        # (parameter, axis, grid component) of every checked element the kernel takes at a grid index, with the
        # parameter unassigned: the CPU block loop proves them for a whole block (CJ_ENTRY_FITS). fit_codes:
        # (code, its sites) as the final pass renders them, loop bodies more than once; fit_sites: those whose
        # code is in the kernel's text (FunctionTranslator._finish).
        self.fit_codes, self.fit_sites = [], set()
        self.head_params, self.head_bounds = [], ""   # the kernel's C++ parameters and launch bounds (render)

        # ---- inner functions (closures.py) ---------------------------------------------------------------------
        # A ClosureDef per def of this specialisation, the Name loads a call reads captured variables through,
        # and this scope's bindings by name (for numba's escape rule).
        self.closure_defs, self.capture_refs, self.definitions_by_name = {}, {}, None
        self.unrolled = {}           # (id(for node), length) -> its literal_unroll iterations (loops.py)
        self.unroll_origin = {}      # id(a for node in such a copy) -> the user's for node it copies

        # ---- expression hints (expressions.py): the assignment target being translated -------------------------
        self.target_hint = None
        self.storage_hint = None     # the Name an array-making call is assigned to, for its storage's C++ name

        self.begin_pass(final=False)

    def need(self, part):
        """The code being emitted uses runtime part ``part`` (headers.PARTS)."""
        if self.final:
            self.header_parts.add(part)

    def need_type(self, t):
        """The code being emitted holds a value of type ``t``: the parts its type needs."""
        if self.final:
            self.header_parts.update(headers.type_parts(t))

    def begin_pass(self, final):
        """The fields one pass builds, empty; ``final``: the pass that writes the code."""
        self.final = final
        self.env = {}                # name -> frozenset of the definitions that reach here (None: unreachable)
        self.lines = []              # the C++ lines written so far (final pass)
        self.sites, self.loop_sites = [], {}
        self.pos = 0
        self.block, self.chain, self.loops, self.loop_ctx = (0,), (), (), []
        self.next_block, self.next_sid, self.temp_counter = 1, 0, 0
        self.top_lines = []
        self.fx_writes, self.fx_raises = 0, 0   # effects of the expression being translated (evalorder.py)
        self.undefined_uses = {}     # id(Name node) -> (node, name): reads no definition reaches
        self.fit_codes = []
