"""A planted TVM bug for the reference oracle: importing this module makes LegalizeOps lower
``relax.maximum`` with ``topi.minimum``. Both sides of every example share the fault, so no pass
comparison can see it; only the numpy reference can."""

import tvm
from tvm import topi
from tvm.relax.transform.legalize_ops.binary import _binary

# level 11 outranks TVM's own registration (level 10)
tvm.ir.register_op_attr("relax.maximum", "FLegalize", _binary(topi.minimum), level=11)
